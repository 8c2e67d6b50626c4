/**
 * The one place that decides a run's state, from evidence in its folder, never from
 * what a file merely lacks: every reader (table, report, view, compare, sweep status,
 * analyze) takes it from here through readRunFolder.
 *
 *   running      the folder's lock is held by a live process (on another host: one whose
 *                life cannot be checked from here, said so)
 *   interrupted  its process was killed with the lock held (kill -9, a crash of the
 *                machine), or summary.json says it stopped (Ctrl-C, a signal, a budget),
 *                or it ended without any run-end record: resumable
 *   failed       summary.json says it ended by an error (too many error episodes, an
 *                endpoint that refused, a fault): the reason recorded there
 *   complete     summary.json says so, no process has taken the folder up since, and
 *                outcomes.jsonl holds rows of every epoch it says completed (else failed:
 *                a damaged folder's numbers are wrong)
 *
 * The lock goes first: a resumed attempt killed mid-way leaves its lock and the earlier
 * attempt's summary.json, which no longer describes the folder.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CHECKPOINT_FILE, JOURNAL_FILE, LOCK_FILE, PREVIOUS_CHECKPOINT_FILE, type OutcomeRow, type RunState, type SummaryJson } from '../core/run-files/index.js';
import { lockHolder } from '../util/lock.js';

export interface RunStatusInfo {
  state: RunState;
  /** Why, in words, for every state but complete (who runs it, how it stopped, why it failed). */
  reason?: string;
}

/** `rows` and `trainTaskIds`: what outcomes.jsonl and run.json hold (a complete run lacking rows is damaged, never complete). */
export function runStatusOf(dir: string, summary: Pick<SummaryJson, 'status' | 'failure' | 'epochsCompleted' | 'epochsPlanned'> | null, rows: readonly OutcomeRow[], trainTaskIds: readonly string[]): RunStatusInfo {
  const lock = lockHolder(join(dir, LOCK_FILE));
  if (lock?.holder && lock.alive !== false) {
    const { pid, host, since, what } = lock.holder;
    const unchecked = lock.alive === null ? `; its life cannot be checked from this host: if it is gone, remove ${join(dir, LOCK_FILE)}` : '';
    return { state: 'running', reason: `pid ${pid} on ${host} (${what}, since ${since})${unchecked}` };
  }
  if (lock) {
    const who = lock.holder ? `its process (pid ${lock.holder.pid}, since ${lock.holder.since})` : 'its process';
    return { state: 'interrupted', reason: `${who} ended without recording an end (killed, or the machine stopped)${progress(dir)}` };
  }
  if (!summary) return { state: 'interrupted', reason: `it ended without recording how (no summary.json)${progress(dir)}` };
  if (summary.status === 'failed') return { state: 'failed', reason: summary.failure ?? 'it ended by an error (no reason recorded)' };
  if (summary.status === 'interrupted') return { state: 'interrupted', reason: `stopped after ${summary.epochsCompleted} of ${summary.epochsPlanned} epoch(s) (Ctrl-C, a signal or a budget)` };
  const lacking = epochsLackingRows(rows, trainTaskIds, summary.epochsCompleted);
  if (lacking.length > 0) {
    return {
      state: 'failed',
      reason: `summary.json says ${summary.epochsCompleted} epoch(s) completed, but outcomes.jsonl lacks rows of ${describeLacking(lacking)}: its numbers would be wrong; restore outcomes.jsonl from a backup, or run it again`,
    };
  }
  return { state: 'complete' };
}

export interface LackingRows {
  epoch: number;
  /** Train tasks of the epoch without a row. */
  missing: number;
}

/**
 * The completed epochs (1..upTo) whose train rows are not all there: every epoch has a
 * row for each train task not solved before it (a method that trains on all tasks has
 * more; one that retries only the unsolved, exactly these), so a lost row always shows.
 */
export function epochsLackingRows(rows: readonly OutcomeRow[], trainTaskIds: readonly string[], upTo: number): LackingRows[] {
  const solved = new Set<string>();
  const lacking: LackingRows[] = [];
  for (let epoch = 1; epoch <= upTo; epoch++) {
    const train = rows.filter((r) => r.phase === 'train' && r.epoch === epoch);
    const have = new Set(train.map((r) => r.taskId));
    const missing = trainTaskIds.filter((id) => !solved.has(id) && !have.has(id)).length;
    if (missing > 0) lacking.push({ epoch, missing });
    for (const r of train) if (r.success) solved.add(r.taskId);
  }
  return lacking;
}

/** "epoch 1 (3 tasks), epoch 2 (4 tasks)", the first three. */
export function describeLacking(lacking: readonly LackingRows[]): string {
  const shown = lacking.slice(0, 3).map((l) => `epoch ${l.epoch} (${l.missing} task${l.missing === 1 ? '' : 's'})`);
  return shown.join(', ') + (lacking.length > 3 ? ` and ${lacking.length - 3} more epoch(s)` : '');
}

/** What a resume starts from, for the reason of an interrupted run. */
function progress(dir: string): string {
  const has = (f: string): boolean => existsSync(join(dir, f));
  if (has(JOURNAL_FILE) || has(CHECKPOINT_FILE) || has(PREVIOUS_CHECKPOINT_FILE)) return '; --resume continues from its checkpoint and journal';
  return '; --resume starts it from its first epoch';
}
