/**
 * outcomes.jsonl: the outcome matrix, appended at each barrier. On resume, rows past
 * the checkpointed epoch belong to an unfinished epoch that runs again, so the file is
 * cut back to the kept rows first (or rewritten from them, when the resume rebuilt them).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter, RunStartEvent } from '../../core/reporter.js';
import type { OutcomeRow } from '../../core/outcome.js';
import { OutcomeLog, readOutcomeRows } from '../../metrics/outcome-store.js';
import { writeFileAtomic } from '../../util/fs.js';

export class OutcomesReporter implements Reporter {
  private log: OutcomeLog | undefined;

  constructor(private readonly dir: string) {}

  private get file(): string {
    return join(this.dir, 'outcomes.jsonl');
  }

  onRunStart(ev: RunStartEvent): void {
    // A file the resume could not read (a broken line) is rewritten from the kept rows, which were checked or rebuilt.
    const existing = existsSync(this.file) ? readableRows(this.file) : [];
    const same = existing !== undefined && existing.length === ev.kept.length && existing.every((r, i) => sameCell(r, ev.kept[i]!));
    if (!same || (existsSync(this.file) && ev.keptUpToEpoch < 0)) {
      writeFileAtomic(this.file, ev.kept.map((r) => `${JSON.stringify(r)}\n`).join(''));
    }
    // No flush per row: the journal already holds each episode; onEpochEnd flushes before each checkpoint.
    this.log = new OutcomeLog(this.file, { syncEachRow: false });
  }

  onRows(rows: readonly OutcomeRow[]): void {
    if (!this.log) throw new Error('outcomes.jsonl is not open');
    for (const r of rows) this.log.append(r);
  }

  onEpochEnd(): void {
    this.log?.flush();
  }

  close(): void {
    this.log?.close();
    this.log = undefined;
  }
}

function readableRows(file: string): OutcomeRow[] | undefined {
  try {
    return readOutcomeRows(file).rows;
  } catch {
    return undefined;
  }
}

const sameCell = (a: OutcomeRow, b: OutcomeRow): boolean => a.taskId === b.taskId && a.epoch === b.epoch && a.phase === b.phase;
