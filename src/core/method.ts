/**
 * The memory-method contract. A method is one file under src/methods/ (or a plug-in
 * module) exporting a MethodModule; the runner asks its instance, per batch, what
 * to inject into each task, hands it each finished training episode, and at the
 * barrier tells it to commit, in task order. The runner has no idea which method
 * it runs.
 *
 * Exactly-once across kills: `learn` runs inside the episode's slot and its result
 * (an Experience, plain JSON) is journaled with the episode; after a crash the
 * runner replays journaled experiences into `commit` instead of learning again.
 * So an Experience must carry everything `commit` needs, and `retrieve` must be a
 * pure function of the committed state and the RNG it is given.
 */
import type { Logger } from 'pino';
import type { MethodConfigPart } from '../config/types.js';
import type { Embedder } from '../embed/types.js';
import type { ChatModel, Phase } from '../llm/types.js';
import type { BuildStrategy, MemoryParams, MemoryRecord } from '../memory/types.js';
import type { Fidelity, ReferencePrompt } from '../util/fidelity.js';
import type { Rng } from '../util/rng.js';
import type { InjectedMemory, TaskBase } from './benchmark.js';
import type { Outcome } from './outcome.js';

export interface MethodContext<C = unknown> {
  benchmark: string;
  /** Its own memrl.<name> section (undefined when it has none). */
  settings: C;
  /** The engine parameters resolved for this run (k1, k2, epsilon, alpha, Q init, ...). */
  params: MemoryParams;
  buildStrategy: BuildStrategy;
  /** The agent's model; memory-writing calls go through it with role `memory`. */
  model: ChatModel;
  embedder: Embedder;
  /** The prompt pack's `memory` folder, if a pack is in use (templates not in it are memrl's own). */
  promptDir?: string;
  /** Fidelity switch settings (the writer's and the method's own switches). */
  fidelity: Fidelity;
  log: Logger;
  /** What snapshot() returned at the last checkpoint, when the run resumes. */
  restored?: unknown;
}

export interface RetrievalQuery {
  phase: Phase;
  epoch: number;
  /** The run's retrieval stream for this phase and epoch, drawn in task order. */
  rng: Rng;
  signal?: AbortSignal;
}

/** What the outcome row records about a retrieval. On resume, a journaled episode is reused only if these match. */
export interface RetrievalFields {
  /** Ids of the memories injected, in prompt order. */
  retrievedIds: string[];
  retrievedQ?: number[];
  retrievedSim?: number[];
  /** Candidate pool size. */
  pool?: number;
  /** True when exploration picked the memories instead of the ranking. */
  explored?: boolean;
}

/** A method's own account of a retrieval decision (the row's extra.retrieval): plain JSON, open-ended (each method its own). */
export type RetrievalRecord = Record<string, unknown>;

export interface Retrieval {
  memories: InjectedMemory[];
  fields: RetrievalFields;
  /** The method's own data about this retrieval, handed back to `learn` (never recorded). */
  detail?: unknown;
  /**
   * Why these memories and not others, for a person reading the outcome row (plain JSON).
   * The fields above only say what was injected; a method whose retrieval is decided by
   * a model (Self-RAG's gate and labels) needs to show that decision, so the runner puts
   * it in the row's `extra.retrieval`. Part of the attempt: resume compares it too.
   */
  record?: RetrievalRecord;
}

/** What a finished training episode hands to the barrier. Plain JSON: it is journaled. */
export interface Experience {
  /** The memory it will write, shown in the outcome row. */
  memoryId?: string;
  [key: string]: unknown;
}

export interface FinishedEpisode<T extends TaskBase = TaskBase> {
  task: T;
  /** Position of the task in its phase's task list. */
  index: number;
  epoch: number;
  retrieval: Retrieval;
  outcome: Outcome;
  signal?: AbortSignal;
}

/** What a commit did that belongs to single episodes (kept in their transcripts). */
export interface CommitEffects {
  /** Q updates in the order applied; `experience` indexes the experiences given to commit. */
  qUpdates?: { experience: number; memoryId: string; before: number; after: number }[];
}

/**
 * A method's statistics for summary.json `memory`: open-ended, each method its own (the
 * built-ins give memory/stats.ts's counts and Q summary, plus their settings).
 */
export type MethodStats = Record<string, unknown>;

export interface MethodInstance {
  /** Called once the tasks are known, before any retrieval (e.g. to embed their keys). */
  prepare?(tasks: readonly TaskBase[], signal?: AbortSignal): Promise<void>;
  /** The training tasks to run this epoch (default: all). */
  trainTasks?<T extends TaskBase>(tasks: readonly T[], ctx: { epoch: number; solved: ReadonlySet<string> }): T[];
  /**
   * One retrieval per task, in task order, all from the memory as committed before this
   * batch. The runner may ask for a batch in consecutive slices, the RNG stream going on
   * from one to the next, while the first slice's episodes run: a retrieval depends on
   * the committed state, its task and its draws only (never on `learn`, which does not
   * change what retrieve reads).
   */
  retrieve(tasks: readonly TaskBase[], query: RetrievalQuery): Promise<Retrieval[]>;
  /**
   * What a finished training episode will contribute at the barrier (none: undefined).
   * Not called for episodes that ended in `error` or `skipped`: a harness fault is no experience.
   */
  learn?(episode: FinishedEpisode): Promise<Experience | undefined>;
  /**
   * The barrier: the batch's experiences in task order, at commit time `at` (ms).
   * May be async (a memory kept by a library, e.g. Mem0, writes through promises); the
   * runner awaits it before the next batch retrieves.
   */
  commit(experiences: readonly Experience[], at: number): void | CommitEffects | Promise<void | CommitEffects>;
  /** The whole state, JSON-serialisable, for the epoch checkpoint. */
  snapshot(): unknown;
  /** Every memory, for memories.jsonl. */
  records(): readonly Readonly<MemoryRecord>[];
  /** Memory statistics for summary.json. */
  stats(): MethodStats;
  /** Number of memories (the epoch lines print it). */
  readonly size: number;
  /** Release what the method holds open (a server, a database); called once when the run ends. */
  close?(): void | Promise<void>;
}

export interface MethodModule<C = any> extends MethodConfigPart {
  readonly kind: 'method';
  /** One line for help and docs. */
  description: string;
  create(ctx: MethodContext<C>): MethodInstance | Promise<MethodInstance>;
  /** Where its templates (in the `memory` namespace) sit in the reference code, for `memrl prompts import`. */
  referencePrompts?: readonly ReferencePrompt[];
}
