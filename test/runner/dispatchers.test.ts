/**
 * The two dispatchers behind one interface, on the toy benchmark with the sim model.
 * Local: episodes played here, a sweep's shared slots respected. Remote: through a
 * transport that plays the episode as a worker would (playEpisode with its own metered
 * model) and sends back the outcome and the calls it made, which are counted here for
 * the attempt and the run; a transport that fails gives an error outcome; a worker's
 * fatal refusal is reported once.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { UsageLedger } from '../../src/llm/ledger.js';
import { SimChatModel } from '../../src/llm/sim/model.js';
import type { ChatModel } from '../../src/llm/types.js';
import { AttemptUsage } from '../../src/runner/attempts.js';
import type { Dispatcher, IndexedTask } from '../../src/runner/dispatcher.js';
import { playEpisode } from '../../src/runner/episode.js';
import { LocalDispatcher } from '../../src/runner/local-dispatcher.js';
import { RemoteDispatcher } from '../../src/runner/remote-dispatcher.js';
import type { EpisodeDispatcher, EpisodeRequest, MeteredCall } from '../../src/runner/remote-episodes.js';
import { Slots } from '../../src/util/slots.js';
import { toyBenchmark, type ToyTask } from '../helpers/toy-benchmark.js';

const log = pino({ level: 'silent' });
const bench = toyBenchmark({ train: 6, transcript: true });
const tasks = (await bench.load()).train;
const indexed: IndexedTask<ToyTask>[] = tasks.map((task, index) => ({ task, index }));
const sim = () => new SimChatModel({ seed: 5, players: { toy: bench.simPlayer(tasks) } });
const at = { phase: 'train' as const, epoch: 1, batch: 0, memories: [] };

/** What a `memrl worker` does with a request, in this process: play it with its own model, send back the calls it made. */
function workerTransport(opts: { fail?: string; fatal?: string } = {}): EpisodeDispatcher & { requests: EpisodeRequest[]; opened: string[] } {
  const requests: EpisodeRequest[] = [];
  const opened: string[] = [];
  return {
    label: 'in-process worker',
    requests,
    opened,
    async play(req) {
      requests.push(req);
      if (opts.fail) throw new Error(opts.fail);
      const metered: MeteredCall[] = [];
      const inner = sim();
      const counting: ChatModel = {
        label: inner.label,
        simulated: inner.simulated,
        chat: async (r, signal) => {
          const res = await inner.chat(r, signal);
          metered.push({ role: r.tags.role, usage: res.usage, model: res.model });
          return res;
        },
      };
      const task = tasks[req.taskIndex]!;
      const outcome = await playEpisode(bench, task, { model: counting }, { epoch: req.epoch, phase: req.phase, memories: req.memories, log });
      return { outcome, metered, replies: [], worker: 'w1', ...(opts.fatal ? { fatal: opts.fatal } : {}) };
    },
    runOpened: (dir) => void opened.push(dir),
    close: async () => {},
  };
}

/** Outcomes of every task, without wall time. */
async function playAll(d: Dispatcher<ToyTask>): Promise<unknown[]> {
  const played = await Promise.all(indexed.map((it) => d.play(it, at)));
  return played.map(({ ms: _ms, ...o }) => o);
}

describe('dispatchers', () => {
  it('give the same outcomes, transcripts included, whether episodes play here or on a worker', async () => {
    const local = new LocalDispatcher(bench, { model: sim() }, { concurrency: 3, log });
    const usage = new AttemptUsage(new UsageLedger());
    const remote = new RemoteDispatcher<ToyTask>(workerTransport(), usage, { runDir: '/runs/x', log });
    const here = await playAll(local);
    expect(here.every((o) => (o as { extra?: { calls?: unknown[] } }).extra?.calls?.length === 1)).toBe(true);
    expect(await playAll(remote)).toEqual(here);
    expect(local.width()).toBe(3);
    // On workers every episode at hand is sent at once.
    expect(remote.width(7)).toBe(7);
    expect(remote.width(0)).toBe(1);
  });

  it('local: an episode plays only while it holds one of the shared slots', async () => {
    const slots = new Slots(2);
    let inside = 0;
    let most = 0;
    const slow = {
      ...bench,
      async episode(task: ToyTask, ctx: Parameters<typeof bench.episode>[1]) {
        most = Math.max(most, ++inside);
        await new Promise((r) => setTimeout(r, 5));
        inside--;
        return bench.episode(task, ctx);
      },
    };
    const a = new LocalDispatcher(slow, { model: sim() }, { concurrency: 3, slots, log });
    const b = new LocalDispatcher(slow, { model: sim() }, { concurrency: 3, slots, log });
    await Promise.all([playAll(a), playAll(b)]);
    expect(most).toBe(2);
  });

  it('remote: counts a worker’s calls for the running attempt and the run, and sends the request the worker needs', async () => {
    const transport = workerTransport();
    const usage = new AttemptUsage(new UsageLedger());
    const remote = new RemoteDispatcher<ToyTask>(transport, usage, { runDir: '/runs/x', log });
    const key = { phase: 'train', epoch: 1, index: 2, taskId: 'toy/2' } as const;
    usage.start(key);
    await remote.play(indexed[2]!, { ...at, batch: 4 });
    expect(usage.of(key).byRole.agent.calls).toBe(1);
    expect(usage.ledger.snapshot().byRole.agent.calls).toBe(1);
    usage.end(key);
    expect(transport.requests).toEqual([{ runDir: '/runs/x', phase: 'train', epoch: 1, batch: 4, taskIndex: 2, taskId: 'toy/2', memories: [] }]);
    remote.runOpened('/runs/x');
    expect(transport.opened).toEqual(['/runs/x']);
    expect(remote.fatal).toBeUndefined();
  });

  it('remote: an episode no worker could play is an error outcome; a worker’s fatal refusal is kept, the first one', async () => {
    const failing = new RemoteDispatcher<ToyTask>(workerTransport({ fail: 'every attempt failed' }), new AttemptUsage(new UsageLedger()), { runDir: '/runs/x', log });
    const o = await failing.play(indexed[0]!, at);
    expect(o).toMatchObject({ status: 'error', success: false, ms: 0 });
    expect(o.error).toMatch(/every attempt failed/);

    const refused = new RemoteDispatcher<ToyTask>(workerTransport({ fatal: 'bad key' }), new AttemptUsage(new UsageLedger()), { runDir: '/runs/x', log });
    await refused.play(indexed[0]!, at);
    expect(refused.fatal).toBe('w1: bad key');
  });
});
