/**
 * Throughput of a distributed run: `memrl run --queue` with 1, 2 and 4 `memrl worker`
 * processes (8 episodes at once each) on a local redis-server, against a loopback
 * OpenAI-compatible server that answers every chat call after 200 ms. Episodes per
 * second next to the Little's-law limit of the workers' slots, workers × 8 / (agent
 * calls per episode × 0.2 s).
 *
 * The arithmetic example plug-in (one agent call per episode), 1 epoch, three batches of
 * 16 rounds of the workers' slots (9.6 s of ideal time per run). Two methods on the same
 * workers: none (no memory: the queue's and the workers' own cost) and memrl, whose run
 * also writes each episode's memory through the model (one call per task, in the run's
 * own process) and waits for the last of those writes at every barrier.
 *
 * Workers are long-lived: a worker process pays for loading its modules (and tsx, for a
 * TS plug-in) once, on the first run it serves. Each set of workers serves a short run
 * first, not measured; BENCH_SCALE_COLD=1 measures fresh workers' first run instead.
 * A second table says where each run's wall time went, from the jobs' own timestamps in
 * Redis and the commit times of the run's memories.
 *
 * Prints numbers; asserts nothing.  npm run bench:scale  (needs bash scripts/setup.sh redis)
 * BENCH_SCALE_WORKERS=4 measures one worker count; BENCH_SCALE_METHODS=rag,memp others.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { runJobPrefix } from '../src/sweep/episode-queue.js';
import { QUEUE_PREFIX, queueName } from '../src/sweep/queue.js';
import { freePort } from '../src/util/free-port.js';
import { startLoopback, type Loopback } from './bench-loopback.js';

const DELAY_S = 0.2;
const SLOTS = 8;
const BIN = resolve('bin/memrl.js');
const PLUGIN = resolve('examples/plugins/arithmetic/index.ts');
const METHODS = (process.env.BENCH_SCALE_METHODS ?? 'none,memrl').split(',');
const COLD = process.env.BENCH_SCALE_COLD === '1';

/** One worker count's runs: the queue, the loopback endpoint, the bench's folder. */
interface Setting {
  url: string;
  server: Loopback;
  root: string;
  workers: number;
}

async function waitFor(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`bench:scale: ${what} did not happen in ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function startWorkers(url: string, n: number, cwd: string): Promise<ChildProcess[]> {
  const out: ChildProcess[] = [];
  for (let i = 0; i < n; i++) {
    const w = spawn(process.execPath, [BIN, 'worker', '--queue', url, '--episodes', String(SLOTS), '--name', `w${i + 1}`], { cwd, env: { ...process.env, OPENAI_API_KEY: 'sk-bench' } });
    let log = '';
    w.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    await waitFor(() => log.includes('taking cells'), 60_000, `worker ${i + 1} start`);
    out.push(w);
  }
  return out;
}

/** `at.workers` new worker processes for the length of `use`. */
async function withWorkers(at: Setting, use: () => Promise<void>): Promise<void> {
  const procs = await startWorkers(at.url, at.workers, at.root);
  try {
    await use();
  } finally {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.on('close', r)))));
  }
}

/** When (epoch ms) the run printed its banner (tasks loaded, run folder made) and when it exited. */
function timedRun(args: string[], cwd: string): Promise<{ banner: number; exit: number }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, OPENAI_API_KEY: 'sk-bench' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let banner = 0;
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (!banner && stderr.includes('run folder:')) banner = Date.now();
    });
    child.on('close', (code) => (code === 0 ? done({ banner, exit: Date.now() }) : fail(new Error(`memrl run exited ${code}: ${stderr.slice(-2000)}`))));
  });
}

/** The model calls the run's own process made (the memory writer's), from its log. */
function writerCalls(runDir: string): number {
  return readFileSync(join(runDir, 'log.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('"event":"chat"')).length;
}

/** Seconds of a run's wall time, by what it was waiting for. */
interface Breakdown {
  /** Banner to the first episode started on a worker (opening the run, the first retrieval and jobs). */
  startUp: number;
  /** First episode started to last episode finished, in each batch. */
  episodes: number[];
  /** Last episode of a batch finished to the batch's commit: the last memory writes, then the commit. */
  writes: number;
  /** A commit to the next batch's first episode started: retrieval, queuing, a worker taking the job. */
  barriers: number;
  /** The last commit to the run's exit: its last files. */
  end: number;
}

/**
 * Where a run's wall time went. Episode start and finish times are the jobs' own
 * (processedOn and finishedOn, set by the workers); a batch's commit time is its
 * memories' createdAt. All clocks are this machine's.
 */
async function breakdown(url: string, runDir: string, batchSize: number, times: { banner: number; exit: number }): Promise<Breakdown> {
  const redis = new Redis(url);
  try {
    const pattern = `${QUEUE_PREFIX}:${queueName([], 'episodes')}:${runJobPrefix(runDir)}-train-*`;
    // A job's own hash, not its lock or logs (job ids hold no colon).
    const keys = (await redis.keys(pattern)).filter((k) => !k.slice(pattern.length - 1).includes(':'));
    const stamps = await Promise.all(keys.map((k) => redis.hmget(k, 'processedOn', 'finishedOn')));
    const batches = new Map<number, { start: number; finish: number }>();
    keys.forEach((k, i) => {
      const b = Number(/-b(\d+)-t\d+-/.exec(k)?.[1]);
      const [start, finish] = (stamps[i] ?? []).map(Number) as [number, number];
      const seen = batches.get(b);
      batches.set(b, { start: Math.min(seen?.start ?? Infinity, start), finish: Math.max(seen?.finish ?? 0, finish) });
    });
    const commits = new Map<number, number>();
    for (const line of readFileSync(join(runDir, 'memories.jsonl'), 'utf8').split('\n').filter(Boolean)) {
      const m = JSON.parse(line) as { id: string; createdAt: number };
      const b = Math.floor(Number(/-t(\d+)$/.exec(m.id)?.[1]) / batchSize);
      commits.set(b, Math.max(commits.get(b) ?? 0, m.createdAt));
    }
    const order = [...batches.keys()].sort((a, b) => a - b);
    // A method that stores no memories leaves no commit time: its barrier is counted from the last episode.
    const at = (b: number): { start: number; finish: number; commit: number } => ({ ...batches.get(b)!, commit: commits.get(b) ?? batches.get(b)!.finish });
    const sec = (ms: number[]): number => ms.reduce((a, x) => a + x, 0) / 1000;
    return {
      startUp: sec([at(order[0]!).start - times.banner]),
      episodes: order.map((b) => sec([at(b).finish - at(b).start])),
      writes: sec(order.map((b) => at(b).commit - at(b).finish)),
      barriers: sec(order.slice(1).map((b, i) => at(b).start - at(order[i]!).commit)),
      end: sec([times.exit - at(order.at(-1)!).commit]),
    };
  } finally {
    redis.disconnect();
  }
}

/** A run of `episodes` tasks in batches of `batch` on the workers; its run folder and when it started and ended. */
async function queuedRun(at: Setting, name: string, method: string, episodes: number, batch: number): Promise<{ runDir: string; times: { banner: number; exit: number } }> {
  writeFileSync(
    join(at.root, `${name}.yaml`),
    `llm: {provider: openai, base_url: "${at.server.url}", model: bench-model, api_key: sk-bench, temperature: 0.7}\nembedding: {provider: local}\nmemrl:\n  arithmetic: {train: ${episodes}, valid: 0}\n`,
  );
  const out = join(at.root, `out-${name}`);
  const times = await timedRun(
    ['run', 'arithmetic', '--plugin', PLUGIN, '--config', `${name}.yaml`, '--method', method, '--epochs', '1', '--batch-size', String(batch), '--no-run-validation', '--output-dir', out, '--queue', at.url],
    at.root,
  );
  return { runDir: join(out, 'arithmetic', readdirSync(join(out, 'arithmetic'))[0]!), times };
}

/** One measured run: prints its row, returns where its time went. */
async function measure(at: Setting, method: string): Promise<Breakdown> {
  const slots = at.workers * SLOTS;
  // Three whole batches of 16 rounds (9.6 s ideal): no short last batch.
  const batch = slots * 16;
  const before = at.server.calls();
  const { runDir, times } = await queuedRun(at, `w${at.workers}-${method}`, method, batch * 3, batch);
  const wall = (times.exit - times.banner) / 1000;
  const calls = at.server.calls() - before;
  const finished = readFileSync(join(runDir, 'outcomes.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => Date.parse((JSON.parse(l) as { finishedAt: string }).finishedAt));
  const rows = finished.length;
  const endOf = (from: number, to: number): number => Math.max(...finished.slice(from, to));
  const steady = (rows - batch) / ((endOf(0, rows) - endOf(0, batch)) / 1000);
  // The agent's calls happen on the workers; the memory writer's (one per task, if the method writes through the model) in the run's process.
  const agentCalls = calls - writerCalls(runDir);
  const limit = slots / ((agentCalls / rows) * DELAY_S);
  const rate = rows / wall;
  console.log(
    `${String(at.workers).padStart(7)}  ${method.padEnd(6)}  ${String(rows).padStart(8)}  ${String(calls).padStart(5)}  ${wall.toFixed(2).padStart(6)}  ${rate.toFixed(2).padStart(10)}  ${limit.toFixed(2).padStart(7)}  ${((100 * rate) / limit).toFixed(1).padStart(5)}%  ${steady.toFixed(2).padStart(8)}  ${((100 * steady) / limit).toFixed(1).padStart(6)}%`,
  );
  return breakdown(at.url, runDir, batch, times);
}

async function main(): Promise<void> {
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status !== 0) throw new Error('bench:scale needs redis-server: bash scripts/setup.sh redis');
  const server = await startLoopback(DELAY_S * 1000);
  const port = await freePort();
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  const root = mkdtempSync(join(tmpdir(), 'memrl-bench-scale-'));
  try {
    await new Promise((r) => setTimeout(r, 300));
    console.log(`loopback server: every chat reply after ${DELAY_S * 1000} ms; arithmetic plug-in, 1 epoch; ${SLOTS} episodes at once per worker; ${COLD ? "fresh workers' first run" : 'workers warmed by a short run first'}`);
    // The next batch retrieves from what the last episodes' memory writes make: a batch of 16 rounds lasts at least 17 calls.
    for (const m of METHODS.filter((m) => m === 'memrl' || m === 'memp')) {
      console.log(`ceiling of method ${m} here: each batch ends with its last memory writes (${DELAY_S * 1000} ms), so at most 16/17 = ${((100 * 16) / 17).toFixed(1)}% of the limit`);
    }
    // steady: batches 2 and 3 only (from the end of the first batch to the end of the last), without the run's start-up.
    console.log('workers  method  episodes  calls  wall_s  episodes/s  limit/s  %limit  steady/s  %steady');
    const spent: [string, Breakdown][] = [];
    for (const workers of (process.env.BENCH_SCALE_WORKERS ?? '1,2,4').split(',').map(Number)) {
      const at: Setting = { url, server, root, workers };
      const measured = async (method: string): Promise<void> => void spent.push([`${String(workers).padStart(7)}  ${method.padEnd(6)}`, await measure(at, method)]);
      if (COLD) {
        for (const method of METHODS) await withWorkers(at, () => measured(method));
      } else {
        await withWorkers(at, async () => {
          // Two batches of one round: every worker loads what a run needs.
          await queuedRun(at, `w${workers}-warm`, 'none', 2 * workers * SLOTS, workers * SLOTS);
          for (const method of METHODS) await measured(method);
        });
      }
    }
    console.log(`\nwhere the wall time went (s): episodes = first episode started to last finished, each batch (${(16 * DELAY_S).toFixed(1)} s if every round took ${DELAY_S * 1000} ms);`);
    console.log('writes = last episode finished to the commit (the last memory writes); barriers = a commit to the next first episode');
    console.log('workers  method  start-up  episodes            writes  barriers   end   wall');
    for (const [label, b] of spent) {
      const total = [b.startUp, ...b.episodes, b.writes, b.barriers, b.end].reduce((a, x) => a + x, 0);
      const cols = [b.startUp.toFixed(2).padStart(8), b.episodes.map((x) => x.toFixed(2)).join(' + ').padEnd(18), b.writes.toFixed(2).padStart(6), b.barriers.toFixed(2).padStart(8), b.end.toFixed(2).padStart(5), total.toFixed(2).padStart(5)];
      console.log(`${label}  ${cols.join('  ')}`);
    }
  } finally {
    redis.kill('SIGKILL');
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
