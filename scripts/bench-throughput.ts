/**
 * Throughput of the runner against a loopback OpenAI-compatible server that answers
 * every chat call after 200 ms: tasks per second at concurrency 1, 8 and 32, memory
 * commits included, against the Little's-law limit c / (calls per task × 0.2 s), and how
 * busy the run's thread was (its event-loop utilization: the server runs on another).
 *
 * A run of 512 tasks at 32 comes first and is not counted: a fresh process spends its
 * first seconds in code the JIT has not optimized yet (the same 1024-task run took
 * ~0.6 s more of the run's thread the first time in a process than the second), which
 * a run of hours does not see. BENCH_THROUGHPUT_COLD=1 leaves it out, to measure that.
 * Prints numbers; asserts nothing.  npm run bench:throughput
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchRun, benchTasks, startLoopback, type Loopback } from './bench-loopback.js';

const DELAY_S = 0.2;

async function main(): Promise<void> {
  const server = await startLoopback(DELAY_S * 1000);
  const root = mkdtempSync(join(tmpdir(), 'memrl-bench-tp-'));
  try {
    const cold = process.env.BENCH_THROUGHPUT_COLD === '1';
    console.log(`loopback server: every chat reply after ${DELAY_S * 1000} ms; method memrl (agent call + memory-writing call per task), 1 epoch`);
    if (!cold) {
      const warm = await measure(server, 32, 512, join(root, 'warm-up'));
      console.log(`warm-up, not counted: 512 tasks at 32 in ${warm.wall.toFixed(2)} s, ${warm.pct.toFixed(1)}% of the limit (BENCH_THROUGHPUT_COLD=1 skips it)`);
    }
    console.log('concurrency  tasks  calls  wall_s  tasks/s  limit/s  %limit  thread_busy');
    for (const c of [1, 8, 32]) {
      // About 13 s of ideal time at every concurrency: long enough that start-up (loading,
      // key embeddings, the manifest) is not what is measured, short enough for a bench.
      const m = await measure(server, c, c * 32, join(root, `c${c}`));
      console.log(
        `${String(c).padStart(11)}  ${String(m.tasks).padStart(5)}  ${String(m.calls).padStart(5)}  ${m.wall.toFixed(2).padStart(6)}  ${m.rate.toFixed(2).padStart(7)}  ${m.limit.toFixed(2).padStart(7)}  ${m.pct.toFixed(1).padStart(5)}%  ${(100 * m.busy).toFixed(0).padStart(10)}%`,
      );
    }
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

interface Measured {
  tasks: number;
  calls: number;
  wall: number;
  rate: number;
  limit: number;
  pct: number;
  busy: number;
}

async function measure(server: Loopback, c: number, n: number, runDir: string): Promise<Measured> {
  const tasks = benchTasks(n);
  const before = server.calls();
  const t0 = performance.now();
  const elu0 = performance.eventLoopUtilization();
  // Batch = 4c tasks: a barrier every 4 rounds, so commits are part of the measurement.
  await benchRun({ url: server.url, tasks, epochs: 1, concurrency: c, batchSize: c * 4, runDir });
  const wall = (performance.now() - t0) / 1000;
  const busy = performance.eventLoopUtilization(elu0).utilization;
  const calls = server.calls() - before;
  const rate = tasks.length / wall;
  const limit = c / ((calls / tasks.length) * DELAY_S);
  return { tasks: tasks.length, calls, wall, rate, limit, pct: (100 * rate) / limit, busy };
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
