/** What a run leaves at its end (or when interrupted): summary.json and memories.jsonl. */
import { join } from 'node:path';
import type { Reporter, RunEndEvent } from '../../core/reporter.js';
import { writeFileAtomic, writeJsonAtomic } from '../../util/fs.js';

export class SummaryReporter implements Reporter {
  constructor(private readonly dir: string) {}

  onRunEnd(ev: RunEndEvent): void {
    writeJsonAtomic(join(this.dir, 'summary.json'), ev.summary);
  }
}

export class MemoriesReporter implements Reporter {
  constructor(private readonly dir: string) {}

  onRunEnd(ev: RunEndEvent): void {
    writeFileAtomic(join(this.dir, 'memories.jsonl'), ev.records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  }
}
