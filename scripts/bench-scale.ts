/**
 * Throughput of a distributed run: `memrl run --queue` with 1, 2 and 4 `memrl worker`
 * processes (8 episodes at once each) on a local redis-server, against a loopback
 * OpenAI-compatible server that answers every chat call after 200 ms. Episodes per
 * second next to the Little's-law limit of the workers' slots, workers × 8 / (agent
 * calls per episode × 0.2 s). The run writes memories through the model too (one call
 * per task, in the run's own process, after each episode).
 *
 * The arithmetic example plug-in (one agent call per episode), method memrl, 1 epoch,
 * three batches of 16 rounds of the workers' slots (9.6 s of ideal time per setting).
 * Prints numbers; asserts nothing.  npm run bench:scale  (needs bash scripts/setup.sh redis)
 * BENCH_SCALE_WORKERS=4 npm run bench:scale measures one setting only.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../src/util/free-port.js';
import { startLoopback } from './bench-loopback.js';

const DELAY_S = 0.2;
const SLOTS = 8;
const BIN = resolve('bin/memrl.js');
const PLUGIN = resolve('examples/plugins/arithmetic/index.ts');

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

/** Seconds from the run's banner (tasks loaded, run folder made) to its exit. */
function timedRun(args: string[], cwd: string): Promise<number> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, OPENAI_API_KEY: 'sk-bench' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let t0 = 0;
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (!t0 && stderr.includes('run folder:')) t0 = performance.now();
    });
    child.on('close', (code) => (code === 0 ? done((performance.now() - t0) / 1000) : fail(new Error(`memrl run exited ${code}: ${stderr.slice(-2000)}`))));
  });
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
    console.log(`loopback server: every chat reply after ${DELAY_S * 1000} ms; arithmetic plug-in, method memrl, 1 epoch; ${SLOTS} episodes at once per worker`);
    // The next batch retrieves from what the last episodes' memory writes make: a batch of 16 rounds lasts at least 17 calls.
    console.log(`ceiling of method memrl here: each batch ends with its last memory writes (${DELAY_S * 1000} ms), so at most 16/17 = ${((100 * 16) / 17).toFixed(1)}% of the limit`);
    // steady: batches 2 and 3 only (from the end of the first batch to the end of the last), without the run's start-up.
    console.log('workers  episodes  calls  wall_s  episodes/s  limit/s  %limit  steady/s  %steady');
    for (const workers of (process.env.BENCH_SCALE_WORKERS ?? '1,2,4').split(',').map(Number)) {
      const slots = workers * SLOTS;
      // Three whole batches of 16 rounds (9.6 s ideal): no short last batch.
      const batch = slots * 16;
      const episodes = batch * 3;
      writeFileSync(
        join(root, `w${workers}.yaml`),
        `llm: {provider: openai, base_url: "${server.url}", model: bench-model, api_key: sk-bench, temperature: 0.7}\nembedding: {provider: local}\nmemrl:\n  arithmetic: {train: ${episodes}, valid: 0}\n`,
      );
      const procs = await startWorkers(url, workers, root);
      try {
        const before = server.calls();
        const out = join(root, `out-w${workers}`);
        const wall = await timedRun(
          ['run', 'arithmetic', '--plugin', PLUGIN, '--config', `w${workers}.yaml`, '--method', 'memrl', '--epochs', '1', '--batch-size', String(batch), '--no-run-validation', '--output-dir', out, '--queue', url],
          root,
        );
        const calls = server.calls() - before;
        const runDir = join(out, 'arithmetic', readdirSync(join(out, 'arithmetic'))[0]!);
        const finished = readFileSync(join(runDir, 'outcomes.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => Date.parse((JSON.parse(l) as { finishedAt: string }).finishedAt));
        const rows = finished.length;
        const endOf = (from: number, to: number): number => Math.max(...finished.slice(from, to));
        const steady = (rows - batch) / ((endOf(0, rows) - endOf(0, batch)) / 1000);
        // The agent's calls happen on the workers; the memory writer's (one per task) in the run's process.
        const agentCalls = calls - rows;
        const limit = slots / ((agentCalls / rows) * DELAY_S);
        const rate = rows / wall;
        console.log(
          `${String(workers).padStart(7)}  ${String(rows).padStart(8)}  ${String(calls).padStart(5)}  ${wall.toFixed(2).padStart(6)}  ${rate.toFixed(2).padStart(10)}  ${limit.toFixed(2).padStart(7)}  ${((100 * rate) / limit).toFixed(1).padStart(5)}%  ${steady.toFixed(2).padStart(8)}  ${((100 * steady) / limit).toFixed(1).padStart(6)}%`,
        );
      } finally {
        for (const p of procs) p.kill('SIGTERM');
        await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.on('close', r)))));
      }
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
