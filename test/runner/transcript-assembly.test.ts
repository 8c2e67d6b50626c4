/**
 * Transcript assembly at commit (runner/reporters/transcripts.ts): a journaled row's
 * conversation goes to traces.jsonl and its calls to its transcript, joined by the
 * method's calls made at the barrier and the Q updates its experience caused; the row
 * keeps only the transcript's id. Written through the transcripts reporter and read
 * back from the run folder.
 */
import { describe, expect, it } from 'vitest';
import type { OutcomeRow } from '../../src/core/outcome.js';
import { readTranscripts } from '../../src/core/run-files/transcripts.js';
import type { RecordedCall } from '../../src/metrics/transcripts.js';
import { assembleCommitted, qUpdatesByEpisode, TranscriptsReporter } from '../../src/runner/reporters/transcripts.js';
import { tempDir } from '../helpers/temp.js';

const call = (role: RecordedCall['role'], reply: string): RecordedCall => ({ role, messages: [{ role: 'user', content: `ask ${reply}` }], reply, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } });

function row(taskIndex: number, extra?: Record<string, unknown>): OutcomeRow {
  return {
    benchmark: 'toy', taskId: `t${taskIndex}`, taskIndex, epoch: 2, phase: 'train', status: 'pass', success: true, reward: 1, steps: 1,
    retrievedIds: [], promptTokens: 1, completionTokens: 1, totalTokens: 2, latencyMs: 1, finishedAt: '2026-01-01T00:00:00.000Z',
    ...(extra ? { extra } : {}),
  } as OutcomeRow;
}

describe('assembleCommitted', () => {
  it("moves each row's conversation to its trace and its calls to its transcript, late calls and Q updates after them", () => {
    const rows = [
      row(0, { transcript: [{ turn: 0 }], calls: [call('agent', 'a0'), call('memory', 'w0')], evaluatorOutput: { failed: ['test_x'] }, cacheHits: 1 }),
      row(1),
      row(2, { calls: [call('agent', 'a2')] }),
    ];
    const late = new Map([['t2', [call('memory', 'mem0-extract')]]]);
    const q = qUpdatesByEpisode([0, 2], { qUpdates: [{ experience: 1, memoryId: 'm1', before: 0, after: 0.5 }, { experience: 0, memoryId: 'm9', before: 1, after: 0.9 }, { experience: 1, memoryId: 'm2', before: 0, after: 0.1 }] });
    const out = assembleCommitted(rows, (r) => late.get(r.taskId) ?? [], q);

    expect(out.traces).toEqual([{ taskId: 't0', taskIndex: 0, epoch: 2, phase: 'train', transcript: [{ turn: 0 }] }]);
    expect(out.rows.map((r) => r.extra)).toEqual([{ cacheHits: 1, transcriptId: 'train/2/0' }, undefined, { transcriptId: 'train/2/2' }]);
    expect(out.transcripts).toEqual([
      { id: 'train/2/0', taskId: 't0', taskIndex: 0, epoch: 2, phase: 'train', calls: [call('agent', 'a0'), call('memory', 'w0')], evaluatorOutput: { failed: ['test_x'] }, qUpdates: [{ memoryId: 'm9', before: 1, after: 0.9 }] },
      {
        id: 'train/2/2', taskId: 't2', taskIndex: 2, epoch: 2, phase: 'train',
        calls: [call('agent', 'a2'), call('memory', 'mem0-extract')],
        qUpdates: [{ memoryId: 'm1', before: 0, after: 0.5 }, { memoryId: 'm2', before: 0, after: 0.1 }],
      },
    ]);
    // The journaled rows are left as they were (a resume reads them again).
    expect(rows[0]!.extra).toHaveProperty('calls');
  });

  it('gives a row a transcript for late calls or Q updates alone, and none when it has nothing', () => {
    const out = assembleCommitted([row(0), row(1)], (r) => (r.taskIndex === 0 ? [call('memory', 'late')] : []), qUpdatesByEpisode([1], { qUpdates: [{ experience: 0, memoryId: 'm', before: 0, after: 1 }] }));
    expect(out.transcripts.map((t) => [t.id, t.calls.length, t.qUpdates?.length ?? 0])).toEqual([['train/2/0', 1, 0], ['train/2/1', 0, 1]]);
    expect(assembleCommitted([row(3)], () => []).transcripts).toEqual([]);
    expect(qUpdatesByEpisode([], undefined).size).toBe(0);
  });

  it('what it assembles, the transcripts reporter writes and the run folder reads back', () => {
    const dir = tempDir('memrl-transcripts-');
    const reporter = new TranscriptsReporter(dir);
    reporter.onRunStart({ info: { runDir: dir, benchmark: 'toy', tagFamily: 'toy', trainTaskIds: [], validTaskIds: [] }, resuming: false, keptUpToEpoch: -1, kept: [], notices: [] });
    const out = assembleCommitted([row(0, { calls: [call('agent', 'hello')] })], () => [call('memory', 'late')]);
    reporter.onRows(out.rows, out.traces, out.transcripts);
    reporter.onEpochEnd();
    expect(readTranscripts(dir)).toEqual(out.transcripts);
  });
});
