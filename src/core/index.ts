/** The contracts plug-ins and the runner agree on: benchmarks, memory methods, reporters, outcomes, faults, run files. */
export * from './benchmark.js';
export * from './method.js';
export * from './reporter.js';
export * from './outcome.js';
export * from './errors.js';
export * from './run-files/index.js';
export type { FlagDef, FlagValues } from '../config/flags.js';
export type { BenchmarkConfigPart, MethodConfigPart, ResolvedConfig, SettingsContext, ConfigLayer, LlmSettings, EvaluatorSettings, DockerSettings, RunSettings } from '../config/types.js';
export type { ImageSlot, MemrlConfig } from '../config/schema.js';
export * from './fidelity.js';
export * from './dry-run.js';
