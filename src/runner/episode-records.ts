/**
 * A batch's or a validation pass's episodes, each once (attempts.ts), played wherever
 * the dispatcher plays them, as each one's retrieval comes in; and the record each
 * leaves for the barrier: its outcome row (with the method's calls for it) and, in
 * training, what the method learned from it.
 */
import type { Benchmark, TaskBase } from '../core/benchmark.js';
import type { Experience, MethodInstance, Retrieval } from '../core/method.js';
import type { OutcomePhase, OutcomeRow } from '../core/outcome.js';
import { mapPool } from '../util/pool.js';
import type { Attempts, EpisodeRecord } from './attempts.js';
import type { Dispatcher, IndexedTask } from './dispatcher.js';
import type { PlayedEpisode } from './episode.js';
import { withMethodCalls, type MethodCalls } from './method-calls.js';
import type { RetrievalOf } from './retrieval-slicer.js';
import { learningOutcome } from './reward-noise.js';

export interface EpisodeRecordsOptions<T extends TaskBase> {
  bench: Benchmark<T>;
  method: MethodInstance;
  dispatcher: Dispatcher<T>;
  attempts: Attempts;
  calls: MethodCalls;
  seed: number;
  /** --reward-noise: the probability that `learn` sees the reward flipped. */
  rewardNoise: number;
  signal?: AbortSignal | undefined;
  aborted: () => boolean;
  now: () => number;
}

export class EpisodeRecords<T extends TaskBase> {
  constructor(private readonly o: EpisodeRecordsOptions<T>) {}

  /** Every task's episode, in task order, as many at a time as play at once; `batch` is 0 in validation. */
  playAll(items: readonly IndexedTask<T>[], retrieval: RetrievalOf, phase: OutcomePhase, epoch: number, batch: number): Promise<EpisodeRecord[]> {
    return mapPool(items, this.o.dispatcher.width(items.length), async (it, i) => {
      const r = await retrieval(i);
      const key = { phase, epoch, index: it.index, taskId: it.task.id };
      return this.o.attempts.play(key, r, () => (phase === 'train' ? this.train(it, epoch, batch, r) : this.valid(it, epoch, r)));
    });
  }

  /** A validation episode: reads memory, teaches nothing. */
  private async valid(it: IndexedTask<T>, epoch: number, retrieval: Retrieval): Promise<EpisodeRecord> {
    const retrievalCalls = this.o.calls.take('valid', epoch, it.task.id);
    const o = await this.o.dispatcher.play(it, { epoch, phase: 'valid', batch: 0, memories: retrieval.memories });
    return { row: withMethodCalls(this.row(it, epoch, 'valid', retrieval, o), retrievalCalls, []) };
  }

  /** A training episode and what the method learns from it (committed later, at the barrier). */
  private async train(it: IndexedTask<T>, epoch: number, batch: number, retrieval: Retrieval): Promise<EpisodeRecord> {
    const { method, calls } = this.o;
    // The method's calls so far for this task (Self-RAG's gate and decision) come first in its transcript, the writer's last.
    const retrievalCalls = calls.take('train', epoch, it.task.id);
    const o = await this.o.dispatcher.play(it, { epoch, phase: 'train', batch, memories: retrieval.memories });
    // A harness error is not experience: it neither writes memory nor moves Q.
    if (o.status === 'error' || o.status === 'skipped' || !method.learn) return { row: withMethodCalls(this.row(it, epoch, 'train', retrieval, o), retrievalCalls, []) };
    let experience: Experience | undefined;
    const noisy = learningOutcome(o, this.o.rewardNoise, this.o.seed, epoch, it.task.id);
    try {
      experience = await method.learn({ task: it.task, index: it.index, epoch, retrieval, outcome: noisy.outcome, ...(this.o.signal ? { signal: this.o.signal } : {}) });
    } catch (err) {
      // Only a cancelled run gets here (the writer falls back on model errors); the batch is dropped.
      if (this.o.aborted()) return { row: this.row(it, epoch, 'train', retrieval, o) };
      throw err;
    }
    const row = withMethodCalls(this.row(it, epoch, 'train', retrieval, o, experience?.memoryId), retrievalCalls, calls.take('train', epoch, it.task.id));
    if (noisy.flipped) row.extra = { ...row.extra, rewardFlipped: true };
    return { row, ...(experience ? { experience } : {}) };
  }

  private row(it: IndexedTask<T>, epoch: number, phase: OutcomePhase, retrieval: Retrieval, o: PlayedEpisode, memoryId?: string): OutcomeRow {
    return outcomeRow(this.o.bench.name, it, epoch, phase, retrieval, o, memoryId, new Date(this.o.now()).toISOString());
  }
}

/** An episode's outcome row: the task, the retrieval's fields and record, the outcome, its usage and time. */
export function outcomeRow(
  benchmark: string,
  it: IndexedTask<TaskBase>,
  epoch: number,
  phase: OutcomePhase,
  retrieval: Retrieval,
  o: PlayedEpisode,
  memoryId: string | undefined,
  finishedAt: string,
): OutcomeRow {
  return {
    benchmark,
    taskId: it.task.id,
    taskIndex: it.index,
    epoch,
    phase,
    status: o.status,
    success: o.success,
    reward: o.success ? 1 : 0,
    steps: o.steps,
    error: o.error,
    ...retrieval.fields,
    promptTokens: o.usage.promptTokens,
    completionTokens: o.usage.completionTokens,
    totalTokens: o.usage.totalTokens,
    latencyMs: o.ms,
    memoryId,
    finishedAt,
    extra: retrieval.record ? { ...o.extra, retrieval: retrieval.record } : o.extra,
  };
}
