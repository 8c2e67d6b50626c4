/**
 * The journal: an entry is in the file the moment it is recorded (a killed process keeps
 * it); Journal.forget: a batch stopped because its endpoint went away is played again
 * whole on resume.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal, type JournalEpisode } from '../../src/runner/journal.js';
import { UsageLedger } from '../../src/llm/ledger.js';
import { tempDir } from '../helpers/temp.js';

// Entries as the runner writes them: a resume takes only what its schema reads back.
const usage = new UsageLedger().snapshot();
const episode = (phase: 'train' | 'valid', epoch: number, taskIndex: number): JournalEpisode => ({
  kind: 'episode',
  phase,
  epoch,
  taskIndex,
  taskId: `t${taskIndex}`,
  row: { benchmark: 'toy', taskId: `t${taskIndex}`, taskIndex, epoch, phase, status: 'fail', success: false, reward: 0, steps: 1, retrievedIds: [], promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  usage,
});

describe('Journal', () => {
  it('has each entry in its file as soon as it is recorded, before the flush to disk is awaited', async () => {
    const path = join(tempDir('memrl-journal-'), 'journal.jsonl');
    const j = new Journal(path, () => true);
    j.record(episode('train', 1, 0));
    j.record({ kind: 'barrier', epoch: 1, batch: 0, at: 7 });
    // What a process started now (a resume after a kill) reads, with no await in between.
    const lines = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { kind: string });
    expect(lines.map((l) => l.kind)).toEqual(['episode', 'barrier']);
    await j.synced();
    j.close();
    const again = new Journal(path, () => true);
    expect([again.episode('train', 1, 0)?.taskId, again.barrierAt(1, 0)]).toEqual(['t0', 7]);
    again.close();
  });

  it('drops exactly the given episodes from memory and from the file, and appends go on after it', async () => {
    const path = join(tempDir('memrl-journal-'), 'journal.jsonl');
    const j = new Journal(path, () => true);
    for (const i of [0, 1, 2, 3]) j.record(episode('train', 2, i));
    j.record({ kind: 'barrier', epoch: 2, batch: 0, at: 1 });
    for (const i of [4, 5]) j.record(episode('train', 2, i));
    j.record(episode('valid', 2, 4));
    await j.synced();

    j.forget('train', 2, [4, 5, 6]);
    expect(j.episode('train', 2, 4)).toBeUndefined();
    expect(j.episode('valid', 2, 4)).toBeDefined();
    j.record(episode('train', 2, 6));
    await j.synced();
    j.close();

    // What a resume reads back.
    const again = new Journal(path, () => true);
    const kept = [0, 1, 2, 3, 4, 5, 6].filter((i) => again.episode('train', 2, i));
    expect(kept).toEqual([0, 1, 2, 3, 6]);
    expect(again.episode('valid', 2, 4)).toBeDefined();
    expect(again.barrierAt(2, 0)).toBe(1);
    again.close();
  });
});
