/**
 * npm run bench:startup: how long the CLI takes to answer before it does any work.
 * Median wall time over 10 runs of `memrl --help` and `memrl run bcb --help`, next to
 * `node -e 0` (Node's own start) as the baseline. Goal: ≤ 200 ms median on a 2-core machine.
 */
import { spawnSync } from 'node:child_process';
import { asset } from '../src/util/paths.js';

const RUNS = 10;
const GOAL_MS = 200;
const BIN = asset('bin', 'memrl.js');

function medianMs(args: string[]): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    times.push(ms);
  }
  times.sort((a, b) => a - b);
  return (times[RUNS / 2 - 1]! + times[RUNS / 2]!) / 2;
}

const rows: [string, string[]][] = [
  ['node -e 0 (baseline)', ['-e', '0']],
  ['memrl --help', [BIN, '--help']],
  ['memrl run bcb --help', [BIN, 'run', 'bcb', '--help']],
];
console.log(`median wall time over ${RUNS} runs (goal: memrl commands <= ${GOAL_MS} ms)`);
for (const [label, args] of rows) {
  const ms = medianMs(args);
  const verdict = label.startsWith('node') ? '' : ms <= GOAL_MS ? '  ok' : '  over the goal';
  console.log(`${label.padEnd(24)} ${ms.toFixed(0).padStart(6)} ms${verdict}`);
}
