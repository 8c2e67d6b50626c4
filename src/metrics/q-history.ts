/**
 * q-history.jsonl: every memory's Q at the end of each epoch, one line per epoch.
 * memories.jsonl only holds the final state; the per-epoch Q distributions (TensorBoard
 * histograms, `memrl analyze`) need the states in between. A line is
 * `{"epoch":e,"ids":[...],"q":[...],"success":[...]}` (parallel arrays keep it compact:
 * a 10-epoch BCB run holds ~11k memories per line).
 */
import { existsSync, readFileSync } from 'node:fs';

export const Q_HISTORY_FILE = 'q-history.jsonl';

export interface QSnapshot {
  epoch: number;
  ids: string[];
  q: number[];
  /** Whether each memory records a success (its episode's outcome). */
  success: boolean[];
}

export function qSnapshotLine(s: QSnapshot): string {
  return `${JSON.stringify(s)}\n`;
}

/** The snapshots in epoch order; a line cut by a crash, or a missing file, is skipped. */
export function readQHistory(path: string): QSnapshot[] {
  if (!existsSync(path)) return [];
  const out = new Map<number, QSnapshot>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const s = JSON.parse(line) as QSnapshot;
      if (typeof s.epoch === 'number' && Array.isArray(s.ids) && Array.isArray(s.q)) out.set(s.epoch, { ...s, success: Array.isArray(s.success) ? s.success : [] });
    } catch {
      // a torn last line: the epoch runs again on resume and writes it whole
    }
  }
  return [...out.values()].sort((a, b) => a.epoch - b.epoch);
}
