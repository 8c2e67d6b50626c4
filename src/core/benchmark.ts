/**
 * The benchmark contract. A benchmark is one folder under src/bench/ (or a plug-in
 * module) whose index exports one BenchmarkModule: everything memrl needs to know
 * about it, as data where it can be (config section, defaults, flags, TensorBoard
 * tags, display name, images) plus a few functions (settings, create, doctor, gold
 * check). The runner only ever sees the Benchmark that `create` returns.
 *
 * Keep a module's index cheap to import: `memrl --help` loads every registered one.
 * Heavy parts (datasets, evaluators, container clients) belong behind `create`'s
 * dynamic import.
 */
import type { Logger } from 'pino';
import type { FlagDef, FlagValues } from '../config/flags.js';
import type { BenchmarkConfigPart, DockerSettings, EvaluatorSettings, ResolvedConfig } from '../config/types.js';
import type { SimPlayer } from '../llm/sim/model.js';
import type { ChatModel, InjectedMemoryHint, Phase } from '../llm/types.js';
import type { DoctorCheck } from '../doctor/probes.js';
import type { EvaluatorFacts } from '../env/contract.js';
import type { TagFamily } from '../metrics/tensorboard/tags.js';
import type { ReferencePrompt } from '../util/fidelity.js';
import type { FidelityTarget } from './fidelity.js';
import type { Outcome } from './outcome.js';

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
  /**
   * Set by the reflection baseline: this is the task's own previous attempt, not a
   * retrieved memory. `content` is a generic note on it; a benchmark that knows the
   * reference's note for it builds that from the attempt's trajectory instead.
   */
  attempt?: { trajectory: string };
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

/** A data file the tasks came from, for run.json; `name`, `release` and `url` say where memrl downloaded it from, when it did. */
export interface DataSource {
  path: string;
  sha256: string;
  name?: string;
  release?: string;
  url?: string;
}

export interface LoadedTasks<T extends TaskBase> {
  train: T[];
  valid: T[];
  /** Files read, with sha256, for the run manifest. */
  sources: DataSource[];
  /** Human description of the split, e.g. 'full_seed123.json (798/342)'. */
  splitLabel: string;
}

/** A benchmark ready to run: what `BenchmarkModule.create` returns and the runner drives. */
export interface Benchmark<T extends TaskBase = TaskBase> {
  readonly name: string;
  /** TensorBoard / table label of the environment (e.g. 'bigcodebench', 'household-standin'). */
  readonly envLabel: string;
  /** Name of the validation set in `Evaluation/Success_Rate/<set>` tags (default: the reference's per benchmark). */
  readonly validSetLabel?: string;
  load(): Promise<LoadedTasks<T>>;
  /**
   * Run one episode: prompt the model (with memories), act, score. A wrong answer is an
   * Outcome; a failure that is not the model's answer is a thrown EpisodeFault.
   */
  episode(task: T, ctx: EpisodeContext): Promise<Outcome>;
  /** The offline simulator's player for this benchmark's tasks. */
  simPlayer(tasks: T[]): SimPlayer;
  /** Evaluator facts for the run manifest (versions, modes). */
  describeEvaluator(): Promise<EvaluatorFacts>;
  /** Releases evaluator resources (containers, bridges) at the end of a run, whatever its outcome. */
  close?(): Promise<void>;
}

export type { DoctorCheck };

/** An image a benchmark's docker runs may use besides its configured slots (e.g. ALFWorld's stand-in). */
export interface ExtraImage {
  part: string;
  image: string;
}

/** Where a command writes: the CLI passes the process streams, tests pass buffers. */
export interface CommandIo {
  out(text: string): void;
  err(text: string): void;
}

export interface GoldCheckContext {
  io: CommandIo;
  signal: AbortSignal;
  /** The config as `memrl run <benchmark>` would load it (inspect mode: no key needed). */
  loadConfig(path: string | undefined, flags: FlagValues): ResolvedConfig;
}

/** `memrl check-gold <benchmark>`: gold answers through the evaluator, to measure a machine rather than a model. */
export interface GoldCheck {
  description: string;
  /** Its own flags (none sets a config key; `default` gives commander defaults). */
  flags: readonly (FlagDef & { default?: unknown })[];
  run(values: FlagValues, ctx: GoldCheckContext): Promise<void>;
}

export interface BenchmarkModule<S = any, T extends TaskBase = any> extends BenchmarkConfigPart<S> {
  readonly kind: 'benchmark';
  /** What `memrl run <name> --help` says it is (a few lines). */
  description: string;
  /** Command lines shown at the end of `memrl run <name> --help`. */
  examples?: readonly string[];
  /** The reference TensorBoard tag set its scalars also use ('other': memrl's tags only). */
  tagFamily?: TagFamily;
  /** Its section of run.json, recorded under its name (default: its settings, secrets redacted). */
  manifest?(settings: S): unknown;
  /** The runnable benchmark for one run (import heavy parts here, dynamically). */
  create(settings: S, run: ResolvedConfig<S>): Benchmark<T> | Promise<Benchmark<T>>;
  /** `memrl doctor`: readiness of its local evaluator, and images its docker runs may use beyond its slots. */
  doctor?: {
    local?(evaluator: EvaluatorSettings): Promise<DoctorCheck[]>;
    extraImages?(docker: DockerSettings): ExtraImage[];
  };
  goldCheck?: GoldCheck;
  /**
   * Its prompt templates (a folder relative to the package root, or absolute): the
   * namespace `<name>/` of a prompt pack overrides them file by file.
   */
  promptTemplates?: string;
  /** Where its prompts sit in the reference code, for `memrl prompts import`. */
  referencePrompts?: readonly ReferencePrompt[];
  /** Its recorded reference functions, for `memrl fidelity` (imported only when asked). */
  fidelityTargets?(): Promise<readonly FidelityTarget[]>;
}
