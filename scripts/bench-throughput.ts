/**
 * Throughput of the runner against a loopback OpenAI-compatible server that answers
 * every chat call after 200 ms: tasks per second at concurrency 1, 8 and 32, memory
 * commits included, against the Little's-law limit c / (calls per task × 0.2 s), and how
 * busy the run's thread was (its event-loop utilization: the server runs on another).
 * Prints numbers; asserts nothing.  npm run bench:throughput
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchRun, benchTasks, startLoopback } from './bench-loopback.js';

const DELAY_S = 0.2;

async function main(): Promise<void> {
  const server = await startLoopback(DELAY_S * 1000);
  const root = mkdtempSync(join(tmpdir(), 'memrl-bench-tp-'));
  try {
    console.log(`loopback server: every chat reply after ${DELAY_S * 1000} ms; method memrl (agent call + memory-writing call per task), 1 epoch`);
    console.log('concurrency  tasks  calls  wall_s  tasks/s  limit/s  %limit  thread_busy');
    for (const c of [1, 8, 32]) {
      // About 13 s of ideal time at every concurrency: long enough that start-up (loading,
      // key embeddings, the manifest) is not what is measured, short enough for a bench.
      const tasks = benchTasks(c * 32);
      const before = server.calls();
      const t0 = performance.now();
      const elu0 = performance.eventLoopUtilization();
      // Batch = 4c tasks: a barrier every 4 rounds, so commits are part of the measurement.
      await benchRun({ url: server.url, tasks, epochs: 1, concurrency: c, batchSize: c * 4, runDir: join(root, `c${c}`) });
      const wall = (performance.now() - t0) / 1000;
      const busy = performance.eventLoopUtilization(elu0).utilization;
      const calls = server.calls() - before;
      const perTask = calls / tasks.length;
      const rate = tasks.length / wall;
      const limit = c / (perTask * DELAY_S);
      console.log(
        `${String(c).padStart(11)}  ${String(tasks.length).padStart(5)}  ${String(calls).padStart(5)}  ${wall.toFixed(2).padStart(6)}  ${rate.toFixed(2).padStart(7)}  ${limit.toFixed(2).padStart(7)}  ${((100 * rate) / limit).toFixed(1).padStart(5)}%  ${(100 * busy).toFixed(0).padStart(10)}%`,
      );
    }
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
