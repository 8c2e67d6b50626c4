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
 * A machine's first check has none, so memrl ships the durations of one full check
 * (data/bcb-gold-durations.json, as pytest-split commits its .test_durations): they
 * fill in for the tasks this machine has not timed. The order only changes when
 * tasks start; results stay in id order.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { asset, cacheDir } from '../../util/paths.js';
import { writeFileAtomic } from '../../util/fs.js';
import type { BcbTask } from './dataset.js';

/** Task id -> the hash of what ran and how long its tests took (ms). */
export type GoldDurations = Record<string, { sha: string; ms: number }>;

export function goldDurationsPath(backend: string): string {
  return cacheDir('gold-durations', `bcb-${backend}.json`);
}

/** What a kept duration is filed under: a hash of the solution and tests that ran. */
export function taskSha(task: Pick<BcbTask, 'canonical_solution' | 'test'>): string {
  return createHash('sha256').update(task.canonical_solution).update('\0').update(task.test).digest('hex').slice(0, 16);
}

/** The time of `entry` if it was taken on the solution and tests that hash to `sha`. */
export function currentMs(entry: GoldDurations[string] | undefined, sha: string): number | undefined {
  return entry && entry.sha === sha && Number.isFinite(entry.ms) ? entry.ms : undefined;
}

/** The middle of sorted values, the upper one of an even count. */
function middle(sorted: readonly number[]): number | undefined {
  return sorted[Math.floor(sorted.length / 2)];
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

/** The durations shipped with memrl (scripts/ship-gold-durations.ts writes them). */
export function shippedGoldDurationsPath(): string {
  return asset('data', 'bcb-gold-durations.json');
}

/** The durations shipped with memrl; none when the file is missing or unreadable. */
export function readShippedGoldDurations(): GoldDurations {
  return readGoldDurations(shippedGoldDurationsPath());
}

/**
 * How much slower this machine is than the one that timed `shipped`: the median ratio
 * of its own times to the shipped ones over the tasks both timed (1 when none).
 */
function machineScale(kept: GoldDurations, shipped: GoldDurations): number {
  const ratios: number[] = [];
  for (const [id, own] of Object.entries(kept)) {
    const theirs = shipped[id];
    if (theirs && theirs.sha === own.sha && own.ms > 0 && theirs.ms > 0) ratios.push(own.ms / theirs.ms);
  }
  return middle(ratios.sort((a, b) => a - b)) ?? 1;
}

/**
 * The tasks, slowest first by their kept durations, or by the `shipped` ones for a
 * task this machine has not timed (scaled to this machine, so that a slower machine's
 * own entries do not all outrank them). A task timed by neither (or changed since)
 * counts as the median of the known ones; ties keep id order.
 */
export function slowestFirst<T extends Pick<BcbTask, 'id' | 'canonical_solution' | 'test'>>(tasks: readonly T[], kept: GoldDurations, shipped: GoldDurations = {}): T[] {
  const scale = machineScale(kept, shipped);
  const known = tasks.map((t): number | undefined => {
    const sha = taskSha(t);
    const theirs = currentMs(shipped[t.id], sha);
    return currentMs(kept[t.id], sha) ?? (theirs === undefined ? undefined : theirs * scale);
  });
  const guess = middle(known.filter((ms): ms is number => ms !== undefined).sort((a, b) => a - b));
  if (guess === undefined) return [...tasks];
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
