/**
 * `memrl worker --queue redis://…`: takes jobs from the queues it can serve (what this
 * machine has: bubblewrap, MariaDB, a container engine), of two kinds:
 * - whole cells of sweeps, run as `memrl sweep` would, in the sweep folder the job names
 *   (a filesystem the coordinator and the workers share). A cell whose run folder
 *   exists is resumed, so a job retried after a worker died continues from its journal;
 * - single episodes of a `memrl run --queue`, played by an episode host (one per run,
 *   opened from the run's run.json as soon as the run says it is open) and handed back to
 *   the run, which keeps the memory.
 */
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { Redis } from 'ioredis';
import { Worker, type Job } from 'bullmq';
import { withRecordedPlugins } from '../app/plugins.js';
import { startRun } from '../app/start-run.js';
import type { Registry } from '../app/registry.js';
import { checkBwrap } from '../env/bwrap/check.js';
import { openEngine } from '../env/container/engine.js';
import { mysqlClient, mysqlSocket, START_HINT } from '../env/sql/local.js';
import { errorMessage, UserError } from '../util/errors.js';
import type { EpisodeResult } from '../runner/remote-episodes.js';
import { Slots } from '../util/slots.js';
import { crashPoint } from '../util/crash-point.js';
import { closeWithin } from './close-within.js';
import { EpisodeHosts } from './episode-hosts.js';
import { runsChannel, type EpisodeJob, type RunOpened } from './episode-queue.js';
import { redisRateGates } from './redis-rate-gate.js';
import { cellFromDisk, readSweepState, type CellState } from './state.js';
import { cellFlags } from './run-local.js';
import { ALL_NEEDS, checkReachable, QUEUE_PREFIX, queuesFor, queueTarget, type CellJob, type Need, type QueueTarget } from './queue.js';

export interface Capabilities {
  have: Set<Need>;
  /** Why each missing one is missing, and how to get it. */
  missing: Map<Need, string>;
}

/**
 * What this machine has, probed at once. Needs in `without` are not probed at all: a
 * worker kept off containers never waits on a busy engine (up to a minute, engine.ts).
 */
export async function detectCapabilities(without: readonly Need[] = []): Promise<Capabilities> {
  const have = new Set<Need>();
  const missing = new Map<Need, string>();
  const probes: Record<Need, () => Promise<string | null>> = {
    bwrap: async () => {
      const bwrap = await checkBwrap();
      return bwrap.ok ? null : bwrap.reason;
    },
    mariadb: async () => (existsSync(mysqlSocket()) && mysqlClient() ? null : `no MariaDB at ${mysqlSocket()}; ${START_HINT}`),
    containers: async () => {
      try {
        await openEngine(null);
        return null;
      } catch (err) {
        return errorMessage(err);
      }
    },
  };
  await Promise.all(
    ALL_NEEDS.map(async (n) => {
      const reason = without.includes(n) ? 'turned off with --without' : await probes[n]();
      if (reason === null) have.add(n);
      else missing.set(n, reason);
    }),
  );
  return { have, missing };
}

/**
 * Runs on these episode queues saying they are open (runsChannel): `onRun` gets the run
 * folder of each. ioredis subscribes again after a reconnect; a lost Redis is reported by
 * the BullMQ workers, not here.
 */
function listenForRuns(target: QueueTarget, queues: string[], onRun: (runDir: string) => void): Redis {
  const sub = new Redis({ ...target.connection, maxRetriesPerRequest: null });
  sub.on('error', () => undefined);
  sub.on('message', (_channel: string, message: string) => {
    try {
      const { runDir } = JSON.parse(message) as Partial<RunOpened>;
      if (typeof runDir === 'string') onRun(runDir);
    } catch {
      // Not ours: ignored.
    }
  });
  void sub.subscribe(...queues.map(runsChannel)).catch(() => undefined);
  return sub;
}

/** Jobs this worker is running now, and a wait for the moment there are none. */
class JobsInHand {
  private count = 0;
  private waiting: (() => void)[] = [];

  async track<R>(run: () => Promise<R>): Promise<R> {
    this.count++;
    try {
      return await run();
    } finally {
      if (--this.count === 0) for (const done of this.waiting.splice(0)) done();
    }
  }

  idle(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((r) => this.waiting.push(r));
  }
}

export interface WorkerOptions {
  url: string;
  registry: Registry;
  /** Cells run at once by this worker. */
  concurrency: number;
  /** Episodes played at once by this worker (all runs together). */
  episodes: number;
  /** Name shown in sweep.json (default: host:pid). */
  name?: string;
  /** Pretend these are missing (tests, or to keep a machine off some cells). */
  without?: readonly Need[];
  /** How long closing waits for the queue's connections once no job is in hand (default 10 s). */
  closeGraceMs?: number;
  log(text: string): void;
}

export interface RunningWorker {
  /** Stop taking jobs, finish the jobs in hand, then let go of every connection. */
  close(): Promise<void>;
}

export async function startWorker(opts: WorkerOptions): Promise<RunningWorker> {
  const target = queueTarget(opts.url);
  await checkReachable(target);
  const caps = await detectCapabilities(opts.without);
  const name = opts.name ?? `${hostname()}:${process.pid}`;
  for (const n of ALL_NEEDS) if (!caps.have.has(n)) opts.log(`worker ${name}: leaving cells and episodes that need ${n} to other workers: ${caps.missing.get(n)}\n`);
  // One rate limit per endpoint for every process of a run or sweep, kept in Redis.
  const gates = redisRateGates(target);
  const queues = queuesFor(caps.have);
  const episodeQueues = queuesFor(caps.have, 'episodes');
  const can = ALL_NEEDS.filter((n) => caps.have.has(n));
  opts.log(`worker ${name}: taking cells (${opts.concurrency} at once) and episodes (${opts.episodes} at once) from ${target.label}, those that need ${can.length ? `at most ${can.join(', ')}` : 'none of bwrap, mariadb, containers'}\n`);
  const runCell = async (job: Job<CellJob>): Promise<CellState> => {
    const { sweepDir, cellId } = job.data;
    if (!existsSync(sweepDir)) throw new UserError(`${sweepDir}: sweep folder not found on ${name}; workers need the coordinator's sweep folder at the same path (a shared filesystem, docs/scale.md)`);
    const state = readSweepState(sweepDir);
    const cell = state.cells.find((c) => c.id === cellId);
    if (!cell) throw new UserError(`${sweepDir}: no cell ${cellId} in sweep.json`);
    opts.log(`worker ${name}: cell ${cellId} of ${job.data.sweepName} (attempt ${job.attemptsMade + 1})\n`);
    // The sweep's plug-ins, by the absolute paths the coordinator loaded them from.
    const registry = await withRecordedPlugins(opts.registry, job.data.plugins ?? []);
    const handle = await startRun(
      { benchmark: cell.benchmark, flags: cellFlags(sweepDir, cell), registry, command: ['worker', job.data.sweepName, cellId], rateGates: gates.factory },
      { err: (t) => opts.log(t.replace(/^(?=.)/gm, `[${cellId}] `)), tty: false },
    );
    const end = await handle.done;
    const plan = { id: cell.id, benchmark: cell.benchmark, method: cell.method, seed: cell.seed, values: cell.values, config: {} };
    const after = cellFromDisk(sweepDir, plan);
    return { ...after, worker: name, ...(end.result?.failure ? { status: 'failed' as const, error: end.result.failure } : {}) };
  };
  const hosts = new EpisodeHosts({ registry: opts.registry, worker: name, rateGates: gates.factory, onOpen: (runDir) => opts.log(`worker ${name}: playing episodes of ${runDir}\n`) });
  const announcements = listenForRuns(target, episodeQueues, (runDir) => void hosts.warm(runDir));
  const episodeSlots = new Slots(opts.episodes);
  const playEpisode = (job: Job<EpisodeJob>): Promise<EpisodeResult> =>
    episodeSlots.run(async () => {
      crashPoint('episode-job');
      return hosts.play(job.data);
    });
  const inHand = new JobsInHand();
  /** One BullMQ worker per queue, its failures in this worker's log. */
  const serve = <D, R>(names: string[], processor: (job: Job<D>) => Promise<R>, locks: { concurrency: number; lockDuration: number; stalledInterval: number; maxStalledCount: number }, what: (job: Job<D> | undefined) => string): Worker<D, R>[] =>
    names.map((q) => {
      // Named, so `memrl worker status` can say who listens (a Redis client name holds no spaces).
      const w = new Worker<D, R>(q, (job) => inHand.track(() => processor(job)), { connection: { ...target.connection, maxRetriesPerRequest: null }, prefix: QUEUE_PREFIX, name: name.replace(/\s/g, '_'), ...locks });
      w.on('failed', (job, err) => opts.log(`worker ${name}: ${what(job)} failed: ${err.message}\n`));
      w.on('error', (err) => opts.log(`worker ${name}: ${err.message}\n`));
      return w;
    });
  // Episodes are short: a dead worker's jobs go to another one within ~15 s.
  const episodeWorkers = serve(episodeQueues, playEpisode, { concurrency: opts.episodes, lockDuration: 10_000, stalledInterval: 5_000, maxStalledCount: 5 }, (job) => `episode ${job?.id ?? '?'} (attempt ${job?.attemptsMade ?? '?'})`);
  // A cell runs for minutes to hours: the lock is renewed while it runs; a dead worker's lapses in 30 s.
  const workers = serve(queues, runCell, { concurrency: opts.concurrency, lockDuration: 30_000, stalledInterval: 15_000, maxStalledCount: 3 }, (job) => `cell ${job?.data.cellId ?? '?'}`);
  return {
    close: async () => {
      // A stopping worker opens no more runs; every connection is let go even if a step fails.
      announcements.disconnect();
      const all = [...workers, ...episodeWorkers];
      try {
        // A connection a Redis outage left waiting to reconnect would hold BullMQ's close forever
        // (see close-within.ts): once no job is in hand, the close gets a grace period.
        const grace = opts.closeGraceMs ?? 10_000;
        if (!(await closeWithin(all, grace, inHand.idle()))) {
          opts.log(`worker ${name}: the queue's connections to ${target.label} did not close within ${grace / 1000} s of the last job; stopping without them\n`);
        }
      } finally {
        await hosts.closeAll();
        await gates.close();
      }
    },
  };
}
