/**
 * The built-in benchmarks, in the order help and `memrl config` list them. Adding a
 * benchmark: a folder under src/bench/ whose index.ts exports its BenchmarkModule,
 * and one line here. Plug-ins (--plugin) join the same list at run time.
 */
import type { BenchmarkModule } from '../core/benchmark.js';
import { alfworld } from './alfworld/index.js';
import { bcb } from './bcb/index.js';
import { hle } from './hle/index.js';
import { llb } from './llb/index.js';

export const BUILTIN_BENCHMARKS: readonly BenchmarkModule[] = [bcb, hle, llb, alfworld];
