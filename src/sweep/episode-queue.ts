/**
 * `memrl run … --queue redis://…`: the run's episodes as BullMQ jobs for `memrl worker`s.
 * The run keeps its memory and its journal; a job carries one episode (task, injected
 * memories, epoch) and comes back with its outcome.
 *
 * Exactly once: a job's id is derived from the run, phase, epoch, batch, task and the
 * memories it was given, so queuing it again (a resumed run, a lost job) never makes a
 * second one, and a resumed run collects a result a worker finished while the run was
 * down. A worker killed mid-job leaves its lock to lapse; BullMQ then hands the job to
 * another worker. A result is taken once (the pending entry is gone after the first),
 * and only the run's journal decides what counts.
 *
 * Completion events wake the run at once; a poll every second catches what events miss
 * (a Redis restart loses the event stream, and without persistence the jobs too: those
 * are queued again). pending-episodes.ts keeps the jobs the run waits for. Once its
 * run.json is written, the run says so on a pub/sub channel, so workers open it while
 * it prepares its first batch.
 */
import { createHash } from 'node:crypto';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import type { EpisodeDispatcher, EpisodeRequest, EpisodeResult } from '../runner/remote-episodes.js';
import { onAbort } from '../util/abort.js';
import { MemrlError } from '../util/errors.js';
import { CLOSE_GRACE_MS, closeWithin, droppedLine } from './close-within.js';
import { PendingEpisodes, type EpisodeJob, type SweepWitness } from './pending-episodes.js';
import { QUEUE_PREFIX, queueTarget, type QueueTarget } from './queue.js';

export { EPISODE_ATTEMPTS, EpisodeJobFailed, type EpisodeJob } from './pending-episodes.js';

/** Where a run on episode queue `queue` says it is open (Redis pub/sub: every worker listening hears it). */
export function runsChannel(queue: string): string {
  return `${QUEUE_PREFIX}:${queue}:runs`;
}

/** The message on runsChannel. */
export interface RunOpened {
  runDir: string;
}

/** What every episode job id of the run in `runDir` starts with (bench:scale reads a run's jobs by it). */
export function runJobPrefix(runDir: string): string {
  return createHash('sha256').update(runDir).digest('hex').slice(0, 10);
}

export function episodeJobId(req: EpisodeRequest): string {
  const memories = createHash('sha256').update(JSON.stringify(req.memories)).digest('hex').slice(0, 10);
  return `${runJobPrefix(req.runDir)}-${req.phase}-e${req.epoch}-b${req.batch}-t${req.taskIndex}-${memories}`;
}

/** Episodes of one run on the queue `queue` (named by what its episodes need: see queueName). */
export async function openEpisodeQueue(url: string, queue: string, opts: { pollMs?: number; warn?: (line: string) => void; closeGraceMs?: number } = {}): Promise<EpisodeDispatcher> {
  const target: QueueTarget = queueTarget(url);
  const { q, events, announcer } = await connectQueue(target, queue);
  const watch = new RedisWatch(target.label, opts.warn);
  q.on('error', watch.lost);
  events.on('error', watch.lost);
  const jobs = new PendingEpisodes(q);
  takeResultsFrom(events, jobs);
  const poll = setInterval(() => void jobs.sweep(watch).catch(() => undefined), opts.pollMs ?? 1000);
  poll.unref();

  return {
    label: `${target.label} (queue ${queue})`,
    play: (req, signal) => {
      if (signal?.aborted) return Promise.reject(stoppedError());
      const result = jobs.ask(episodeJobId(req), req);
      // Stopped: this run stops waiting; the job stays queued, and a resumed run with the same retrieval collects its result.
      return signal ? untilAborted(result, signal) : result;
    },
    runOpened: (runDir) => {
      // Fire and forget: a worker that misses it opens the run on its first episode.
      // Sent now, on a connection already open: the run's next steps keep the event loop busy.
      announcer.publish(runsChannel(queue), JSON.stringify({ runDir } satisfies RunOpened)).catch(() => undefined);
    },
    close: async () => {
      clearInterval(poll);
      jobs.clear();
      announcer.disconnect();
      // A connection a Redis outage left waiting to reconnect would hold the close forever (close-within.ts).
      const grace = opts.closeGraceMs ?? CLOSE_GRACE_MS;
      if (!(await closeWithin([events, q], grace))) opts.warn?.(droppedLine(target.label, grace));
    },
  };
}

/** The queue, its event stream, and the connection that says when the run is open (runOpened). */
async function connectQueue(target: QueueTarget, queue: string): Promise<{ q: Queue<EpisodeJob, EpisodeResult>; events: QueueEvents; announcer: Redis }> {
  const connection = { ...target.connection, maxRetriesPerRequest: null };
  const q = new Queue<EpisodeJob, EpisodeResult>(queue, { connection, prefix: QUEUE_PREFIX });
  const events = new QueueEvents(queue, { connection, prefix: QUEUE_PREFIX });
  await events.waitUntilReady();
  // A lost Redis is reported by the queue's own connections.
  const announcer = new Redis({ ...connection, lazyConnect: true });
  announcer.on('error', () => undefined);
  await announcer.connect().catch(() => undefined);
  return { q, events, announcer };
}

/** Redis lost mid-run: one line when it goes and one when it answers again (the sweep re-queues what it lost). */
class RedisWatch implements SweepWitness {
  private gone = false;

  constructor(
    private readonly label: string,
    private readonly warn: ((line: string) => void) | undefined,
  ) {}

  /** The queue's connections' error listener. */
  readonly lost = (err: Error): void => {
    if (this.gone) return;
    this.gone = true;
    this.warn?.(`memrl: lost Redis at ${this.label} (${err.message}); waiting for it; what it lost is queued again once it answers\n`);
  };

  answered(): void {
    if (!this.gone) return;
    this.gone = false;
    this.warn?.(`memrl: Redis at ${this.label} answers again\n`);
  }

  lostJobs(count: number): void {
    this.warn?.(`memrl: Redis at ${this.label} no longer has ${count} queued episode job(s) (restarted without persistence?); queuing them again\n`);
  }
}

/** The queue's events settle the run's pending jobs at once (the sweep catches what they miss). */
function takeResultsFrom(events: QueueEvents, jobs: PendingEpisodes): void {
  // The event carries the result: no round trip to fetch it.
  events.on('completed', ({ jobId, returnvalue }) => (returnvalue && typeof returnvalue === 'object' ? jobs.settle(jobId, returnvalue as EpisodeResult) : jobs.recheck(jobId)));
  events.on('failed', ({ jobId }) => jobs.recheck(jobId));
  // Queued before (a resumed run, the same episode asked for again): its result may be there already.
  events.on('duplicated', ({ jobId }) => jobs.recheck(jobId));
}

const stoppedError = (): Error => new MemrlError('harness', 'stopped', 'the run was stopped');

/** `p`, or a rejection as soon as `signal` aborts. */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const stopWaiting = onAbort(signal, () => reject(stoppedError()));
    p.then(
      (v) => (stopWaiting(), resolve(v)),
      (e: unknown) => (stopWaiting(), reject(e)),
    );
  });
}
