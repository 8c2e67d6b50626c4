/** Journal.forget: a batch stopped because its endpoint went away is played again whole on resume. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal, type JournalEpisode } from '../../src/runner/journal.js';
import type { OutcomeRow } from '../../src/core/outcome.js';
import { tempDir } from '../helpers/temp.js';

const usage = { byRole: {} } as unknown as JournalEpisode['usage'];
const episode = (phase: 'train' | 'valid', epoch: number, taskIndex: number): JournalEpisode => ({
  kind: 'episode',
  phase,
  epoch,
  taskIndex,
  taskId: `t${taskIndex}`,
  row: { taskId: `t${taskIndex}`, taskIndex, epoch, phase, status: 'fail' } as unknown as OutcomeRow,
  usage,
});

describe('Journal.forget', () => {
  it('drops exactly the given episodes from memory and from the file, and appends go on after it', async () => {
    const path = join(tempDir('memrl-journal-'), 'journal.jsonl');
    const j = new Journal(path, () => true);
    for (const i of [0, 1, 2, 3]) await j.append(episode('train', 2, i));
    await j.append({ kind: 'barrier', epoch: 2, batch: 0, at: 1 });
    for (const i of [4, 5]) await j.append(episode('train', 2, i));
    await j.append(episode('valid', 2, 4));

    j.forget('train', 2, [4, 5, 6]);
    expect(j.episode('train', 2, 4)).toBeUndefined();
    expect(j.episode('valid', 2, 4)).toBeDefined();
    await j.append(episode('train', 2, 6));
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
