/**
 * End-of-run facts for run.json, which is written before the first episode:
 * what the provider reported about itself (model names, system_fingerprint values)
 * and the tasks the harness could not score (status skipped or error), with the
 * reason. Rewritten at the end of every attempt, so it describes the whole folder.
 */
import { existsSync } from 'node:fs';
import { OUTCOMES_FILE, readOutcomeRows, type RunJson } from '../core/run-files/index.js';
import type { LedgerSnapshot } from '../llm/ledger.js';
import { RunFolder } from '../runner/run-folder.js';

/** A task with a skipped or error row: its phase and status, the epochs it happened in, the first error line recorded. */
export type UnscoredTask = NonNullable<RunJson['observed']>['unscoredTasks'][number];

/** Tasks with a skipped or error row, one entry per task, phase and status. */
export function unscoredTasks(outcomesFile: string): UnscoredTask[] {
  const byKey = new Map<string, UnscoredTask>();
  for (const r of readOutcomeRows(outcomesFile).rows) {
    if (r.status !== 'skipped' && r.status !== 'error') continue;
    const key = `${r.taskId}\u0000${r.phase}\u0000${r.status}`;
    const seen = byKey.get(key);
    if (seen) seen.epochs.push(r.epoch);
    else byKey.set(key, { taskId: r.taskId, phase: r.phase, status: r.status, epochs: [r.epoch], reason: r.error ?? null });
  }
  return [...byKey.values()];
}

export function recordObserved(runDir: string, usage: LedgerSnapshot): void {
  const folder = new RunFolder(runDir);
  if (!folder.hasManifest()) return;
  const outcomes = folder.path(OUTCOMES_FILE);
  folder.updateManifest({
    observed: {
      // Per role: the model names and system_fingerprint values the endpoint returned.
      provider: usage.reported ?? {},
      unscoredTasks: existsSync(outcomes) ? unscoredTasks(outcomes) : [],
      at: new Date().toISOString(),
    },
  });
}
