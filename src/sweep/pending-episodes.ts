/**
 * The episode jobs one queued run waits for, by job id. A job stays pending until its
 * result is taken (once: a result that arrives twice counts once) or its last attempt
 * failed. Results come by event; the poll's sweep catches what events miss and queues
 * again what Redis lost, under the same id.
 */
import type { Job, Queue } from 'bullmq';
import type { EpisodeRequest, EpisodeResult } from '../runner/remote-episodes.js';
import { MemrlError } from '../util/errors.js';

/** A job's data: the request as the run made it. */
export type EpisodeJob = EpisodeRequest;

/** Attempts of one episode job before the run records it as an error (a worker crash is not a failed attempt: it stalls). */
export const EPISODE_ATTEMPTS = 3;

export class EpisodeJobFailed extends MemrlError {
  constructor(message: string) {
    super('harness', 'episode_job_failed', message);
    this.name = 'EpisodeJobFailed';
  }
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

/** What a sweep learns about Redis, for the run's lines about it. */
export interface SweepWitness {
  /** Redis answered a read. */
  answered(): void;
  /** Redis no longer has `count` jobs it had taken (they are queued again). */
  lostJobs(count: number): void;
}

export class PendingEpisodes {
  private readonly pending = new Map<string, Pending>();
  private readonly inflight = new Map<string, Promise<EpisodeResult>>();

  constructor(private readonly q: Queue<EpisodeJob, EpisodeResult>) {}

  /** Job `id`'s result. The same episode asked for again while in flight is the same job: one result for both. */
  ask(id: string, req: EpisodeJob): Promise<EpisodeResult> {
    const asked = this.inflight.get(id);
    if (asked) return asked;
    const result = new Promise<EpisodeResult>((resolve, reject) => {
      this.pending.set(id, { job: req, since: Date.now(), resolve, reject });
    });
    this.inflight.set(id, result);
    const forget = (): void => void this.inflight.delete(id);
    result.then(forget, forget);
    // An existing id (a resumed run, or the same episode queued before) is not added twice: BullMQ keeps the first.
    this.add(id, req).then(
      () => {
        const p = this.pending.get(id);
        if (p) p.queued = true;
      },
      () => undefined, // Redis away: the poll queues it once Redis is back
    );
    return result;
  }

  /** Job `id` finished with `result`. */
  settle(id: string, result: EpisodeResult): void {
    const p = this.pending.get(id);
    if (!p) return; // taken already (a result that arrives twice counts once)
    this.pending.delete(id);
    p.resolve(result);
  }

  /** Look at job `id` in Redis now; Redis down: the next sweep tries again. */
  recheck(id: string): void {
    void this.check(id).catch(() => undefined);
  }

  /**
   * Every pending job's two timestamps, in one round trip. A batch keeps hundreds of
   * jobs pending, and fetching each whole job (its memories included) every second moved
   * the batch's payload again and again. Only a job Redis lost, or one that finished
   * without its event reaching this run, is looked at further.
   */
  async sweep(witness: SweepWitness): Promise<void> {
    const ids = [...this.pending.keys()];
    if (!ids.length) return;
    const client = await this.q.getBackend().client;
    // Sent together on one connection; a read that fails waits for the next sweep.
    const read = await Promise.all(ids.map((id) => client.hmget(this.q.toKey(id), 'timestamp', 'finishedOn').catch(() => undefined)));
    if (read.some(Boolean)) witness.answered();
    let gone = 0;
    ids.forEach((id, i) => {
      const fields = read[i];
      if (fields && fields[0] === null && this.pending.get(id)?.queued) gone++;
      if (fields && (fields[0] === null || fields[1] !== null)) this.recheck(id);
    });
    if (gone) witness.lostJobs(gone);
  }

  /** Stop waiting for every job (the run closes). */
  clear(): void {
    this.pending.clear();
  }

  private add(id: string, job: EpisodeJob): Promise<unknown> {
    // Results stay an hour: a run restarted meanwhile collects them instead of playing the episodes again.
    return this.q.add('episode', job, { jobId: id, attempts: EPISODE_ATTEMPTS, backoff: { type: 'fixed', delay: 1000 }, removeOnComplete: { age: 3600 }, removeOnFail: { age: 24 * 3600 } });
  }

  /** Settle `id` from the job's state in Redis; a job Redis no longer has is queued again. */
  private async check(id: string): Promise<void> {
    const p = this.pending.get(id);
    if (!p) return;
    const job: Job<EpisodeJob, EpisodeResult> | undefined = await this.q.getJob(id);
    if (!this.pending.has(id)) return;
    if (!job) {
      await this.add(id, p.job);
      return;
    }
    if (job.finishedOn && job.returnvalue) {
      this.settle(id, job.returnvalue);
    } else if (job.finishedOn && job.failedReason && job.attemptsMade >= EPISODE_ATTEMPTS) {
      // Failed before this run asked again (the fault may be fixed now, as on a local resume): once more, from zero.
      if (job.timestamp < p.since && !p.retried) {
        p.retried = true;
        await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
        return;
      }
      this.pending.delete(id);
      p.reject(new EpisodeJobFailed(`episode job ${id} failed on every attempt: ${job.failedReason}`));
    }
  }
}
