/**
 * The benchmark plug-in interface. A benchmark is a folder under src/bench/ with
 * dataset.ts, prompts/, episode.ts and index.ts; the runner only sees this interface.
 */
import type { ChatModel, InjectedMemoryHint, Phase, TokenUsage } from '../llm/types.js';
import type { Logger } from 'pino';

export type OutcomeStatus =
  | 'pass'
  | 'fail'
  | 'timeout'
  | 'syntax_error'
  | 'runtime_error'
  /** The harness or an evaluator failed (not the model): counted in errors_t. */
  | 'error'
  | 'skipped';

export interface TaskBase {
  /** Stable id, e.g. 'BigCodeBench/13'. */
  id: string;
  /** Intent key used for retrieval (the task text). */
  key: string;
}

/** A memory as shown to the agent. */
export interface InjectedMemory extends InjectedMemoryHint {
  content: string;
  q: number;
  sim: number;
}

export interface EpisodeContext {
  model: ChatModel;
  /** The scoring model, for benchmarks that have one (HLE's judge). */
  judge?: ChatModel;
  memories: InjectedMemory[];
  epoch: number;
  phase: Phase;
  signal: AbortSignal;
  log: Logger;
}

export interface Outcome {
  status: OutcomeStatus;
  success: boolean;
  steps: number;
  /** First line of the error, if any. */
  error?: string;
  /** The model's final answer (code, SQL answer, ...). */
  answer?: string;
  /** Text stored as the trajectory of this episode (for memory building). */
  trajectory: string;
  usage: TokenUsage;
  /** Benchmark-specific details kept in the outcome row. */
  extra?: Record<string, unknown>;
}

export interface LoadedTasks<T extends TaskBase> {
  train: T[];
  valid: T[];
  /** Files read, with sha256, for the run manifest. */
  sources: { path: string; sha256: string }[];
  /** Human description of the split, e.g. 'full_seed123.json (798/342)'. */
  splitLabel: string;
}

/** What the runner needs from a benchmark. One implementation per folder under src/bench/. */
export interface Benchmark<T extends TaskBase = TaskBase> {
  readonly name: string;
  /** TensorBoard / table label of the environment (e.g. 'bcb', 'household-standin'). */
  readonly envLabel: string;
  /** Name of the validation set in `Evaluation/Success_Rate/<set>` tags (default: the reference's per benchmark). */
  readonly validSetLabel?: string;
  load(): Promise<LoadedTasks<T>>;
  /** Run one episode: prompt the model (with memories), act, score. Never throws for model or task faults. */
  episode(task: T, ctx: EpisodeContext): Promise<Outcome>;
  /** The offline simulator's player for this benchmark's tasks. */
  simPlayer(tasks: T[]): import('../llm/sim/model.js').SimPlayer;
  /** Evaluator facts for the run manifest (versions, modes). */
  describeEvaluator(): Promise<Record<string, unknown>>;
  /** Releases evaluator resources (containers, bridges) at the end of a run, whatever its outcome. */
  close?(): Promise<void>;
}
