/**
 * The episode queue on a real redis-server, with an in-test BullMQ worker standing in
 * for `memrl worker`: a job that fails on every attempt becomes an error the run
 * records (with the worker's reason), a run asking again later gets the job played
 * again instead of the old failure, and a stopped run's pending episodes settle at once.
 */
import { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EPISODE_ATTEMPTS, openEpisodeQueue, type EpisodeJob } from '../../src/sweep/episode-queue.js';
import { QUEUE_PREFIX, queueTarget } from '../../src/sweep/queue.js';
import type { EpisodeRequest, EpisodeResult } from '../../src/runner/remote-episodes.js';
import { SKIP_REDIS, startRedis, type RedisServer } from '../helpers/redis.js';

const REQUEST: EpisodeRequest = { runDir: '/runs/a', phase: 'train', epoch: 1, batch: 0, taskIndex: 3, taskId: 't3', memories: [] };

function result(worker: string): EpisodeResult {
  return { outcome: { status: 'pass', success: true, steps: 1, trajectory: 'ok', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 }, ms: 5 }, metered: [], replies: [], worker };
}

describe.skipIf(SKIP_REDIS)('episode jobs on BullMQ', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  /** A stand-in worker on `queue`: `play` decides each attempt. */
  function standIn(queue: string, play: (job: EpisodeJob) => EpisodeResult): Worker {
    return new Worker<EpisodeJob, EpisodeResult>(queue, async (job) => play(job.data), { connection: { ...queueTarget(redis.url).connection, maxRetriesPerRequest: null }, prefix: QUEUE_PREFIX });
  }

  it('a job failing on every attempt rejects with the reason; asked again later, it is played again', async () => {
    const queue = 'episodes-test-fail';
    let attempts = 0;
    const broken = standIn(queue, () => {
      attempts++;
      throw new Error('cannot open the run here');
    });
    const first = await openEpisodeQueue(redis.url, queue, { pollMs: 200 });
    await expect(first.play(REQUEST)).rejects.toThrow(/failed on every attempt: cannot open the run here/);
    expect(attempts).toBe(EPISODE_ATTEMPTS);
    await first.close();
    await broken.close();

    // The fault is fixed; the run is resumed and asks for the same episode (same job id).
    const fixed = standIn(queue, () => result('fixed'));
    const again = await openEpisodeQueue(redis.url, queue, { pollMs: 200 });
    try {
      expect((await again.play(REQUEST)).worker).toBe('fixed');
    } finally {
      await again.close();
      await fixed.close();
    }
  }, 30_000);

  it('a result that arrives is taken once, and a stopped run settles its pending episodes at once', async () => {
    const queue = 'episodes-test-stop';
    const q = await openEpisodeQueue(redis.url, queue, { pollMs: 200 });
    try {
      // No worker: the episode waits. Stopping the run rejects it, and an already stopped one never waits.
      const stop = new AbortController();
      const waiting = q.play({ ...REQUEST, taskIndex: 4, taskId: 't4' }, stop.signal);
      stop.abort();
      await expect(waiting).rejects.toThrow(/stopped/);
      await expect(q.play({ ...REQUEST, taskIndex: 5, taskId: 't5' }, stop.signal)).rejects.toThrow(/stopped/);
      // A worker comes (and plays the stopped ones too: they stayed queued). The same episode
      // asked twice at once is one job, and both askers get its one result.
      let played = 0;
      const w = standIn(queue, (job) => (job.taskIndex === 3 && played++, result('w')));
      try {
        const [a, b] = await Promise.all([q.play(REQUEST), q.play(REQUEST)]);
        expect(a.worker).toBe('w');
        expect(b.worker).toBe('w');
        expect(played).toBe(1);
      } finally {
        await w.close();
      }
    } finally {
      await q.close();
    }
  }, 30_000);
});
