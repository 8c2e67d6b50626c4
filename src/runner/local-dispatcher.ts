/** Episodes played in this process, `concurrency` at once (and, in a sweep, each holding one of its shared slots). */
import type { Logger } from 'pino';
import type { Benchmark, TaskBase } from '../core/benchmark.js';
import type { Slots } from '../util/slots.js';
import type { Dispatcher, EpisodeAt, IndexedTask } from './dispatcher.js';
import { playEpisode, type EpisodeModels, type PlayedEpisode } from './episode.js';

export interface LocalOptions {
  concurrency: number;
  slots?: Slots | undefined;
  signal?: AbortSignal | undefined;
  log: Logger;
}

export class LocalDispatcher<T extends TaskBase> implements Dispatcher<T> {
  /** A local endpoint's refusal is the models' own (MeteredChatModel.fatal). */
  readonly fatal = undefined;

  constructor(
    private readonly bench: Benchmark<T>,
    private readonly models: EpisodeModels,
    private readonly opts: LocalOptions,
  ) {}

  width(): number {
    return this.opts.concurrency;
  }

  play(it: IndexedTask<T>, at: EpisodeAt): Promise<PlayedEpisode> {
    const { epoch, phase, memories } = at;
    const play = (): Promise<PlayedEpisode> => playEpisode(this.bench, it.task, this.models, { epoch, phase, memories, signal: this.opts.signal, log: this.opts.log });
    return this.opts.slots ? this.opts.slots.run(play) : play();
  }

  runOpened(): void {}
}
