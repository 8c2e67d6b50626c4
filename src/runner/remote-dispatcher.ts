/**
 * Episodes played on workers: each is sent through an EpisodeDispatcher
 * (remote-episodes.ts; sweep/episode-queue.ts makes it a BullMQ job), and the calls the
 * worker made come back with its outcome, to be counted here as if made here (the
 * ledger, the budget, the journal's usage).
 */
import type { Logger } from 'pino';
import type { TaskBase } from '../core/benchmark.js';
import { errorMessage } from '../util/errors.js';
import type { AttemptUsage } from './attempts.js';
import type { Dispatcher, EpisodeAt, IndexedTask } from './dispatcher.js';
import { faultOutcome } from './episode-outcome.js';
import type { PlayedEpisode } from './episode.js';
import type { EpisodeDispatcher, EpisodeResult } from './remote-episodes.js';

export interface RemoteOptions {
  runDir: string;
  signal?: AbortSignal | undefined;
  log: Logger;
}

export class RemoteDispatcher<T extends TaskBase> implements Dispatcher<T> {
  private reported: string | undefined;

  constructor(
    private readonly transport: EpisodeDispatcher,
    private readonly usage: AttemptUsage,
    private readonly opts: RemoteOptions,
  ) {}

  /** Every episode at hand is queued at once: their number and the workers' concurrency set the pace. */
  width(n: number): number {
    return Math.max(1, n);
  }

  get fatal(): string | undefined {
    return this.reported;
  }

  async play(it: IndexedTask<T>, at: EpisodeAt): Promise<PlayedEpisode> {
    const { phase, epoch, batch, memories } = at;
    let res: EpisodeResult;
    try {
      res = await this.transport.play({ runDir: this.opts.runDir, phase, epoch, batch, taskIndex: it.index, taskId: it.task.id, memories }, this.opts.signal);
    } catch (err) {
      this.opts.log.error({ event: 'episode_error', task: it.task.id, epoch, phase, err: errorMessage(err) }, 'remote episode failed');
      return { ...faultOutcome(err), ms: 0 };
    }
    this.usage.countRemote({ phase, epoch, taskId: it.task.id }, res.metered);
    if (res.fatal) this.reported ??= `${res.worker}: ${res.fatal}`;
    return res.outcome;
  }

  runOpened(runDir: string): void {
    this.transport.runOpened?.(runDir);
  }
}
