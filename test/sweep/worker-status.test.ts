/**
 * `memrl worker status`: an operator with workers on several machines sees what waits on
 * each queue and who listens to it, and why a job nobody takes sits there. Real
 * redis-server, a real worker, the built CLI.
 */
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinRegistry } from '../../src/app/registry.js';
import { QUEUE_PREFIX, queueTarget } from '../../src/sweep/queue.js';
import type { QueueStatus } from '../../src/sweep/queue-status.js';
import { startWorker, type RunningWorker } from '../../src/sweep/worker.js';
import { assertBuilt, runMemrl } from '../helpers/cli.js';
import { SKIP_REDIS, startRedis, type RedisServer } from '../helpers/redis.js';

describe.skipIf(SKIP_REDIS)('memrl worker status', () => {
  let redis: RedisServer;
  let worker: RunningWorker;
  beforeAll(async () => {
    assertBuilt();
    redis = await startRedis();
    // Only the queues of jobs that need nothing of the machine; the name has a space a Redis client name cannot hold.
    worker = await startWorker({ url: redis.url, registry: builtinRegistry(), concurrency: 1, episodes: 2, name: 'gpu box 1', without: ['bwrap', 'mariadb', 'containers'], log: () => undefined });
    // A sweep cell that needs MariaDB, which no connected worker has.
    const q = new Queue('cells-mariadb', { connection: { ...queueTarget(redis.url).connection, maxRetriesPerRequest: null }, prefix: QUEUE_PREFIX });
    await q.add('cell', { sweepDir: '/nowhere', sweepName: 'demo', cellId: 'llb-db' }, { jobId: 'demo-llb-db' });
    await q.close();
  }, 60_000);
  afterAll(async () => {
    await worker?.close();
    redis?.stop();
  });

  it('lists the queues with their jobs and the workers listening, and names what no worker can take', async () => {
    const r = await runMemrl(['worker', 'status', '--queue', redis.url], { cwd: process.cwd() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^cells-mariadb +1 +0 +0 +0 +0 +0$/m);
    expect(r.stdout).toMatch(/^episodes +0 +0 +0 +0 +0 +1$/m);
    expect(r.stdout).toMatch(/^ {2}gpu_box_1 {2}127\.0\.0\.1:\d+ {2}connected \d+ s {2}cells, episodes$/m);
    expect(r.stdout).toContain('cells-mariadb: 1 job(s) wait and no worker listens (the queue needs mariadb;');
  }, 60_000);

  it('gives the same as JSON', async () => {
    const r = await runMemrl(['worker', 'status', '--queue', redis.url, '--json'], { cwd: process.cwd() });
    expect(r.code, r.stderr).toBe(0);
    const st = JSON.parse(r.stdout) as QueueStatus;
    expect(st.queues.find((q) => q.queue === 'cells-mariadb')).toMatchObject({ needs: ['mariadb'], waiting: 1, workers: [] });
    expect(st.queues.find((q) => q.queue === 'cells')).toMatchObject({ waiting: 0, workers: ['gpu_box_1'] });
    expect(st.workers.map((w) => [w.name, w.queues])).toEqual([['gpu_box_1', ['cells', 'episodes']]]);
  }, 60_000);

  it('fails in one line naming the URL when nothing answers there', async () => {
    const r = await runMemrl(['worker', 'status', '--queue', 'redis://127.0.0.1:1'], { cwd: process.cwd() });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/^memrl: redis:\/\/127\.0\.0\.1:1: Redis not reachable \(ECONNREFUSED\)/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  }, 30_000);
});
