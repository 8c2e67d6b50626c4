/**
 * How long each gold solution's tests took in earlier gold checks, so that the next
 * check starts the slowest first. A few canonical solutions take 10-20 s (a sleep in
 * the solution, millions of permutations, a pair plot drawn five times); when one
 * of them is the last task started, every other slot idles while it runs. Longest
 * first (LPT) is the usual cure, as test runners such as Jest order test files by
 * the durations of their last run.
 *
 * Kept in $XDG_CACHE_HOME/memrl/gold-durations/bcb-<backend>.json, one entry per
 * task, under a hash of what ran (solution and tests): a changed task is timed anew.
 * The order only changes when tasks start; results stay in id order.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { cacheDir } from '../../util/paths.js';
import { writeFileAtomic } from '../../util/fs.js';
import type { BcbTask } from './dataset.js';

/** Task id -> the hash of what ran and how long its tests took (ms). */
export type GoldDurations = Record<string, { sha: string; ms: number }>;

export function goldDurationsPath(backend: string): string {
  return cacheDir('gold-durations', `bcb-${backend}.json`);
}

function taskSha(task: Pick<BcbTask, 'canonical_solution' | 'test'>): string {
  return createHash('sha256').update(task.canonical_solution).update('\0').update(task.test).digest('hex').slice(0, 16);
}

/** The durations kept at `path`; none when the file is missing or unreadable (it is only a hint). */
export function readGoldDurations(path: string): GoldDurations {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as GoldDurations) : {};
  } catch {
    return {};
  }
}

/**
 * The tasks, slowest first by their kept durations. A task never timed (or changed
 * since) counts as the median of the known ones; ties keep id order.
 */
export function slowestFirst<T extends Pick<BcbTask, 'id' | 'canonical_solution' | 'test'>>(tasks: readonly T[], kept: GoldDurations): T[] {
  const known = tasks.map((t): number | undefined => {
    const entry = kept[t.id];
    return entry && entry.sha === taskSha(t) && Number.isFinite(entry.ms) ? entry.ms : undefined;
  });
  const times = known.filter((ms): ms is number => ms !== undefined).sort((a, b) => a - b);
  if (times.length === 0) return [...tasks];
  const guess = times[Math.floor(times.length / 2)] as number;
  return tasks
    .map((task, index) => ({ task, index, ms: known[index] ?? guess }))
    .sort((a, b) => b.ms - a.ms || a.index - b.index)
    .map((e) => e.task);
}

/**
 * Adds this check's durations to the file (other tasks' entries stay). False when it
 * cannot be written (a read-only home): the order is a hint, the check stands.
 */
export function recordGoldDurations(path: string, tasks: readonly Pick<BcbTask, 'id' | 'canonical_solution' | 'test'>[], ms: ReadonlyMap<string, number>): boolean {
  const kept = readGoldDurations(path);
  for (const t of tasks) {
    const d = ms.get(t.id);
    if (d !== undefined) kept[t.id] = { sha: taskSha(t), ms: d };
  }
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileAtomic(path, JSON.stringify(kept));
    return true;
  } catch {
    return false;
  }
}
