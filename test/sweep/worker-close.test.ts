/**
 * A worker told to stop while Redis is away still stops: BullMQ's own close can wait
 * forever on a connection left reconnecting (taskforcesh/bullmq#4656), so once no job is
 * in hand the worker gives it a grace period, says so, and lets go of its connections.
 * Real redis-server, killed under the worker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinRegistry } from '../../src/app/registry.js';
import { startWorker } from '../../src/sweep/worker.js';
import { SKIP_REDIS, startRedis, type RedisServer } from '../helpers/redis.js';

describe.skipIf(SKIP_REDIS)('a worker stopping without Redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  it('stops within its grace period after Redis goes away, and says why', async () => {
    let log = '';
    const worker = await startWorker({ url: redis.url, registry: builtinRegistry(), concurrency: 1, episodes: 1, name: 'w1', closeGraceMs: 1000, log: (t) => (log += t) });
    redis.stop();
    await new Promise((r) => setTimeout(r, 500));
    const started = Date.now();
    await worker.close();
    const took = Date.now() - started;
    expect(took, log).toBeLessThan(5000);
    expect(log).toMatch(/worker w1: the queue's connections to redis:\/\/127\.0\.0\.1:\d+ did not close within 1 s of the last job; stopping without them/);
  }, 30_000);
});
