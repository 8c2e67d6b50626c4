/**
 * Prompt packs. Every prompt memrl sends is a template file; memrl's own sit next to
 * the code that uses them (src/memory/prompts, src/bench/<name>/prompts). A pack is a
 * folder that overrides them file by file, laid out by namespace:
 *
 *   <pack>/pack.json            {"name": ..., "source": ...}   (optional)
 *   <pack>/memory/<file>        the memory writer's and the methods' templates
 *   <pack>/<benchmark>/<file>   a benchmark's templates
 *
 * A pack is checked before a run starts (unknown files, placeholders the code does
 * not supply) and identified in run.json by its name and a hash of its templates.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, isAbsolute, join, relative } from 'node:path';
import { z } from 'zod';
import type { ReferencePrompt } from '../../core/index.js';
import { closest } from '../../config/issues.js';
import { DEFAULT_PROMPT_DIR } from '../../memory/writer.js';
import { WRITER_REFERENCE_PROMPTS } from '../../memory/reference-prompts.js';
import { UserError, errorMessage } from '../../util/errors.js';
import { asset } from '../../util/paths.js';
import { placeholders } from '../../util/template.js';
import type { Registry } from '../registry.js';

export const PACK_FILE = 'pack.json';

/** One namespace of templates: memrl's own folder and where they sit in the reference. */
export interface PromptNamespace {
  name: string;
  /** Absolute folder of memrl's own templates. */
  dir: string;
  reference: readonly ReferencePrompt[];
}

/** What run.json records about the pack in use. */
export interface PackInfo {
  name: string;
  /** Absolute folder. */
  dir: string;
  /** sha256 over the pack's templates (namespace/file and text, sorted). */
  hash: string;
  /** Where the pack says it came from (e.g. the MemRL commit it was imported from). */
  source: string | null;
  /** Templates it overrides, as namespace/file; the rest are memrl's own. */
  overrides: string[];
}

const PackFileSchema = z.object({ name: z.string().min(1).optional(), source: z.string().optional() }).passthrough();

export function promptNamespaces(registry: Registry): PromptNamespace[] {
  const spaces: PromptNamespace[] = [
    {
      name: 'memory',
      dir: asset(DEFAULT_PROMPT_DIR),
      reference: [...WRITER_REFERENCE_PROMPTS, ...registry.methods.flatMap((m) => m.referencePrompts ?? [])],
    },
  ];
  for (const b of registry.benchmarks) {
    if (!b.promptTemplates) continue;
    spaces.push({ name: b.name, dir: isAbsolute(b.promptTemplates) ? b.promptTemplates : asset(b.promptTemplates), reference: b.referencePrompts ?? [] });
  }
  return spaces;
}

/** The template files of a folder (sorted); a missing folder has none. */
function templateFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => statSync(join(dir, f)).isFile())
    .sort();
}

/**
 * Checks a pack against the registry's namespaces and describes it. One clear line for
 * the first problem: a missing folder, a file or namespace memrl has no template for,
 * a placeholder memrl's code does not fill, an unreadable pack.json.
 */
export function loadPack(dir: string, registry: Registry, namespaces: readonly PromptNamespace[] = promptNamespaces(registry)): PackInfo {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new UserError(`--prompts ${dir}: no such folder; give a prompt pack (\`memrl prompts export --out <dir>\` writes memrl's own as a start)`, 'bad_prompts');
  }
  let meta: z.infer<typeof PackFileSchema> = {};
  const metaPath = join(dir, PACK_FILE);
  if (existsSync(metaPath)) {
    try {
      meta = PackFileSchema.parse(JSON.parse(readFileSync(metaPath, 'utf8')));
    } catch (err) {
      throw new UserError(`${metaPath}: not a valid pack file (${errorMessage(err).split('\n')[0]}); it holds {"name": ..., "source": ...}`, 'bad_prompts');
    }
  }
  const spaces = new Map(namespaces.map((s) => [s.name, s]));
  const overrides: string[] = [];
  const hash = createHash('sha256');
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (entry === PACK_FILE || entry.startsWith('.')) continue;
    if (!statSync(path).isDirectory()) {
      throw new UserError(`${path}: a prompt pack holds templates in namespace folders (${[...spaces.keys()].join(', ')}); move it into one`, 'bad_prompts');
    }
    const space = spaces.get(entry);
    if (!space) {
      const hint = closest(entry, [...spaces.keys()]);
      throw new UserError(`${path}: no prompt namespace '${entry}'${hint ? ` (did you mean '${hint}'?)` : ''}; namespaces: ${[...spaces.keys()].join(', ')}`, 'bad_prompts');
    }
    const own = templateFiles(space.dir);
    for (const file of templateFiles(path)) {
      const where = join(path, file);
      if (!own.includes(file)) {
        const hint = closest(file, own);
        throw new UserError(`${where}: memrl has no template ${entry}/${file}${hint ? ` (did you mean ${hint}?)` : ''}; ${entry}: ${own.join(', ')}`, 'bad_prompts');
      }
      const text = readFileSync(where, 'utf8');
      const allowed = placeholders(readFileSync(join(space.dir, file), 'utf8'));
      const extra = placeholders(text).filter((p) => !allowed.includes(p));
      if (extra.length > 0) {
        throw new UserError(
          `${where}: placeholder {{${extra[0]}}} is not filled by memrl for ${entry}/${file}; available: ${allowed.map((p) => `{{${p}}}`).join(', ') || 'none'}`,
          'bad_prompts',
        );
      }
      overrides.push(`${entry}/${file}`);
      hash.update(`${entry}/${file}\0${text}\0`);
    }
  }
  return { name: meta.name ?? basename(dir), dir, hash: hash.digest('hex'), source: meta.source ?? null, overrides };
}

/**
 * Readies a folder to write a pack into: a new or empty folder, or an existing pack
 * whose namespace folders are replaced; never a folder holding other files.
 */
export function prepareOutput(out: string, namespaces: readonly string[]): void {
  if (existsSync(out)) {
    if (!statSync(out).isDirectory()) throw new UserError(`--out ${out}: a file is in the way; give a folder`, 'bad_input');
    if (readdirSync(out).length > 0 && !existsSync(join(out, PACK_FILE))) {
      throw new UserError(`--out ${out}: the folder exists and is not a prompt pack (no ${PACK_FILE}); give a new folder`, 'bad_input');
    }
    for (const ns of namespaces) rmSync(join(out, ns), { recursive: true, force: true });
  }
  mkdirSync(out, { recursive: true });
}

/** Writes memrl's own templates as a pack: a starting point for editing. */
export function exportPack(out: string, registry: Registry): PackInfo {
  prepareOutput(out, promptNamespaces(registry).map((s) => s.name));
  for (const space of promptNamespaces(registry)) {
    mkdirSync(join(out, space.name), { recursive: true });
    for (const file of templateFiles(space.dir)) cpSync(join(space.dir, file), join(out, space.name, file));
  }
  writeFileSync(join(out, PACK_FILE), `${JSON.stringify({ name: 'memrl', source: 'memrl\'s own templates (memrl prompts export)' }, null, 2)}\n`);
  return loadPack(out, registry);
}

/** Every template slot (namespace/file) with where it is read from under a pack (or memrl's own). */
export function listSlots(registry: Registry, pack?: PackInfo): { slot: string; path: string; fromPack: boolean }[] {
  const rows: { slot: string; path: string; fromPack: boolean }[] = [];
  for (const space of promptNamespaces(registry)) {
    for (const file of templateFiles(space.dir)) {
      const slot = `${space.name}/${file}`;
      const fromPack = pack?.overrides.includes(slot) ?? false;
      rows.push({ slot, path: fromPack && pack ? join(pack.dir, slot) : relative(process.cwd(), join(space.dir, file)) || join(space.dir, file), fromPack });
    }
  }
  return rows;
}
