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
 * are queued again). Once its run.json is written, the run says so on a pub/sub channel,
 * so workers open it while it prepares its first batch.
 */
import { createHash } from 'node:crypto';
import { Queue, QueueEvents, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { EpisodeDispatcher, EpisodeRequest, EpisodeResult } from '../runner/remote-episodes.js';
import { onAbort } from '../util/abort.js';
import { MemrlError } from '../util/errors.js';
import { CLOSE_GRACE_MS, closeWithin, droppedLine } from './close-within.js';
import { QUEUE_PREFIX, queueTarget, type QueueTarget } from './queue.js';

/** A job's data: the request as the run made it. */
export type EpisodeJob = EpisodeRequest;

/** Where a run on episode queue `queue` says it is open (Redis pub/sub: every worker listening hears it). */
export function runsChannel(queue: string): string {
  return `${QUEUE_PREFIX}:${queue}:runs`;
}

/** The message on runsChannel. */
export interface RunOpened {
  runDir: string;
}

/** Attempts of one episode job before the run records it as an error (a worker crash is not a failed attempt: it stalls). */
export const EPISODE_ATTEMPTS = 3;

/** What every episode job id of the run in `runDir` starts with (bench:scale reads a run's jobs by it). */
export function runJobPrefix(runDir: string): string {
  return createHash('sha256').update(runDir).digest('hex').slice(0, 10);
}

export function episodeJobId(req: EpisodeRequest): string {
  const memories = createHash('sha256').update(JSON.stringify(req.memories)).digest('hex').slice(0, 10);
  return `${runJobPrefix(req.runDir)}-${req.phase}-e${req.epoch}-b${req.batch}-t${req.taskIndex}-${memories}`;
}

interface Pending {
  job: EpisodeJob;
  /** When this run asked for it (this process's clock, as the job's own timestamp is). */
  since: number;
  /** A failure left from an earlier attempt of the run was sent back to the queue once. */
  retried?: boolean;
  /** Redis took the job (so its absence later means Redis lost it). */
  queued?: boolean;
  resolve(r: EpisodeResult): void;
  reject(e: Error): void;
}

export class EpisodeJobFailed extends MemrlError {
  constructor(message: string) {
    super('harness', 'episode_job_failed', message);
    this.name = 'EpisodeJobFailed';
  }
}

/** Episodes of one run on the queue `queue` (named by what its episodes need: see queueName). */
export async function openEpisodeQueue(url: string, queue: string, opts: { pollMs?: number; warn?: (line: string) => void; closeGraceMs?: number } = {}): Promise<EpisodeDispatcher> {
  const target: QueueTarget = queueTarget(url);
  const connection = { ...target.connection, maxRetriesPerRequest: null };
  const q = new Queue<EpisodeJob, EpisodeResult>(queue, { connection, prefix: QUEUE_PREFIX });
  const events = new QueueEvents(queue, { connection, prefix: QUEUE_PREFIX });
  await events.waitUntilReady();
  // Says when the run is open (runOpened); a lost Redis is reported by the queue's own connections.
  const announcer = new Redis({ ...connection, lazyConnect: true });
  announcer.on('error', () => undefined);
  await announcer.connect().catch(() => undefined);
  // Redis lost mid-run: one line when it goes and one when it answers again (the sweep below re-queues what it lost).
  let lost = false;
  const onLost = (err: Error): void => {
    if (lost) return;
    lost = true;
    opts.warn?.(`memrl: lost Redis at ${target.label} (${err.message}); waiting for it; what it lost is queued again once it answers\n`);
  };
  q.on('error', onLost);
  events.on('error', onLost);
  const pending = new Map<string, Pending>();
  const inflight = new Map<string, Promise<EpisodeResult>>();

  const add = (id: string, job: EpisodeJob): Promise<unknown> =>
    // Results stay an hour: a run restarted meanwhile collects them instead of playing the episodes again.
    q.add('episode', job, { jobId: id, attempts: EPISODE_ATTEMPTS, backoff: { type: 'fixed', delay: 1000 }, removeOnComplete: { age: 3600 }, removeOnFail: { age: 24 * 3600 } });

  /** Settle `id` from the job's state in Redis; a job Redis no longer has is queued again. */
  const check = async (id: string): Promise<void> => {
    const p = pending.get(id);
    if (!p) return;
    const job: Job<EpisodeJob, EpisodeResult> | undefined = await q.getJob(id);
    if (!pending.has(id)) return;
    if (!job) {
      await add(id, p.job);
      return;
    }
    if (job.finishedOn && job.returnvalue) {
      settle(id, job.returnvalue);
    } else if (job.finishedOn && job.failedReason && job.attemptsMade >= EPISODE_ATTEMPTS) {
      // Failed before this run asked again (the fault may be fixed now, as on a local resume): once more, from zero.
      if (job.timestamp < p.since && !p.retried) {
        p.retried = true;
        await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
        return;
      }
      pending.delete(id);
      p.reject(new EpisodeJobFailed(`episode job ${id} failed on every attempt: ${job.failedReason}`));
    }
  };
  const settle = (id: string, result: EpisodeResult): void => {
    const p = pending.get(id);
    if (!p) return; // taken already (a result that arrives twice counts once)
    pending.delete(id);
    p.resolve(result);
  };
  const safely = (id: string): void => void check(id).catch(() => undefined); // Redis down: the next sweep tries again
  // The event carries the result: no round trip to fetch it.
  events.on('completed', ({ jobId, returnvalue }) => (returnvalue && typeof returnvalue === 'object' ? settle(jobId, returnvalue as EpisodeResult) : safely(jobId)));
  events.on('failed', ({ jobId }) => safely(jobId));
  // Queued before (a resumed run, the same episode asked for again): its result may be there already.
  events.on('duplicated', ({ jobId }) => safely(jobId));
  /**
   * Every pending job's two timestamps, in one round trip. A batch keeps hundreds of
   * jobs pending, and fetching each whole job (its memories included) every second moved
   * the batch's payload again and again. Only a job Redis lost, or one that finished
   * without its event reaching this run, is looked at further.
   */
  const sweep = async (): Promise<void> => {
    const ids = [...pending.keys()];
    if (!ids.length) return;
    const client = await q.getBackend().client;
    // Sent together on one connection; a read that fails waits for the next sweep.
    const read = await Promise.all(ids.map((id) => client.hmget(q.toKey(id), 'timestamp', 'finishedOn').catch(() => undefined)));
    if (lost && read.some(Boolean)) {
      lost = false;
      opts.warn?.(`memrl: Redis at ${target.label} answers again\n`);
    }
    let gone = 0;
    ids.forEach((id, i) => {
      const fields = read[i];
      if (fields && fields[0] === null && pending.get(id)?.queued) gone++;
      if (fields && (fields[0] === null || fields[1] !== null)) safely(id);
    });
    if (gone) opts.warn?.(`memrl: Redis at ${target.label} no longer has ${gone} queued episode job(s) (restarted without persistence?); queuing them again\n`);
  };
  const poll = setInterval(() => void sweep().catch(() => undefined), opts.pollMs ?? 1000);
  poll.unref();

  return {
    label: `${target.label} (queue ${queue})`,
    play: (req, signal) => {
      if (signal?.aborted) return Promise.reject(stoppedError());
      const id = episodeJobId(req);
      // The same episode asked for again while in flight is the same job: one result for both.
      let result = inflight.get(id);
      if (!result) {
        result = new Promise<EpisodeResult>((resolve, reject) => {
          pending.set(id, { job: req, since: Date.now(), resolve, reject });
        });
        inflight.set(id, result);
        const forget = (): void => void inflight.delete(id);
        result.then(forget, forget);
        // An existing id (a resumed run, or the same episode queued before) is not added twice: BullMQ keeps the first.
        add(id, req).then(
          () => {
            const p = pending.get(id);
            if (p) p.queued = true;
          },
          () => undefined, // Redis away: the poll queues it once Redis is back
        );
      }
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
      pending.clear();
      announcer.disconnect();
      // A connection a Redis outage left waiting to reconnect would hold the close forever (close-within.ts).
      const grace = opts.closeGraceMs ?? CLOSE_GRACE_MS;
      if (!(await closeWithin([events, q], grace))) opts.warn?.(droppedLine(target.label, grace));
    },
  };
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
