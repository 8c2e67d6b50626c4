/**
 * The flags of `memrl run <benchmark>`: the common run flags, the evaluator flags for
 * benchmarks with a container backend, and the benchmark's own, in that order. One
 * list serves the commander options, the flag values and the config overlay.
 */
import { commonRunFlags, EVALUATOR_FLAGS, fillDefaults, longName, type FlagDef } from './flags.js';
import { schemaFor, type SchemaParts } from './schema.js';
import type { BenchmarkConfigPart } from './types.js';

/**
 * What a benchmark's help fills its `{a.b}` placeholders from: the schema's defaults under
 * its own, as a run without a file or flags resolves them (a plug-in that sets few
 * defaults still shows the numbers it will run with).
 */
export function helpDefaults(registry: SchemaParts, part: BenchmarkConfigPart): unknown {
  const parsed = schemaFor(registry).safeParse(part.defaults ?? {});
  return parsed.success ? parsed.data : (part.defaults ?? {});
}

export function runFlagsFor(part: BenchmarkConfigPart, methods: readonly string[], defaults: unknown = part.defaults ?? {}): FlagDef[] {
  const reworded = (def: FlagDef): FlagDef => {
    const help = part.flagHelp?.[longName(def)] ?? def.description;
    return { ...def, description: fillDefaults(help, defaults) };
  };
  const own = part.flags ?? [];
  const ownNames = new Set(own.map(longName));
  // A benchmark's own flag replaces a common one of the same name.
  const shared = [...commonRunFlags(methods), ...(part.evaluatorFlags ? EVALUATOR_FLAGS : [])].filter((d) => !ownNames.has(longName(d)));
  return [...shared.map(reworded), ...own.map(reworded)];
}
