/**
 * memrl.llm.rate_limit: calls to an endpoint spaced 1/rate apart, in one process and,
 * kept in a real redis-server, across the processes of a `--queue` run (the run and its
 * workers draw from one limit). The end-to-end case counts the requests a loopback
 * OpenAI-compatible server receives from two workers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalRateGate } from '../../src/llm/rate-gate.js';
import { queueTarget } from '../../src/sweep/queue.js';
import { redisRateGates } from '../../src/sweep/redis-rate-gate.js';
import { startOpenAIServer, type OpenAITestServer } from '../helpers/openai-server.js';
import { eventually } from '../helpers/processes.js';
import { SKIP_REDIS, startRedis, type RedisServer } from '../helpers/redis.js';

/** The largest number of times falling in any window of `ms`. */
function busiestWindow(times: number[], ms: number): number {
  const t = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < t.length; i++) {
    while (t[i]! - t[j]! >= ms) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

describe('rate gate in one process', () => {
  it('spaces calls 1/rate apart, whoever asks', async () => {
    const gate = new LocalRateGate(20);
    const start = Date.now();
    const times = await Promise.all(Array.from({ length: 10 }, () => gate.acquire().then(() => Date.now() - start)));
    // The 10th call waits for 9 intervals of 50 ms; never more than 20 in a second.
    expect(Math.max(...times)).toBeGreaterThanOrEqual(440);
    expect(busiestWindow(times, 250)).toBeLessThanOrEqual(6);
  });
});

describe.skipIf(SKIP_REDIS)('rate limit shared through Redis', () => {
  let redis: RedisServer;
  let srv: OpenAITestServer;
  const work = mkdtempSync(join(tmpdir(), 'memrl-rate-'));
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const w of workers) w.kill('SIGKILL');
    await srv?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('two processes with their own connections draw from one limit', async () => {
    const a = redisRateGates(queueTarget(redis.url));
    const b = redisRateGates(queueTarget(redis.url));
    try {
      const ga = a.factory('http://endpoint|m', 20);
      const gb = b.factory('http://endpoint|m', 20);
      const start = Date.now();
      const times = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? ga : gb).acquire().then(() => Date.now() - start)));
      expect(Math.max(...times)).toBeGreaterThanOrEqual(530);
      expect(busiestWindow(times, 250)).toBeLessThanOrEqual(6);
      // Another endpoint has its own limit: no wait behind the first one's queue.
      const t0 = Date.now();
      await a.factory('http://other|m', 20).acquire();
      expect(Date.now() - t0).toBeLessThan(200);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a --queue run with --rate-limit: the endpoint never sees more than the limit, from all workers together', async () => {
    const seen: number[] = [];
    srv = await startOpenAIServer({
      chat: () => {
        seen.push(Date.now());
        return 'THOUGHT: look around\nACTION: look';
      },
    });
    const cfg = `llm: {provider: openai, base_url: "${srv.url}", model: m, api_key: sk-test}\nembedding: {provider: local}\nexperiment: {max_steps: 6}\nmemrl:\n  alfworld:\n    env: standin\n    games_per_type: {train: 1, valid_seen: 1, valid_unseen: 1}\n`;
    writeFileSync(join(work, 'cfg.yaml'), cfg);
    const bin = resolve('bin/memrl.js');
    for (const name of ['a', 'b']) {
      // No engine probe: the stand-in needs none, and a busy Podman can hold a worker's start (episode-queue.test.ts).
      const args = [bin, 'worker', '--queue', redis.url, '--name', name, '--episodes', '4', '--without', 'containers'];
      const w = spawn(process.execPath, args, { cwd: work, env: { ...process.env, OPENAI_API_KEY: 'sk-test' } });
      let log = '';
      w.stderr!.on('data', (d: Buffer) => (log += d.toString()));
      workers.push(w);
      expect(await eventually(() => log.includes('taking cells'), 60_000, 50), log).toBe(true);
    }
    const run = spawn(process.execPath, [bin, 'run', 'alfworld', '--config', 'cfg.yaml', '--epochs', '1', '--no-run-validation', '--queue', redis.url, '--rate-limit', '10'], {
      cwd: work,
      env: { ...process.env, OPENAI_API_KEY: 'sk-test' },
    });
    let stderr = '';
    run.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => run.on('close', r));
    expect(code, stderr).toBe(0);
    // 6 games × up to 6 turns: enough calls that, unlimited, several would land in one 100 ms.
    expect(seen.length).toBeGreaterThanOrEqual(20);
    // Slots are 100 ms apart; a call sent a little late (a busy worker) may land beside the next one, never more.
    expect(busiestWindow(seen, 2000)).toBeLessThanOrEqual(22);
    expect((Math.max(...seen) - Math.min(...seen)) / 1000).toBeGreaterThanOrEqual((seen.length - 1) / 10 - 0.2);
  }, 120_000);
});
