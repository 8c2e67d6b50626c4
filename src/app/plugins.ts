/**
 * Plug-ins from outside the tree: `--plugin <module>` (repeatable) and
 * `memrl.plugins: [...]` name JS or TS modules whose exports include benchmark or
 * memory-method modules (objects with `kind: 'benchmark'` or `kind: 'method'`, alone or
 * in arrays). They are registered exactly like the built-in ones.
 *
 * A module that is missing, throws while loading, or exports something that does not
 * satisfy its contract's schema (src/core/) fails in one line naming the module, the
 * entry and the field; what is registered is the entry behind its guard
 * (plugin-guard/), which checks what the plug-in returns as it runs.
 * TypeScript modules are compiled by tsx's loader, registered only when one is named;
 * `import ... from 'memrl'` in any plug-in is the memrl that runs it (plugin-hooks.ts).
 */
import { existsSync, statSync } from 'node:fs';
import { register } from 'node:module';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchmarkModule } from '../core/benchmark.js';
import type { MethodModule } from '../core/method.js';
import { UserError, errorMessage } from '../util/errors.js';
import { checkExport, guardEntry } from './plugin-guard/index.js';
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

/**
 * `base` with the modules a job names (a run's run.json, a sweep cell's job): those
 * `base` holds already (a worker started with --plugin) are not loaded twice. A process
 * that opens many runs (a worker) loads each set once.
 */
export async function withRecordedPlugins(base: Registry, paths: readonly string[], cwd = process.cwd()): Promise<Registry> {
  // What the process loaded itself (--plugin) is relative to its own folder; the job's paths to the run's.
  const loadedHere = new Set([...base.origins.values()].map((p) => resolve(p)));
  const missing = [...new Set(paths.map((p) => resolve(cwd, p)))].filter((p) => !loadedHere.has(p));
  if (missing.length === 0) return base;
  const byBase = (recorded.get(base) ?? recorded.set(base, new Map()).get(base))!;
  const key = missing.join('\0');
  let loading = byBase.get(key);
  if (!loading) {
    loading = loadPlugins(base, missing, cwd);
    byBase.set(key, loading);
    // A module that failed to load may be fixed by the next job: not kept.
    loading.catch(() => byBase.delete(key));
  }
  return loading;
}

const recorded = new WeakMap<Registry, Map<string, Promise<Registry>>>();

async function importPlugin(spec: string, path: string): Promise<Record<string, unknown>> {
  if (!existsSync(path)) throw new UserError(`plugin ${spec}: no such file (${path}); give the path of a .js or .ts module`, 'plugin_missing');
  if (statSync(path).isDirectory()) throw new UserError(`plugin ${spec}: is a directory; give the module file (e.g. ${spec}/index.ts)`, 'plugin_missing');
  try {
    await pluginLoader(/\.[mc]?tsx?$/.test(path));
    return (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (err) {
    const first = errorMessage(err).split('\n')[0];
    throw new UserError(`plugin ${spec}: failed to load: ${first}`, 'plugin_load_failed');
  }
}

let loader: { ts: boolean; done: Promise<void> } | undefined;

/**
 * Module hooks for plug-ins, registered once for the whole process (not scoped to one
 * import): plugin-hooks.ts links a plug-in's `import ... from 'memrl'` to the memrl
 * that is running and loads TypeScript outside node_modules as ES modules; tsx's
 * loader compiles TypeScript. Ours must run before tsx's (hooks registered later run
 * first), so a TypeScript plug-in after a JavaScript one registers ours again.
 *
 * What a plug-in's `import ... from 'memrl'` links is loaded first, by that same name:
 * once hooks are registered, every specifier a new module links is resolved on the
 * hooks thread, one synchronous round trip each, and that graph (the OpenAI SDK alone
 * is some 300 modules) took 100-150 ms that way; a worker paid it on a run's first episode.
 */
async function pluginLoader(typescript: boolean): Promise<void> {
  if (loader && (loader.ts || !typescript)) return loader.done;
  const before = loader?.done ?? import('memrl').then(() => undefined);
  const done = before.then(async () => {
    if (typescript) (await import('tsx/esm/api')).register();
    const own = import.meta.resolve('memrl');
    const targets = { memrl: own, 'memrl/app': import.meta.resolve('memrl/app') };
    register(new URL('./app/plugin-hooks.js', own), { data: { targets } });
  });
  loader = { ts: typescript || (loader?.ts ?? false), done };
  return done;
}

/** Every benchmark or method module among the exports (default included, arrays flattened), checked and guarded. */
function collectEntries(spec: string, exports: Record<string, unknown>): Entry[] {
  const found: Entry[] = [];
  const seen = new Set<unknown>();
  const visit = (value: unknown, where: string): void => {
    if (Array.isArray(value)) return value.forEach((v, i) => visit(v, `${where}[${i}]`));
    if (value === null || typeof value !== 'object') return;
    const kind = (value as { kind?: unknown }).kind;
    if (kind !== 'benchmark' && kind !== 'method') return;
    const problem = checkExport(value as Record<string, unknown>, spec, where);
    if (problem) throw problem;
    if (seen.has(value)) return;
    seen.add(value);
    found.push(guardEntry(value as Entry, spec));
  };
  for (const [key, value] of Object.entries(exports)) visit(value, key);
  // A CommonJS module or a default export object holding the entries.
  const def = exports.default;
  if (def && typeof def === 'object' && !Array.isArray(def) && !('kind' in def)) for (const [key, value] of Object.entries(def)) visit(value, `default.${key}`);
  if (found.length === 0) {
    throw new UserError(`plugin ${spec}: exports no benchmark or memory method (an object with kind: 'benchmark' or kind: 'method'; see docs/plugins.md)`, 'plugin_invalid');
  }
  return found;
}
