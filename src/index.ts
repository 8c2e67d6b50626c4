/**
 * memrl's public surface for plug-ins (`import ... from 'memrl'`): the contracts a
 * benchmark or memory method implements, and the few helpers they commonly need.
 * Programs that start runs themselves use 'memrl/app'.
 */
export * from './core/index.js';
export { successProbability } from './llm/sim/shaping.js';
export type { SimPlayer } from './llm/sim/model.js';
export { ZERO_USAGE, type ChatModel, type ChatMessage, type ChatRequest, type ChatResponse, type TokenUsage } from './llm/types.js';
export type { MemoryParams, MemoryRecord, BuildStrategy } from './memory/types.js';
export { computeStats, type MemoryStats } from './memory/stats.js';
export { MemoryWriter } from './memory/writer.js';
export { Rng } from './util/rng.js';
/** A dataset file (JSON Lines, JSON, Parquet) as records, with its sha256 for LoadedTasks.sources. */
export { readRecords, RECORD_FORMATS, type DataRecord, type RecordsFile } from './util/records.js';
/** A benchmark's data files (BenchmarkModule.data): source URL, release, checksum; and where a run finds a copy. */
export type { DataFile, DatasetDeclaration, ParquetRows, Sample } from './data/manifest.js';
export { locateOrSample } from './data/locations.js';
export { positiveInt, nonNegativeInt, decimal, integer, ratio, FlagValueError } from './config/flags.js';
/** A benchmark's reference TensorBoard tags (its tagFamily); the success-rate set two reference runners share. */
export { successRateTags, type ReferenceTags, type TagFamily, type TagMetric } from './metrics/tensorboard/tags.js';
/** The zod memrl validates configs with: build a config section with it, so schemas compose. */
export { z } from 'zod';
/** Where a plug-in benchmark runs untrusted code: the same sandboxes and containers the built-ins use. */
export { openEnv, checkEnv, envBackends, ENV_KINDS, type EnvKinds, type EnvKind } from './env/registry.js';
export type { EnvBackendName, EnvCheck, OpenedEnv } from './env/contract.js';
export type { PythonTestRunner, PythonTestsSettings } from './env/python-tests/contract.js';
export type { SqlBackend } from './env/sql/backend.js';
export type { SqlSettings } from './env/sql/contract.js';
export type { ShellEnvironments, ShellEnvironment, ShellSettings } from './env/shell/contract.js';
export type { BridgeSettings, BridgeTransport } from './env/bridge/contract.js';
