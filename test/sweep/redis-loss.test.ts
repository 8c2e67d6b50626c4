/**
 * What a `memrl run --queue` says when its Redis goes away and comes back empty (a
 * restart without persistence): one line when it is lost, one naming the queued jobs it
 * no longer has (queued again), one when it answers again. The dispatcher against a real
 * redis-server, with no worker, so the job stays queued across the restart.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openEpisodeQueue } from '../../src/sweep/episode-queue.js';
import { QUEUE_PREFIX } from '../../src/sweep/queue.js';
import type { EpisodeDispatcher } from '../../src/runner/remote-episodes.js';
import { eventually } from '../helpers/processes.js';
import { SKIP_REDIS, startRedis, type RedisServer } from '../helpers/redis.js';
import { spawnSync } from 'node:child_process';

const QUEUE = 'episodes-redis-loss-test';

/** How many keys of the queue's jobs Redis holds (redis-cli: the test reads Redis the way a user would). */
function jobKeys(redis: RedisServer): number {
  const out = spawnSync('redis-cli', ['-p', String(redis.port), '--scan', '--pattern', `${QUEUE_PREFIX}:${QUEUE}:*-train-*`], { encoding: 'utf8' }).stdout;
  return out.split('\n').filter((k) => k && !k.endsWith(':lock') && !k.endsWith(':logs')).length;
}

describe.skipIf(SKIP_REDIS)('a lost Redis, as a --queue run reports it', () => {
  let redis: RedisServer | undefined;
  let queue: EpisodeDispatcher | undefined;
  afterEach(async () => {
    await queue?.close();
    redis?.stop();
  });

  it('one line when it goes, one naming the lost jobs it queues again, one when it is back; no stack traces', async () => {
    redis = await startRedis();
    const lines: string[] = [];
    queue = await openEpisodeQueue(redis.url, QUEUE, { pollMs: 200, warn: (line) => lines.push(line) });
    void queue.play({ runDir: '/nowhere/run', phase: 'train', epoch: 1, batch: 0, taskIndex: 0, taskId: 't0', memories: [] }).catch(() => undefined);
    expect(await eventually(() => jobKeys(redis!) === 1, 10_000, 50)).toBe(true);

    redis.stop();
    // Longer than the client's first reconnect delay (1 s), so the reconnect fails while Redis is away.
    expect(await eventually(() => lines.some((l) => l.startsWith('memrl: lost Redis')), 10_000, 50)).toBe(true);
    redis = await startRedis(redis.port);
    expect(await eventually(() => jobKeys(redis!) === 1, 15_000, 100), lines.join('')).toBe(true);
    expect(await eventually(() => lines.some((l) => l.includes('answers again')), 5_000, 50)).toBe(true);

    const text = lines.join('');
    expect(text).toMatch(new RegExp(`^memrl: lost Redis at redis://127\\.0\\.0\\.1:${redis.port} \\(.+\\); waiting for it; what it lost is queued again once it answers\\n`));
    expect(text).toMatch(new RegExp(`memrl: Redis at redis://127\\.0\\.0\\.1:${redis.port} no longer has 1 queued episode job\\(s\\) \\(restarted without persistence\\?\\); queuing them again\\n`));
    expect(text).toMatch(new RegExp(`memrl: Redis at redis://127\\.0\\.0\\.1:${redis.port} answers again\\n`));
    expect(lines.filter((l) => l.startsWith('memrl: lost Redis'))).toHaveLength(1);
    expect(lines.every((l) => /^memrl: [^\n]+\n$/.test(l))).toBe(true);
  }, 60_000);

  it('closes promptly after a long outage, though a connection is still waiting to reconnect', async () => {
    redis = await startRedis();
    const lines: string[] = [];
    queue = await openEpisodeQueue(redis.url, `${QUEUE}-close`, { pollMs: 200, warn: (line) => lines.push(line), closeGraceMs: 1_000 });
    redis.stop();
    // BullMQ's clients retry every second at first, then 3 s, then 8 s apart: 12 s away leaves them in a long wait.
    await new Promise((r) => setTimeout(r, 12_000));
    redis = await startRedis(redis.port);
    const started = Date.now();
    const closing = queue.close().then(() => Date.now() - started);
    queue = undefined;
    const took = await Promise.race([closing, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 10_000))]);
    expect(took).not.toBe('hung');
    expect(took).toBeLessThan(3_000);
    expect(lines.filter((l) => l.includes('did not close'))).toEqual([`memrl: the connections to Redis at redis://127.0.0.1:${redis.port} did not close within 1 s; dropped them\n`]);
  }, 60_000);
});
