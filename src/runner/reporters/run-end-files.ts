/** What a run leaves at its end (or when interrupted): summary.json and memories.jsonl. */
import { join } from 'node:path';
import type { Reporter, RunEndEvent } from '../../core/reporter.js';
import { MEMORIES_FILE, SUMMARY_FILE, summaryJson, type MemoryLine } from '../../core/run-files/index.js';
import { writeFileAtomic, writeJsonAtomic } from '../../util/fs.js';

export class SummaryReporter implements Reporter {
  constructor(private readonly dir: string) {}

  onRunEnd(ev: RunEndEvent): void {
    writeJsonAtomic(join(this.dir, SUMMARY_FILE), summaryJson(ev.summary));
  }
}

export class MemoriesReporter implements Reporter {
  constructor(private readonly dir: string) {}

  onRunEnd(ev: RunEndEvent): void {
    const lines: readonly Readonly<MemoryLine>[] = ev.records;
    writeFileAtomic(join(this.dir, MEMORIES_FILE), lines.map((r) => `${JSON.stringify(r)}\n`).join(''));
  }
}
