/**
 * `memrl prompts import <MemRL checkout> --out <dir>`: a prompt pack holding the
 * reference's own prompt text, read from the user's checkout. memrl ships only where
 * each string is bound (the `referencePrompts` tables of the writer, methods and
 * benchmarks), never the text; the strings are read with Python's ast module
 * (extract_strings.py), so nothing of the checkout runs.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReferencePrompt } from '../../core/index.js';
import { UserError } from '../../util/errors.js';
import { asset } from '../../util/paths.js';
import type { Registry } from '../registry.js';
import { PACK_FILE, loadPack, prepareOutput, promptNamespaces, type PackInfo, type PromptNamespace } from './pack.js';

/** The MemRL commit the locations in the `referencePrompts` tables were written against. */
export const REFERENCE_PROMPTS_COMMIT = '7c3beba1244d707b74207b494be254f391819e09';

type Segment = { text: string } | { field: string };
type Extracted = Record<string, { segments: Segment[] } | { error: string }>;

export interface ImportResult {
  pack: PackInfo;
  /** The checkout's commit, when it is a git work tree. */
  commit: string | null;
  /** Slots filled from the reference, as namespace/file. */
  imported: string[];
}

/** Reads every located string out of `checkout` (one python3 process for all). */
function extractStrings(checkout: string, items: { locator: string; format: boolean }[]): Extracted {
  const run = spawnSync('python3', [asset('src/app/prompts/extract_strings.py')], {
    input: JSON.stringify({ root: checkout, items }),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.error) throw new UserError(`memrl prompts import needs python3 to read the reference's sources (${run.error.message}); install python3`, 'missing_tool');
  if (run.status !== 0) throw new UserError(`reading the reference's sources failed: ${(run.stderr || '').trim().split('\n').at(-1) ?? 'python3 exited ' + run.status}`);
  return JSON.parse(run.stdout) as Extracted;
}

function checkoutCommit(dir: string): string | null {
  try {
    return execFileSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || null;
  } catch {
    return null;
  }
}

/** A `from` entry that is one of memrl's placeholders, not a location in the reference. */
const PLACEHOLDER_PIECE = /^\{\{[A-Za-z_][A-Za-z0-9_.-]*\}\}$/;

/** One template's text from its extracted strings, or the problems that stop it. */
function buildTemplate(spec: ReferencePrompt, extracted: Extracted): { text: string } | { problems: string[] } {
  const problems: string[] = [];
  const parts: string[] = [];
  for (const locator of spec.from) {
    if (PLACEHOLDER_PIECE.test(locator)) {
      parts.push(locator);
      continue;
    }
    const got = extracted[locator];
    if (!got || 'error' in got) {
      problems.push(`${locator}: ${got && 'error' in got ? got.error : 'not read'}`);
      continue;
    }
    let text = '';
    for (const seg of got.segments) {
      if ('text' in seg) {
        // memrl's templates use {{name}}; literal double braces in the reference's text would be read as placeholders.
        if (/\{\{\s*[A-Za-z_]/.test(seg.text)) problems.push(`${locator}: its text holds a literal {{...}}, which memrl's templates would read as a placeholder`);
        text += seg.text;
      } else {
        const ours = spec.fields?.[seg.field];
        if (!ours) problems.push(`${locator}: field {${seg.field}} has no memrl variable in the mapping`);
        else text += `{{${ours}}}`;
      }
    }
    parts.push(text);
  }
  return problems.length ? { problems } : { text: parts.join(spec.join ?? '') };
}

/** `namespaces` defaults to the registry's (a test passes its own, with a synthetic checkout). */
export function importReferencePrompts(checkout: string, out: string, registry: Registry, namespaces: readonly PromptNamespace[] = promptNamespaces(registry)): ImportResult {
  if (!existsSync(checkout) || !statSync(checkout).isDirectory()) {
    throw new UserError(`memrl prompts import ${checkout}: no such folder; give the root of a MemRL checkout (git clone https://github.com/MemTensor/MemRL)`, 'bad_input');
  }
  if (!existsSync(join(checkout, 'memrl'))) {
    throw new UserError(`memrl prompts import ${checkout}: not a MemRL checkout (no memrl/ package inside); give the repository's root folder`, 'bad_input');
  }
  const spaces = namespaces.filter((s) => s.reference.length > 0);
  const items = new Map<string, boolean>();
  for (const space of spaces) {
    for (const spec of space.reference) for (const loc of spec.from) if (!PLACEHOLDER_PIECE.test(loc)) items.set(loc, (items.get(loc) ?? false) || Boolean(spec.format));
  }
  const extracted = extractStrings(
    checkout,
    [...items].map(([locator, format]) => ({ locator, format })),
  );

  const files: { path: string; text: string; slot: string }[] = [];
  const problems: string[] = [];
  for (const space of spaces) {
    for (const spec of space.reference) {
      const built = buildTemplate(spec, extracted);
      if ('problems' in built) problems.push(...built.problems.map((p) => `${space.name}/${spec.slot} ← ${p}`));
      else files.push({ path: join(out, space.name, spec.slot), text: built.text, slot: `${space.name}/${spec.slot}` });
    }
  }
  if (problems.length) {
    // One line per string it could not read: the command prints them all, then stops.
    throw new UserError(`cannot import ${problems.length} prompt${problems.length === 1 ? '' : 's'} from ${checkout} (mapping written against MemRL ${REFERENCE_PROMPTS_COMMIT.slice(0, 7)}):\n${problems.map((p) => `  ${p}`).join('\n')}`, 'bad_input');
  }

  const commit = checkoutCommit(checkout);
  prepareOutput(out, spaces.map((s) => s.name));
  for (const f of files) {
    mkdirSync(join(f.path, '..'), { recursive: true });
    writeFileSync(f.path, f.text);
  }
  writeFileSync(
    join(out, PACK_FILE),
    `${JSON.stringify({ name: 'memrl-reference', source: `MemTensor/MemRL ${commit ?? '(not a git checkout)'}, imported by memrl prompts import` }, null, 2)}\n`,
  );
  return { pack: loadPack(out, registry, namespaces), commit, imported: files.map((f) => f.slot) };
}
