/**
 * q-history.jsonl (see core/run-files/q-history.ts): the memory's Q after each epoch. On resume
 * the lines of epochs past the checkpoint go, so the file matches the rows kept.
 */
import { appendFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { EpochEndEvent, Reporter, RunStartEvent } from '../../core/reporter.js';
import { Q_HISTORY_FILE, qSnapshotLine, readQHistory } from '../../core/run-files/index.js';
import { writeFileAtomic } from '../../util/fs.js';

export class QHistoryReporter implements Reporter {
  constructor(private readonly dir: string) {}

  private get file(): string {
    return join(this.dir, Q_HISTORY_FILE);
  }

  onRunStart(ev: RunStartEvent): void {
    if (!existsSync(this.file)) return;
    const kept = readQHistory(this.file).filter((s) => s.epoch <= ev.keptUpToEpoch);
    writeFileAtomic(this.file, kept.map(qSnapshotLine).join(''));
  }

  onEpochEnd(ev: EpochEndEvent): void {
    if (!ev.records) return;
    const records = ev.records;
    // Only epochs past the last line: a resumed epoch end writes its line once.
    const last = readQHistory(this.file).at(-1)?.epoch ?? 0;
    if (ev.epoch <= last) return;
    appendFileSync(
      this.file,
      qSnapshotLine({ epoch: ev.epoch, ids: records.map((r) => r.id), q: records.map((r) => r.q), success: records.map((r) => r.success) }),
    );
  }
}
