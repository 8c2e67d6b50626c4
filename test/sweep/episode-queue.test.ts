/**
 * `memrl run --queue`: a run's episodes played by `memrl worker` processes through
 * BullMQ on a real redis-server, compared byte for byte (timestamps, durations and
 * cache provenance aside) with the same run in one process: with three workers, with a
 * worker killed while it holds a job, across a Redis restart that loses every queued
 * job, and with the run itself killed and resumed.
 *
 * ALFWorld's offline stand-in with the sim model, as in the kill-resume test:
 * multi-turn episodes, memory writing, validation before and after each epoch, four
 * batches of three per epoch. Needs the built bin/memrl.js and python3.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/processes.js';
import { SKIP_REDIS, startRedis, type RedisServer } from '../helpers/redis.js';
import { finalState, firstDifference } from '../helpers/run-state.js';

const BIN = resolve('bin/memrl.js');
const work = mkdtempSync(join(tmpdir(), 'memrl-episodes-'));
const CONFIG = 'llm: {provider: sim}\nembedding: {provider: local}\nmemrl:\n  alfworld:\n    env: standin\n    games_per_type: {train: 2, valid_seen: 1, valid_unseen: 1}\n';
const ARGS = ['run', 'alfworld', '--config', 'cfg.yaml', '--method', 'memrl', '--epochs', '3', '--batch-size', '3'];
const env = { ...process.env, OPENAI_API_KEY: '', MEMRL_CRASH_AT: '' };

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

function memrl(args: string[], opts: { crashAt?: string; onBanner?: (stderr: () => string) => void } = {}): Promise<Exit> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: work, env: { ...env, MEMRL_CRASH_AT: opts.crashAt ?? '' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      const before = stderr.includes('run folder:');
      stderr += d.toString();
      if (!before && stderr.includes('run folder:')) opts.onBanner?.(() => stderr);
    });
    child.on('close', (code, signal) => done({ code, signal, stderr }));
  });
}

interface Worker {
  child: ChildProcess;
  log: () => string;
  exited: Promise<NodeJS.Signals | number | null>;
}
const workers: Worker[] = [];

async function startWorker(redis: RedisServer, name: string, extra: string[] = [], crashAt = ''): Promise<Worker> {
  // The stand-in's episodes need no container engine; not probing one keeps a busy Podman (the
  // container suites run beside this one) from holding the worker's start for up to a minute.
  const args = [BIN, 'worker', '--queue', redis.url, '--name', name, '--without', 'containers', ...extra];
  const child = spawn(process.execPath, args, { cwd: work, env: { ...env, MEMRL_CRASH_AT: crashAt } });
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<NodeJS.Signals | number | null>((r) => child.on('close', (code, signal) => r(signal ?? code)));
  const w = { child, log: () => log, exited };
  workers.push(w);
  expect(await eventually(() => log.includes('taking cells'), 60_000, 50), log).toBe(true);
  return w;
}

/** The one run folder under an output dir. */
function runFolder(out: string): string {
  const root = join(work, out, 'alfworld');
  const dirs = existsSync(root) ? readdirSync(root).filter((d) => !d.includes('.tmp-')) : [];
  expect(dirs).toHaveLength(1);
  return join(root, dirs[0]!);
}

describe.skipIf(SKIP_REDIS)('memrl run --queue: episodes on memrl workers', () => {
  let redis: RedisServer;
  let reference: Record<string, unknown>;

  beforeAll(async () => {
    if (!existsSync(resolve('dist/src/runner/journal.js'))) throw new Error('build first: npm run build');
    writeFileSync(join(work, 'cfg.yaml'), CONFIG);
    redis = await startRedis();
    const r = await memrl([...ARGS, '--output-dir', 'ref']);
    expect(r.stderr).toMatch(/done: 3\/3/);
    reference = finalState(runFolder('ref'));
  }, 120_000);
  afterEach(async () => {
    for (const w of workers.splice(0)) {
      w.child.kill('SIGTERM');
      await w.exited;
    }
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('with three workers ends in the state of the run in one process', async () => {
    // One episode at a time each: a batch of three needs all three workers.
    const ws = await Promise.all(['w1', 'w2', 'w3'].map((n) => startWorker(redis, n, ['--episodes', '1'])));
    const r = await memrl([...ARGS, '--output-dir', 'three', '--queue', redis.url]);
    expect(r.stderr).toMatch(/note: episodes are played by workers on redis:\/\/127\.0\.0\.1:\d+ \(queue episodes\)/);
    expect(r.stderr).toMatch(/done: 3\/3/);
    expect(firstDifference(finalState(runFolder('three')), reference)).toBeUndefined();
    for (const w of ws) expect(w.log()).toContain(`playing episodes of ${runFolder('three')}`);
  }, 120_000);

  it('a worker killed while holding a job: another one plays it, nothing lost or counted twice', async () => {
    const doomed = await startWorker(redis, 'doomed', ['--episodes', '1'], 'episode-job:7');
    const survivor = await startWorker(redis, 'survivor', ['--episodes', '2']);
    const r = await memrl([...ARGS, '--output-dir', 'killed', '--queue', redis.url]);
    expect(await doomed.exited).toBe('SIGKILL');
    expect(r.stderr).toMatch(/done: 3\/3/);
    expect(firstDifference(finalState(runFolder('killed')), reference)).toBeUndefined();
    expect(survivor.log()).toContain('playing episodes of');
  }, 180_000);

  it('across a Redis restart that loses every queued job', async () => {
    await startWorker(redis, 'r1', ['--episodes', '2']);
    await startWorker(redis, 'r2', ['--episodes', '2']);
    let restartedMidRun = false;
    const r = await memrl([...ARGS, '--output-dir', 'restart', '--queue', redis.url], {
      // Right after the first of three epochs (a fixed delay raced runs that end sooner once workers open them early).
      onBanner: (stderr) => {
        const wait = setInterval(() => {
          if (!/epoch 1\/3/.test(stderr())) return;
          clearInterval(wait);
          restartedMidRun = !/done:/.test(stderr());
          redis.stop();
          setTimeout(() => void startRedis(redis.port).then((r2) => (redis = r2)), 1000);
        }, 5);
      },
    });
    expect(restartedMidRun).toBe(true);
    expect(r.stderr).toMatch(/done: 3\/3/);
    // Whatever it says about Redis (test/sweep/redis-loss.test.ts: which lines), it says in lines of its own, not as the client library's stack traces.
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stderr.split('\n').filter((l) => /redis|ECONN/i.test(l) && !l.startsWith('memrl: ') && !l.startsWith('  note: '))).toEqual([]);
    expect(firstDifference(finalState(runFolder('restart')), reference)).toBeUndefined();
  }, 180_000);

  it('the run killed and resumed with --queue: its journal decides, as in one process', async () => {
    await startWorker(redis, 'k1', ['--episodes', '4']);
    const killed = await memrl([...ARGS, '--output-dir', 'coord', '--queue', redis.url], { crashAt: 'journaled:20' });
    expect(killed.signal).toBe('SIGKILL');
    const dir = runFolder('coord');
    const r = await memrl(['run', 'alfworld', '--resume', dir, '--queue', redis.url]);
    expect(r.stderr).toMatch(/done: 3\/3/);
    expect(firstDifference(finalState(dir), reference)).toBeUndefined();
  }, 120_000);

  it('an unreachable Redis: one line naming the URL, nothing written', async () => {
    const started = Date.now();
    const r = await memrl([...ARGS, '--output-dir', 'nowhere', '--queue', 'redis://:secret@127.0.0.1:9']);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/redis:\/\/:\*\*\*@127\.0\.0\.1:9: Redis not reachable/);
    expect(r.stderr).not.toContain('secret');
    expect(existsSync(join(work, 'nowhere'))).toBe(false);
  }, 30_000);
});
