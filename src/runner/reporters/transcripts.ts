/**
 * transcripts.jsonl.gz (+ transcript-parts.jsonl.gz): every model call of every episode,
 * written as batches commit, kept consistent with outcomes.jsonl across resumes (see
 * core/run-files/transcripts.ts for the format).
 *
 * Assembled at commit: an episode's row is journaled with its calls (the agent's, the
 * judge's, the method's) and its multi-turn conversation; committing moves them out of
 * the row into its transcript and trace, joined by the method's calls made at the
 * barrier and the Q updates the episode caused there (assembleCommitted).
 */
import { closeSync, existsSync, fsyncSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { CommitEffects } from '../../core/method.js';
import type { OutcomeRow } from '../../core/outcome.js';
import type { Reporter, RunStartEvent, Trace } from '../../core/reporter.js';
import { TRANSCRIPT_PARTS_FILE, TRANSCRIPTS_FILE, TranscriptWriter } from '../../core/run-files/transcripts.js';
import { transcriptId, type RecordedCall, type Transcript } from '../../metrics/transcripts.js';

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

export type QUpdates = NonNullable<Transcript['qUpdates']>;

/** A committed batch or pass, as the reporters get it (onRows). */
export interface CommittedBatch {
  rows: OutcomeRow[];
  traces: Trace[];
  transcripts: Transcript[];
}

/**
 * Rows of a committed batch or pass, in task order, with their conversations moved to
 * traces and their calls to transcripts (the row keeps the transcript's id).
 * `lateCalls` gives the method's calls made for a row's episode at the barrier;
 * `qUpdates` are by position in `rows`.
 */
export function assembleCommitted(rows: readonly OutcomeRow[], lateCalls: (row: OutcomeRow) => RecordedCall[], qUpdates: ReadonlyMap<number, QUpdates> = new Map()): CommittedBatch {
  const out: CommittedBatch = { rows: [], traces: [], transcripts: [] };
  for (const [i, r] of rows.entries()) {
    let row = r;
    if (r.extra && 'transcript' in r.extra) {
      const { transcript, ...extra } = r.extra;
      out.traces.push({ taskId: r.taskId, taskIndex: r.taskIndex, epoch: r.epoch, phase: r.phase, transcript });
      row = { ...row, extra };
    }
    const late = lateCalls(r);
    const q = qUpdates.get(i);
    if ((row.extra && ('calls' in row.extra || 'evaluatorOutput' in row.extra)) || late.length || q) {
      const { calls, evaluatorOutput, ...extra } = row.extra ?? {};
      const id = transcriptId(r.phase, r.epoch, r.taskIndex);
      out.transcripts.push({
        id,
        taskId: r.taskId,
        taskIndex: r.taskIndex,
        epoch: r.epoch,
        phase: r.phase,
        calls: [...((calls as RecordedCall[] | undefined) ?? []), ...late],
        ...(evaluatorOutput !== undefined ? { evaluatorOutput } : {}),
        ...(q ? { qUpdates: q } : {}),
      });
      row = { ...row, extra: { ...extra, transcriptId: id } };
    }
    out.rows.push(row);
  }
  return out;
}

/**
 * Each Q update of a commit, by the position (in the batch) of the episode whose
 * experience caused it. `learned[k]` is the position of the k-th experience committed.
 */
export function qUpdatesByEpisode(learned: readonly number[], effects: CommitEffects | void): Map<number, QUpdates> {
  const byEpisode = new Map<number, QUpdates>();
  for (const u of effects?.qUpdates ?? []) {
    const i = learned[u.experience];
    if (i !== undefined) byEpisode.set(i, [...(byEpisode.get(i) ?? []), { memoryId: u.memoryId, before: u.before, after: u.after }]);
  }
  return byEpisode;
}
