/**
 * Writes data/bcb-gold-durations.json, the durations a machine's first gold check
 * orders its tasks by (src/bench/bcb/gold-durations.ts), from the durations this
 * machine kept in its own checks. Run a full check first, at the parallelism users
 * run (the times of 2 slots sharing 2 cores are what the order has to predict):
 *
 *   npm run gold:bcb && node dist/scripts/ship-gold-durations.js [--from <kept file>]
 *
 * Refuses to write unless every task of the dataset has a time for its current
 * solution and tests: a partial file would leave the rest to the median.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { compareTaskIds, readBcbTasks } from '../src/bench/bcb/dataset.js';
import { currentMs, goldDurationsPath, readGoldDurations, shippedGoldDurationsPath, taskSha, type GoldDurations } from '../src/bench/bcb/gold-durations.js';

const { values } = parseArgs({ options: { from: { type: 'string', default: goldDurationsPath('local') } } });
const from = values.from as string;
const kept = readGoldDurations(from);
const tasks = readBcbTasks().tasks.sort((a, b) => compareTaskIds(a.id, b.id));

const shipped: GoldDurations = {};
const untimed: string[] = [];
for (const t of tasks) {
  const sha = taskSha(t);
  const ms = currentMs(kept[t.id], sha);
  if (ms !== undefined) shipped[t.id] = { sha, ms: Math.round(ms / 10) * 10 };
  else untimed.push(t.id);
}
if (untimed.length > 0) {
  console.error(`${from}: ${untimed.length} of ${tasks.length} tasks have no time for their current solution and tests (${untimed.slice(0, 5).join(', ')}${untimed.length > 5 ? ', …' : ''}); run \`npm run gold:bcb\` first`);
  process.exit(1);
}
// One task per line, in id order, so that a new snapshot's diff reads task by task.
const lines = Object.entries(shipped).map(([id, e]) => `  ${JSON.stringify(id)}: ${JSON.stringify(e)}`);
const out = shippedGoldDurationsPath();
writeFileSync(out, `{\n${lines.join(',\n')}\n}\n`);
console.log(`${out}: ${lines.length} tasks from ${from}`);
