/**
 * The flags of `memrl run <benchmark>`: the common run flags, the evaluator flags for
 * benchmarks with a container backend, and the benchmark's own, in that order. One
 * list serves the commander options, the flag values and the config overlay.
 */
import { commonRunFlags, EVALUATOR_FLAGS, fillDefaults, longName, type FlagDef } from './flags.js';
import type { BenchmarkConfigPart } from './types.js';

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
