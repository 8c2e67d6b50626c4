/**
 * What a run is given, grouped by concern: the memory method and its settings, the
 * schedule, validation, the models, the run folder, when to stop early, where episodes
 * play, and where outputs go. app/start-run.ts builds one from the resolved config; a
 * program or a test may build one directly.
 */
import type { Logger } from 'pino';
import type { Benchmark, TaskBase } from '../core/benchmark.js';
import type { MethodModule } from '../core/method.js';
import type { ReporterMap } from '../core/reporter.js';
import type { RunComposition, RunEndSummary } from '../core/run-files/index.js';
import type { Embedder } from '../embed/types.js';
import type { UsageLedger } from '../llm/ledger.js';
import type { SimPlayer } from '../llm/sim/model.js';
import type { ChatModel } from '../llm/types.js';
import type { BuildStrategy, MemoryParams } from '../memory/types.js';
import type { TagFamily } from '../metrics/tensorboard/tags.js';
import type { Fidelity } from '../util/fidelity.js';
import type { Slots } from '../util/slots.js';
import type { EpisodeDispatcher } from './remote-episodes.js';

export interface RunPlan<T extends TaskBase = TaskBase> {
  benchmark: Benchmark<T>;
  method: MethodPlan;
  schedule: SchedulePlan;
  validation: ValidationPlan;
  models: ModelPlan;
  folder: FolderPlan;
  /** Default: only the end of the last epoch stops the run. */
  stops?: StopPlan;
  /** Default: in this process, no shared slots. */
  episodes?: EpisodePlan;
  /** Default: the run folder's files (fileReporters), the benchmark's own tag family. */
  outputs?: OutputPlan;
  log: Logger;
  /** Injectable clock (tests); defaults to Date.now. */
  now?: () => number;
}

/** The memory method and what it is created with. */
export interface MethodPlan {
  /** The module, or a built-in's name. */
  module: MethodModule | string;
  /** Its memrl.<name> section, if it has one. */
  settings?: unknown;
  memoryParams: MemoryParams;
  buildStrategy: BuildStrategy;
  /** The prompt pack's `memory` folder (the writer's and methods' templates), if a pack is in use. */
  promptDir?: string;
  /** Fidelity switch settings (default: all at the reference's behaviour). */
  fidelity?: Fidelity;
  /** Flip the reward the method learns from with this probability (--reward-noise); default 0. */
  rewardNoise?: number;
}

export interface SchedulePlan {
  epochs: number;
  batchSize: number;
  /** Episodes at once in this process (workers set their own pace: see EpisodePlan). */
  concurrency: number;
  seed: number;
}

export interface ValidationPlan {
  run: boolean;
  /** With run: also validate before epoch 1 (the memory-free start). */
  beforeTraining: boolean;
  /** With run: validate after epoch e only when e % interval == 0 (the reference's valid_interval; default 1; 0 = never after an epoch, only before training). */
  interval?: number;
}

export interface ModelPlan {
  /** Create the chat model once tasks are known (the sim model needs the benchmark's player). */
  agent: (simPlayer: SimPlayer) => ChatModel;
  /** A separate scoring model (HLE's judge), metered like the agent. */
  judge?: (simPlayer: SimPlayer) => ChatModel;
  embedder: Embedder;
  /** Token ledger; pass one to also count embedding calls made by the embedder. */
  ledger?: UsageLedger;
}

export interface FolderPlan {
  /** Where this run's files go: a new folder, or the folder being resumed. */
  dir: string;
  resume: boolean;
  /** Redacted resolved config and other facts for run.json. */
  manifest: RunComposition;
}

export interface StopPlan {
  /** Ctrl-C, a budget: the running episodes finish, nothing more starts, the run is resumable. */
  signal?: AbortSignal;
  /** Stop as failed when more than this share of an epoch's episodes end in `error` (default: never). */
  maxErrorRate?: number;
  /** Stop (resumably) once this many model calls in a row to an endpoint that answered before failed after their retries (default: never). */
  afterFailures?: number;
}

export interface EpisodePlan {
  /** Shared with other runs (a sweep): an episode runs only while it holds one of these slots. */
  slots?: Slots;
  /** Play episodes elsewhere (workers on a queue) instead of in this process; memory stays here. */
  dispatcher?: EpisodeDispatcher;
}

export interface OutputPlan {
  /** Every output; default: the run folder's files (fileReporters). */
  reporters?: ReporterMap;
  /** The reference TensorBoard tag set (the benchmark module's); default: from the benchmark's name. */
  tagFamily?: TagFamily;
}

export interface RunResult {
  runDir: string;
  epochsCompleted: number;
  interrupted: boolean;
  /** Why the run stopped as failed (too many error episodes), if it did. */
  failure?: string;
  summary: RunEndSummary;
}
