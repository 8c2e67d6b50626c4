/**
 * Episodes played elsewhere. The run keeps its memory: it retrieves for every task of a
 * batch, hands each episode (task, injected memories, epoch) to a dispatcher, and
 * commits at the barrier in task order once every result is back, exactly as it does
 * with local episodes. So a run gives the same results whatever plays its episodes.
 *
 * A dispatcher (sweep/episode-queue.ts: BullMQ jobs for `memrl worker`s) only moves
 * requests and results; what a worker does with a request is app/episode-host.ts.
 */
import type { InjectedMemory } from '../core/benchmark.js';
import type { CacheEntry } from '../llm/cache.js';
import type { LedgerRole } from '../llm/ledger.js';
import type { Phase, TokenUsage } from '../llm/types.js';
import type { PlayedEpisode } from './episode.js';

export interface EpisodeRequest {
  /** The run folder (on a filesystem the workers share): the worker reads the run's settings from its run.json. */
  runDir: string;
  phase: Phase;
  epoch: number;
  /** The training batch (0 for a validation pass). */
  batch: number;
  /** Index into the run's train or valid list, and the task id there (checked: a worker's data must be the run's). */
  taskIndex: number;
  taskId: string;
  memories: InjectedMemory[];
}

/** One model call a worker made, as the run's usage ledger records it. */
export interface MeteredCall {
  role: LedgerRole;
  usage: TokenUsage;
  cached?: boolean;
  model?: string;
  systemFingerprint?: string;
}

export interface EpisodeResult {
  outcome: PlayedEpisode;
  metered: MeteredCall[];
  /** Replies the worker got live: the run records them in its own responses.jsonl. */
  replies: CacheEntry[];
  /** The worker's endpoint refused in a way every later call would repeat (bad key, unknown model). */
  fatal?: string;
  /** A plug-in broke its contract during the episode (the one-line message): the run stops as it would locally. */
  violation?: string;
  /** A plug-in's own exceptions during the episode, with their stacks, for the run's log. */
  crashes?: { where: string; stack: string }[];
  /** Which worker played it (for messages). */
  worker: string;
}

export interface EpisodeDispatcher {
  /** Where episodes go, for the banner and messages (no secrets). */
  readonly label: string;
  /**
   * Resolves once the episode was played somewhere. Rejects when it could not be (every
   * attempt failed, or the run was stopped): the run records an error outcome then, and
   * a stopped run does not keep it.
   */
  play(req: EpisodeRequest, signal?: AbortSignal): Promise<EpisodeResult>;
  /**
   * The run's run.json is written (new or resumed): whatever plays its episodes may open
   * the run now, while the run prepares its first batch, instead of on its first episode.
   * Only a hint: nothing waits for it, and a missed one costs only that head start.
   */
  runOpened?(runDir: string): void;
  close(): Promise<void>;
}
