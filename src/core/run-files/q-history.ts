/**
 * q-history.jsonl: every memory's Q at the end of each epoch, one line per epoch.
 * memories.jsonl only holds the final state; the per-epoch Q distributions (TensorBoard
 * histograms, `memrl analyze`, `memrl view`) need the states in between. A line is
 * `{"epoch":e,"ids":[...],"q":[...],"success":[...]}` (parallel arrays keep it compact:
 * a 10-epoch BCB run holds ~11k memories per line).
 */
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';

export const Q_HISTORY_FILE = 'q-history.jsonl';

export const QSnapshotSchema = z
  .object({
    epoch: z.number().int().nonnegative(),
    ids: z.array(z.string()),
    q: z.array(z.number()),
    /** Whether each memory records a success (its episode's outcome). */
    success: z.array(z.boolean()),
  })
  .strict();

export type QSnapshot = z.infer<typeof QSnapshotSchema>;

export function qSnapshotLine(s: QSnapshot): string {
  return `${JSON.stringify(s)}\n`;
}

/**
 * The snapshots in epoch order (the last line of an epoch wins); a missing file is none.
 * A line that does not parse is skipped: only the last can be torn (a kill mid-append),
 * and its epoch runs again on resume and writes it whole. The lines are the same in
 * formats 1 and 2.
 */
export function readQHistory(path: string): QSnapshot[] {
  if (!existsSync(path)) return [];
  const out = new Map<number, QSnapshot>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const parsed = QSnapshotSchema.safeParse(value);
    if (parsed.success) out.set(parsed.data.epoch, parsed.data);
  }
  return [...out.values()].sort((a, b) => a.epoch - b.epoch);
}
