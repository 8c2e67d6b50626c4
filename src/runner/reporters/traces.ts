/**
 * traces.jsonl: each episode's full conversation (multi-turn benchmarks), one line per
 * outcome row that has one, kept consistent with outcomes.jsonl across resumes.
 */
import { appendFileSync, closeSync, existsSync, fsyncSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter, RunStartEvent, Trace } from '../../core/reporter.js';
import { writeFileAtomic } from '../../util/fs.js';

export class TracesReporter implements Reporter {
  private benchmark = '';

  constructor(private readonly dir: string) {}

  private get file(): string {
    return join(this.dir, 'traces.jsonl');
  }

  onRunStart(ev: RunStartEvent): void {
    this.benchmark = ev.info.benchmark;
    if (!existsSync(this.file)) return;
    // Transcripts of dropped episodes go too, so traces.jsonl matches outcomes.jsonl.
    const lines = readFileSync(this.file, 'utf8').split('\n').filter((l) => {
      if (!l.trim()) return false;
      try {
        return (JSON.parse(l) as { epoch: number }).epoch <= ev.keptUpToEpoch;
      } catch {
        return false; // a line cut by a crash
      }
    });
    writeFileAtomic(this.file, lines.map((l) => `${l}\n`).join(''));
  }

  onRows(_rows: unknown, traces: readonly Trace[]): void {
    if (traces.length === 0) return;
    appendFileSync(this.file, traces.map((t) => `${JSON.stringify({ benchmark: this.benchmark, ...t })}\n`).join(''));
  }

  /** On disk before the checkpoint counts on it. */
  onEpochEnd(): void {
    if (!existsSync(this.file)) return;
    const fd = openSync(this.file, 'r+');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}
