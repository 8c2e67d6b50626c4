/**
 * The built-in benchmarks, in the order help and `memrl config` list them. Adding a
 * benchmark: a folder under src/bench/ whose index.ts exports its BenchmarkModule,
 * and one line here. Plug-ins (--plugin) join the same list at run time.
 */
import type { BenchmarkModule } from '../core/benchmark.js';
import type { AlfworldSettings } from './alfworld/config.js';
import { alfworld } from './alfworld/index.js';
import type { BcbSettings } from './bcb/config.js';
import { bcb } from './bcb/index.js';
import type { HleSettings } from './hle/config.js';
import { hle } from './hle/index.js';
import type { LlbSettings } from './llb/config.js';
import { llb } from './llb/index.js';

/** The first is the default of commands that need one (`memrl config`, `memrl doctor`, `memrl cleanup`). */
export const BUILTIN_BENCHMARKS: readonly BenchmarkModule[] = [bcb, hle, llb, alfworld];

/** The column order of results tables and reports: the paper's (a plug-in's columns follow, by name). */
export const TABLE_ORDER: readonly string[] = [hle, bcb, alfworld, llb].map((b) => b.name);

/** The resolved settings of each built-in benchmark (a plug-in's are `unknown` to the config loader). */
export interface BuiltinBenchSettings {
  bcb: BcbSettings;
  hle: HleSettings;
  llb: LlbSettings;
  alfworld: AlfworldSettings;
}
