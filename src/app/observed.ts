/**
 * End-of-run facts for run.json, which is written before the first episode:
 * what the provider reported about itself (model names, system_fingerprint values)
 * and the tasks the harness could not score (status skipped or error), with the
 * reason. Rewritten at the end of every attempt, so it describes the whole folder.
 */
import { existsSync } from 'node:fs';
import type { LedgerSnapshot } from '../llm/ledger.js';
import { readOutcomeRows } from '../metrics/outcome-store.js';
import { OUTCOMES_FILE, RunFolder } from '../runner/run-folder.js';

export interface UnscoredTask {
  taskId: string;
  phase: string;
  status: string;
  /** Epochs in which this happened. */
  epochs: number[];
  /** The first error line recorded. */
  reason: string | null;
}

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
  const manifest = folder.readManifest();
  folder.writeManifest({
    ...manifest,
    observed: {
      // Per role: the model names and system_fingerprint values the endpoint returned.
      provider: usage.reported ?? {},
      unscoredTasks: existsSync(outcomes) ? unscoredTasks(outcomes) : [],
      at: new Date().toISOString(),
    },
  });
}
