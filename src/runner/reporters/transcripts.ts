/**
 * transcripts.jsonl.gz (+ transcript-parts.jsonl.gz): every model call of every episode,
 * written as batches commit, kept consistent with outcomes.jsonl across resumes (see
 * core/run-files/transcripts.ts for the format).
 */
import { closeSync, existsSync, fsyncSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter, RunStartEvent } from '../../core/reporter.js';
import { TRANSCRIPT_PARTS_FILE, TRANSCRIPTS_FILE, TranscriptWriter } from '../../core/run-files/transcripts.js';
import type { Transcript } from '../../metrics/transcripts.js';

export class TranscriptsReporter implements Reporter {
  private writer: TranscriptWriter | null = null;

  constructor(private readonly dir: string) {}

  onRunStart(ev: RunStartEvent): void {
    // Episodes past the checkpoint run again (or come back from the journal with their calls).
    this.writer = new TranscriptWriter(this.dir, (t) => t.epoch <= ev.keptUpToEpoch);
  }

  onRows(_rows: unknown, _traces: unknown, transcripts?: readonly Transcript[]): void {
    if (transcripts?.length) this.writer?.append(transcripts);
  }

  /** On disk before the checkpoint counts on it. */
  onEpochEnd(): void {
    for (const f of [TRANSCRIPT_PARTS_FILE, TRANSCRIPTS_FILE]) {
      const path = join(this.dir, f);
      if (!existsSync(path)) continue;
      const fd = openSync(path, 'r+');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
  }
}
