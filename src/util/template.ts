/**
 * A tiny `{{name}}` template renderer for prompt files.
 *
 * One pass over the template: substituted values are never re-scanned, so a
 * trajectory that itself contains `{{...}}` is inserted verbatim.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from './errors.js';
import { asset } from './paths.js';
import { causeOf } from './fs-errors.js';

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;

export class TemplateError extends Error {
  constructor(
    message: string,
    readonly placeholder: string,
  ) {
    super(message);
    this.name = 'TemplateError';
  }
}

/**
 * Replace every `{{name}}` with `vars[name]`. A placeholder with no value is an
 * error naming it (a silent empty string would hide a typo in a user's template).
 * `source` (e.g. the file path) is only used in the error message.
 */
export function render(template: string, vars: Record<string, string | number>, source?: string): string {
  return template.replace(PLACEHOLDER, (_match, name: string) => {
    const value = Object.prototype.hasOwnProperty.call(vars, name) ? vars[name] : undefined;
    if (value === undefined) {
      const where = source ? ` in ${source}` : '';
      const known = Object.keys(vars).map((k) => `{{${k}}}`).join(', ') || 'none';
      throw new TemplateError(`unknown placeholder {{${name}}}${where} (available: ${known})`, name);
    }
    return String(value);
  });
}

/** Names of the placeholders used in a template, in first-use order. */
export function placeholders(template: string): string[] {
  const seen = new Set<string>();
  for (const m of template.matchAll(PLACEHOLDER)) seen.add(m[1] as string);
  return [...seen];
}

export interface LoadedTemplate {
  text: string;
  /** Where it was read from (for error messages). */
  path: string;
}

/**
 * Read template `file` from `promptDir` when that directory has it, else from the
 * shipped `templateDir` (relative to the package root). Overrides are per file,
 * so a user can replace one prompt and keep the others.
 */
export function loadTemplate(templateDir: string, file: string, promptDir?: string): LoadedTemplate {
  const override = promptDir ? join(promptDir, file) : undefined;
  const path = override && existsSync(override) ? override : asset(templateDir, file);
  let text = readCache.get(path);
  if (text === undefined) {
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new UserError(`cannot read prompt template ${path}: ${causeOf(err)}`);
    }
    readCache.set(path, text);
  }
  return { text, path };
}

/**
 * A prompt pack's folder for one namespace (`memory`, or a benchmark's name): packs
 * are laid out as <pack>/<namespace>/<file>, so two benchmarks' `memory.md` never
 * collide. Undefined when no pack is in use.
 */
export function packNamespace(pack: string | null | undefined, namespace: string): string | undefined {
  return pack ? join(pack, namespace) : undefined;
}

/** Prompt files do not change during a run: every episode reuses the first read. */
const readCache = new Map<string, string>();
