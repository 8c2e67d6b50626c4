/**
 * The registry a command works with: the built-in benchmarks and memory methods, plus
 * those loaded from plug-in modules (--plugin, memrl.plugins). Everything that lists
 * benchmarks or methods (the CLI, config, key notes, doctor, check-gold, report names)
 * reads it from here.
 */
import { BUILTIN_BENCHMARKS } from '../bench/registry.js';
import type { BenchmarkModule } from '../core/benchmark.js';
import type { MethodModule } from '../core/method.js';
import { closest } from '../config/issues.js';
import type { ConfigRegistry } from '../config/types.js';
import { isReservedSection } from '../config/schema.js';
import { BUILTIN_METHODS } from '../methods/registry.js';
import { UserError } from '../util/errors.js';

export interface Registry extends ConfigRegistry {
  benchmarks: readonly BenchmarkModule[];
  methods: readonly MethodModule[];
  /** Where each plug-in module's entries came from (name → module path), for messages. */
  origins: ReadonlyMap<string, string>;
}

let builtin: Registry | undefined;

export function builtinRegistry(): Registry {
  builtin ??= { benchmarks: BUILTIN_BENCHMARKS, methods: BUILTIN_METHODS, origins: new Map() };
  return builtin;
}

/** The registry with these plug-in entries added; a clash of names is refused in one line. */
export function withPlugins(base: Registry, added: readonly { origin: string; benchmarks: BenchmarkModule[]; methods: MethodModule[] }[]): Registry {
  const benchmarks = [...base.benchmarks];
  const methods = [...base.methods];
  const origins = new Map(base.origins);
  const taken = (name: string): string | undefined => {
    if (origins.has(name)) return `plug-in ${origins.get(name)}`;
    if (benchmarks.some((b) => b.name === name)) return 'a built-in benchmark';
    if (methods.some((m) => m.name === name)) return 'a built-in method';
    return undefined;
  };
  for (const p of added) {
    for (const entry of [...p.benchmarks, ...p.methods]) {
      const owner = taken(entry.name);
      if (owner) throw new UserError(`plugin ${p.origin}: the name \`${entry.name}\` is already taken by ${owner}; rename the ${entry.kind}`, 'plugin_name_taken');
      if (isReservedSection(entry.name)) throw new UserError(`plugin ${p.origin}: \`${entry.name}\` is one of memrl's own config keys (memrl.${entry.name}); choose another name`, 'plugin_name_taken');
      origins.set(entry.name, p.origin);
      if (entry.kind === 'benchmark') benchmarks.push(entry);
      else methods.push(entry);
    }
  }
  return { benchmarks, methods, origins };
}

/** The benchmark a command uses when none is named (`memrl config`, `memrl doctor`, `memrl cleanup`): the registry's first. */
export function defaultBenchmark(registry: Registry = builtinRegistry()): string {
  return registry.benchmarks[0]!.name;
}

export function findBenchmark(registry: Registry, name: string): BenchmarkModule {
  const b = registry.benchmarks.find((x) => x.name === name);
  if (b) return b;
  throw new UserError(unknown('benchmark', name, registry.benchmarks.map((x) => x.name)), 'unknown_benchmark');
}

export function findMethod(registry: Registry, name: string): MethodModule {
  const m = registry.methods.find((x) => x.name === name);
  if (m) return m;
  throw new UserError(unknown('method', name, registry.methods.map((x) => x.name)), 'unknown_method');
}

function unknown(what: string, name: string, names: string[]): string {
  const near = closest(name, names);
  return `unknown ${what} \`${name}\`${near ? ` (did you mean \`${near}\`?)` : ''}; known: ${names.join(', ')}; a plug-in's are added with --plugin <module>`;
}
