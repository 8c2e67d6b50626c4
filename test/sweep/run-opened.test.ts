/**
 * A run on the queue says when its run.json is written, and every listening worker opens
 * it then, before any of its episodes is queued (a BigCodeBench worker starts its
 * sandboxes, an ALFWorld one its bridge, while the run prepares its first batch). A run
 * folder a worker cannot see is left to the first episode, which says why.
 * Real redis-server and a real run folder (ALFWorld's offline stand-in, sim model).
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinRegistry } from '../../src/app/registry.js';
import { openEpisodeQueue, runsChannel } from '../../src/sweep/episode-queue.js';
import { QUEUE_PREFIX, queueTarget } from '../../src/sweep/queue.js';
import { startWorker } from '../../src/sweep/worker.js';
import { runAsync } from '../helpers/cli.js';
import { eventually } from '../helpers/processes.js';
import { SKIP_REDIS, startRedis, type RedisServer } from '../helpers/redis.js';

const BIN = resolve('bin/memrl.js');
const work = mkdtempSync(join(tmpdir(), 'memrl-run-opened-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.skipIf(SKIP_REDIS)('a run that says it is open', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  it('is opened by a listening worker before any episode is queued; a folder the worker cannot see is left alone', async () => {
    writeFileSync(join(work, 'cfg.yaml'), 'llm: {provider: sim}\nembedding: {provider: local}\nmemrl:\n  alfworld:\n    env: standin\n    games_per_type: {train: 1, valid_seen: 1, valid_unseen: 1}\n');
    const made = await runAsync(process.execPath, [BIN, 'run', 'alfworld', '--config', 'cfg.yaml', '--epochs', '1', '--output-dir', 'out'], { cwd: work, env: { ...process.env, OPENAI_API_KEY: '' } });
    expect(made.code, made.stderr).toBe(0);
    const runDir = join(work, 'out', 'alfworld', readdirSync(join(work, 'out', 'alfworld'))[0]!);

    let log = '';
    const worker = await startWorker({ url: redis.url, registry: builtinRegistry(), concurrency: 1, episodes: 2, name: 'w1', log: (t) => (log += t) });
    const queue = 'episodes'; // ALFWorld's stand-in needs no sandbox
    const probe = new Redis({ ...queueTarget(redis.url).connection });
    const run = await openEpisodeQueue(redis.url, queue);
    try {
      // Pub/sub keeps nothing for late listeners: wait until the worker listens.
      const listening = async (): Promise<boolean> => {
        const counts = (await probe.pubsub('NUMSUB', runsChannel(queue))) as [string, number];
        return Number(counts[1]) >= 1;
      };
      let heard = false;
      for (let i = 0; i < 100 && !heard; i++) {
        heard = await listening();
        if (!heard) await new Promise((r) => setTimeout(r, 50));
      }
      expect(heard).toBe(true);

      run.runOpened!(join(work, 'elsewhere'));
      run.runOpened!(runDir);
      expect(await eventually(() => log.includes(`playing episodes of ${runDir}`), 30_000, 50), log).toBe(true);
      expect(log).not.toContain('elsewhere');
      // Opened ahead: no job was queued or played.
      const jobs = new Queue(queue, { connection: { ...queueTarget(redis.url).connection }, prefix: QUEUE_PREFIX });
      const counts = await jobs.getJobCounts('waiting', 'active', 'completed', 'failed');
      await jobs.close();
      expect(counts).toEqual({ waiting: 0, active: 0, completed: 0, failed: 0 });
    } finally {
      probe.disconnect();
      await run.close();
      await worker.close();
    }
  }, 90_000);
});
