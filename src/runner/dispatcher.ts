/**
 * Where episodes are played: in this process (local-dispatcher.ts) or on workers that
 * take them from a queue (remote-dispatcher.ts). The runner hands each episode to one
 * and gets the outcome back at the same place in its loop, so barriers, the journal and
 * every output stay here, and a run gives the same results whatever plays its episodes.
 */
import type { InjectedMemory, TaskBase } from '../core/benchmark.js';
import type { Phase } from '../llm/types.js';
import type { PlayedEpisode } from './episode.js';

/** A task with its index in its phase's list (train or valid). */
export interface IndexedTask<T> {
  task: T;
  index: number;
}

/** Which episode: its phase, epoch and training batch (0 in validation), and the memories injected. */
export interface EpisodeAt {
  phase: Phase;
  epoch: number;
  batch: number;
  memories: InjectedMemory[];
}

export interface Dispatcher<T extends TaskBase> {
  /** How many of `n` episodes at hand play at once. */
  width(n: number): number;
  /** Never rejects: an episode that could not be played is an `error` outcome. */
  play(it: IndexedTask<T>, at: EpisodeAt): Promise<PlayedEpisode>;
  /** A refusal reported by whatever played an episode, which every later one would repeat (a worker's bad key): the run stops on it. */
  readonly fatal: string | undefined;
  /** run.json is final: whatever plays the episodes may open the run now (a hint; nothing waits for it). */
  runOpened(runDir: string): void;
}
