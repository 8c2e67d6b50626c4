/**
 * Plug-ins from outside the tree: `--plugin <module>` (repeatable) and
 * `memrl.plugins: [...]` name JS or TS modules whose exports include benchmark or
 * memory-method modules (objects with `kind: 'benchmark'` or `kind: 'method'`, alone or
 * in arrays). They are registered exactly like the built-in ones.
 *
 * A module that is missing, throws while loading, or exports something that does not
 * satisfy the contract fails in one line naming the module and what is wrong.
 * TypeScript modules are compiled by tsx's loader, registered only when one is named.
 */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchmarkModule } from '../core/benchmark.js';
import type { MethodModule } from '../core/method.js';
import { UserError, errorMessage } from '../util/errors.js';
import { datasetProblem } from '../data/manifest.js';
import { withPlugins, type Registry } from './registry.js';

type Entry = BenchmarkModule | MethodModule;

/** `--plugin a --plugin=b` (and nothing after `--`): the module paths, in order. */
export function pluginArgs(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a === '--plugin' && i + 1 < argv.length) out.push(argv[++i]!);
    else if (a.startsWith('--plugin=')) out.push(a.slice('--plugin='.length));
  }
  return out;
}

/** Load each module (once, in order) and add its entries to `base`. */
export async function loadPlugins(base: Registry, specs: readonly string[], cwd = process.cwd()): Promise<Registry> {
  const seen = new Set<string>();
  const added: { origin: string; benchmarks: BenchmarkModule[]; methods: MethodModule[] }[] = [];
  for (const spec of specs) {
    const path = isAbsolute(spec) ? spec : resolve(cwd, spec);
    if (seen.has(path)) continue;
    seen.add(path);
    const exports = await importPlugin(spec, path);
    const entries = collectEntries(spec, exports);
    added.push({
      origin: spec,
      benchmarks: entries.filter((e): e is BenchmarkModule => e.kind === 'benchmark'),
      methods: entries.filter((e): e is MethodModule => e.kind === 'method'),
    });
  }
  return added.length ? withPlugins(base, added) : base;
}

async function importPlugin(spec: string, path: string): Promise<Record<string, unknown>> {
  if (!existsSync(path)) throw new UserError(`plugin ${spec}: no such file (${path}); give the path of a .js or .ts module`, 'plugin_missing');
  if (statSync(path).isDirectory()) throw new UserError(`plugin ${spec}: is a directory; give the module file (e.g. ${spec}/index.ts)`, 'plugin_missing');
  try {
    if (/\.[mc]?ts$/.test(path)) await typescriptLoader();
    return (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (err) {
    const first = errorMessage(err).split('\n')[0];
    throw new UserError(`plugin ${spec}: failed to load: ${first}`, 'plugin_load_failed');
  }
}

let tsLoader: Promise<unknown> | undefined;

/**
 * tsx's loader, registered once for the whole process (not scoped to one import), so
 * that a TS plug-in's `import ... from 'memrl'` gets the very modules the CLI runs on
 * (one EpisodeFault class, one zod) instead of a second copy.
 *
 * What a plug-in's `import ... from 'memrl'` links is loaded first, by that same name:
 * once tsx is registered, every specifier a new module links is resolved on tsx's hooks
 * thread, one synchronous round trip each, and that graph (the OpenAI SDK alone is some
 * 300 modules) took 100-150 ms that way; a worker paid it on a run's first episode.
 */
function typescriptLoader(): Promise<unknown> {
  tsLoader ??= import('memrl').then(() => import('tsx/esm/api')).then(({ register }) => register());
  return tsLoader;
}

/** Every benchmark or method module among the exports (default included, arrays flattened). */
function collectEntries(spec: string, exports: Record<string, unknown>): Entry[] {
  const found: Entry[] = [];
  const visit = (value: unknown, where: string): void => {
    if (Array.isArray(value)) return value.forEach((v, i) => visit(v, `${where}[${i}]`));
    if (value === null || typeof value !== 'object') return;
    const kind = (value as { kind?: unknown }).kind;
    if (kind !== 'benchmark' && kind !== 'method') return;
    const problem = kind === 'benchmark' ? benchmarkProblem(value as Record<string, unknown>) : methodProblem(value as Record<string, unknown>);
    const name = typeof (value as { name?: unknown }).name === 'string' ? `"${(value as { name: string }).name}"` : `(export ${where})`;
    if (problem) throw new UserError(`plugin ${spec}: ${kind} ${name} ${problem}`, 'plugin_invalid');
    if (!found.includes(value as Entry)) found.push(value as Entry);
  };
  for (const [key, value] of Object.entries(exports)) visit(value, key);
  // A CommonJS module or a default export object holding the entries.
  const def = exports.default;
  if (def && typeof def === 'object' && !Array.isArray(def) && !('kind' in def)) for (const [key, value] of Object.entries(def)) visit(value, `default.${key}`);
  if (found.length === 0) {
    throw new UserError(`plugin ${spec}: exports no benchmark or memory method (an object with kind: 'benchmark' or kind: 'method'; see examples/plugins/)`, 'plugin_invalid');
  }
  return found;
}

type Check = [field: string, ok: (v: unknown) => boolean, what: string, required: boolean];

const isFn = (v: unknown) => typeof v === 'function';
const isStr = (v: unknown) => typeof v === 'string' && v.length > 0;
const isObj = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isSchema = (v: unknown) => isObj(v) && typeof (v as { safeParse?: unknown }).safeParse === 'function';
const NAME = /^[a-z][a-z0-9_-]*$/;
const isName = (v: unknown) => typeof v === 'string' && NAME.test(v);
const isFlags = (v: unknown) =>
  Array.isArray(v) && v.every((f) => isObj(f) && typeof f.flags === 'string' && f.flags.startsWith('--') && typeof f.description === 'string' && (f.path === null || Array.isArray(f.path)));

const COMMON: Check[] = [
  ['name', isName, 'a lowercase name (letters, digits, - or _), used on the command line', true],
  ['displayName', isStr, 'a display name for tables and reports (a string)', true],
  ['description', isStr, 'a one-line description (a string)', true],
  ['configSection', isSchema, 'a zod object schema for its memrl.<name> section', false],
];

const BENCHMARK: Check[] = [
  ...COMMON,
  ['resolve', isFn, 'a function (tree, ctx) => its settings', true],
  ['create', isFn, 'a function (settings, run) => the runnable benchmark', true],
  ['defaults', isObj, 'a defaults layer ({ llm: {...}, experiment: {...} })', false],
  ['flags', isFlags, 'a list of flag definitions ({ flags: "--x <v>", description, path })', false],
  ['evaluatorFlags', (v) => typeof v === 'boolean', 'true or false', false],
  ['keys', isObj, 'an object { reads?: [...], ignores?: [...] }', false],
  ['images', Array.isArray, 'a list of image slots', false],
  ['tagFamily', (v) => ['hle', 'alfworld', 'llb', 'bcb', 'other'].includes(v as string), "one of 'hle', 'alfworld', 'llb', 'bcb', 'other'", false],
  ['manifest', isFn, 'a function (settings) => facts for run.json', false],
  ['memoryParams', isFn, 'a function (params, tree) => params', false],
  ['runValidation', isFn, 'a function (tree) => boolean', false],
  ['judge', isFn, 'a function (settings) => judge model settings', false],
  ['doctor', isObj, 'an object { local?, extraImages? }', false],
  ['goldCheck', isObj, 'an object { description, flags, run }', false],
  ['data', (v) => datasetProblem(v) === undefined, 'a dataset { title, release, licence, homepage, files: [{ path, url, sha256, size }] } (docs/data.md)', false],
];

const METHOD: Check[] = [
  ...COMMON,
  ['create', isFn, 'a function (ctx) => the method instance (retrieve, commit, snapshot, records, stats, size)', true],
  ['engine', (v) => ['none', 'rag', 'memp', 'memrl'].includes(v as string), "one of 'none', 'rag', 'memp', 'memrl'", false],
  ['buildStrategy', (v) => ['proceduralization', 'trajectory', 'script'].includes(v as string), "one of 'proceduralization', 'trajectory', 'script'", false],
];

function problemOf(value: Record<string, unknown>, checks: Check[]): string | undefined {
  for (const [field, ok, what, required] of checks) {
    const v = value[field];
    if (v === undefined) {
      if (required) return `lacks \`${field}\` (${what})`;
      continue;
    }
    if (!ok(v)) return `has a bad \`${field}\`: expected ${what}`;
  }
  return undefined;
}

function benchmarkProblem(value: Record<string, unknown>): string | undefined {
  return problemOf(value, BENCHMARK);
}

function methodProblem(value: Record<string, unknown>): string | undefined {
  return problemOf(value, METHOD);
}
