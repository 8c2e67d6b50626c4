/**
 * traces.jsonl: each episode's full conversation (multi-turn benchmarks), one line per
 * outcome row that has one, kept consistent with outcomes.jsonl across resumes.
 */
import { appendFileSync, closeSync, existsSync, fsyncSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter, RunStartEvent, Trace } from '../../core/reporter.js';
import { TRACES_FILE, TraceLineSchema, type TraceLine } from '../../core/run-files/index.js';
import { writeFileAtomic } from '../../util/fs.js';

export class TracesReporter implements Reporter {
  private benchmark = '';

  constructor(private readonly dir: string) {}

  private get file(): string {
    return join(this.dir, TRACES_FILE);
  }

  onRunStart(ev: RunStartEvent): void {
    this.benchmark = ev.info.benchmark;
    if (!existsSync(this.file)) return;
    // Transcripts of dropped episodes go too, so traces.jsonl matches outcomes.jsonl.
    const lines = readFileSync(this.file, 'utf8').split('\n').filter((l) => {
      if (!l.trim()) return false;
      let value: unknown;
      try {
        value = JSON.parse(l);
      } catch {
        return false; // a line cut by a crash
      }
      const line = TraceLineSchema.safeParse(value);
      return line.success && line.data.epoch <= ev.keptUpToEpoch;
    });
    writeFileAtomic(this.file, lines.map((l) => `${l}\n`).join(''));
  }

  onRows(_rows: unknown, traces: readonly Trace[]): void {
    if (traces.length === 0) return;
    const lines: TraceLine[] = traces.map((t) => ({ benchmark: this.benchmark, ...t }));
    appendFileSync(this.file, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
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
