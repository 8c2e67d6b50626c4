import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../../src/metrics/compute.js';
import { buildMatrix } from '../../src/metrics/matrix.js';
import { row, rowsFromGrid } from './helpers.js';

const metrics = (grid: string[], phase: 'train' | 'valid' = 'train', taskIds?: string[], epochs?: number[]) =>
  computeMetrics(buildMatrix(rowsFromGrid(grid, phase), phase, { taskIds, epochs }));

describe('computeMetrics on a hand-computed 5×3 matrix', () => {
  //        e1 e2 e3
  // t1      1  1  0
  // t2      0  1  0
  // t3      1  0  1
  // t4      0  0  1
  // t5      1  1  0
  const m = metrics(['110', '010', '101', '001', '110']);

  it('acc_t = solved in t / tasks', () => {
    // e1: t1,t3,t5 = 3/5; e2: t1,t2,t5 = 3/5; e3: t3,t4 = 2/5
    expect(m.epochs.map((e) => e.acc)).toEqual([0.6, 0.6, 0.4]);
    expect(m.epochs.map((e) => e.solved)).toEqual([3, 3, 2]);
    expect(m.last).toBe(0.4);
  });

  it('csr_t = solved in any epoch <= t / tasks', () => {
    // e1: {t1,t3,t5} 3/5; e2: + t2 = 4/5; e3: + t4 = 5/5
    expect(m.epochs.map((e) => e.csr)).toEqual([0.6, 0.8, 1]);
    expect(m.csrFinal).toBe(1);
  });

  it('forgetting_flip = mean over t>=2 of |solved t-1 and failed t| / |solved t-1|', () => {
    // flip_2: solved at e1 {t1,t3,t5}, of which t3 fails at e2 -> 1/3
    // flip_3: solved at e2 {t1,t2,t5}, all fail at e3 -> 3/3
    // mean = (1/3 + 1) / 2 = 2/3
    expect(m.epochs.map((e) => e.flipRate)).toEqual([null, 1 / 3, 1]);
    expect(m.forgettingFlip).toBeCloseTo(2 / 3, 12);
    // as of e2 only flip_2 exists
    expect(m.epochs[1]!.forgettingFlip).toBeCloseTo(1 / 3, 12);
    expect(m.epochs[0]!.forgettingFlip).toBeNull();
  });

  it('forgetting_max = mean over all tasks of [solved before final and failed at final]', () => {
    // final e3: t1 (solved e1,e2), t2 (solved e2), t5 (solved e1,e2) fail -> 1 each;
    // t3 solved at e3 -> 0; t4 never solved before e3 -> 0.  3/5 = 0.6
    expect(m.forgettingMax).toBeCloseTo(0.6, 12);
    // as of e2: t3 solved at e1, failed at e2 -> 1/5
    expect(m.epochs[1]!.forgettingMax).toBeCloseTo(0.2, 12);
    expect(m.epochs[0]!.forgettingMax).toBeNull();
  });

  it('bwt = mean over tasks first solved before final of (final - 1)', () => {
    // first solved: t1 e1, t2 e2, t3 e1, t4 e3 (left out: first solved at the final epoch), t5 e1
    // (s(e3) - 1): t1 -1, t2 -1, t3 0, t5 -1 -> -3/4
    expect(m.bwt).toBeCloseTo(-0.75, 12);
    // as of e2: first solved at e1: t1 0, t3 -1, t5 0 -> -1/3
    expect(m.epochs[1]!.bwt).toBeCloseTo(-1 / 3, 12);
    expect(m.epochs[0]!.bwt).toBeNull();
  });
});

describe('forgetting edge cases', () => {
  it('skips flip terms whose previous epoch solved nothing (instead of counting them as 0)', () => {
    //      e1 e2 e3 e4
    // t1    0  0  1  0
    // t2    0  0  0  0
    // flip_2, flip_3: nothing solved before -> skipped; flip_4: {t1} -> t1 fails = 1/1
    const m = metrics(['0010', '0000']);
    expect(m.epochs.map((e) => e.flipRate)).toEqual([null, null, null, 1]);
    expect(m.forgettingFlip).toBe(1);
    // forgetting_max: t1 solved at e3, failed at e4 -> 1/2
    expect(m.forgettingMax).toBe(0.5);
    // bwt: only t1 (first solved e3 < e4): 0 - 1 = -1
    expect(m.bwt).toBe(-1);
    expect(m.last).toBe(0);
    expect(m.csrFinal).toBe(0.5);
  });

  it('is null/0 when nothing was ever solved', () => {
    const m = metrics(['000', '000']);
    expect(m.forgettingFlip).toBeNull();
    expect(m.forgettingMax).toBe(0);
    expect(m.bwt).toBeNull();
    expect(m.csrFinal).toBe(0);
  });

  it('a single epoch has no forgetting', () => {
    const m = metrics(['1', '0']);
    expect(m.last).toBe(0.5);
    expect(m.forgettingFlip).toBeNull();
    expect(m.forgettingMax).toBeNull();
    expect(m.bwt).toBeNull();
  });

  it('a task kept solved gives bwt 0 and no forgetting', () => {
    const m = metrics(['111', '011']);
    expect(m.forgettingFlip).toBe(0);
    expect(m.forgettingMax).toBe(0);
    expect(m.bwt).toBe(0);
  });
});

describe('errors, skipped and missing cells', () => {
  it('a crashed or skipped task is a failure and is also counted separately', () => {
    //      e1 e2
    // t1    1  E
    // t2    S  1
    // t3    T  0
    const m = metrics(['1E', 'S1', 'T0']);
    const [e1, e2] = m.epochs;
    // e1: solved t1 -> 1/3; skipped t2
    expect(e1!.acc).toBeCloseTo(1 / 3, 12);
    expect(e1!).toMatchObject({ solved: 1, errors: 0, skipped: 1, ran: 3, missing: 0 });
    expect(e1!.statusCounts).toEqual({ pass: 1, skipped: 1, timeout: 1 });
    // e2: solved t2 -> 1/3; t1 errored
    expect(e2!).toMatchObject({ solved: 1, errors: 1, skipped: 0 });
    expect(e2!.csr).toBeCloseTo(2 / 3, 12);
    // t1 solved at e1 and crashed at e2: counts as forgotten. flip_2 = 1/1; forgetting_max = 1/3
    expect(m.forgettingFlip).toBe(1);
    expect(m.forgettingMax).toBeCloseTo(1 / 3, 12);
  });

  it("the reference's LLB/HLE accuracy leaves errored rows out of the denominator, beside ours", () => {
    //      e1 e2
    // t1    1  E
    // t2    E  1
    // t3    0  E
    // t4    1  0
    const m = metrics(['1E', 'E1', '0E', '10']);
    // ours: e1 2/4, e2 1/4; excluding errors: e1 2/3, e2 1/2
    expect(m.epochs.map((e) => e.acc)).toEqual([0.5, 0.25]);
    expect(m.epochs.map((e) => e.accExcludingErrors)).toEqual([2 / 3, 0.5]);
    expect(m.lastExcludingErrors).toBe(0.5);
    // A task that did not run stays in the denominator, as in ours; only errors leave it.
    expect(metrics(['1', '.', 'E'], 'train', ['t1', 't2', 't3']).lastExcludingErrors).toBe(0.5);
    // An epoch where every row errored has no reference accuracy (0/0), while ours is 0.
    const all = metrics(['E', 'E']);
    expect(all.last).toBe(0);
    expect(all.lastExcludingErrors).toBeNull();
  });

  it('tasks not run lower acc but are not counted as forgotten', () => {
    //      e1 e2
    // t1    1  1
    // t2    1  .   (the run stopped during e2)
    // t3    0  .
    const m = metrics(['11', '1.', '0.']);
    const e2 = m.epochs[1]!;
    expect(e2).toMatchObject({ ran: 1, missing: 2, solved: 1 });
    expect(e2.acc).toBeCloseTo(1 / 3, 12);
    expect(e2.csr).toBeCloseTo(2 / 3, 12);
    // flip_2: of {t1,t2} solved at e1 only t1 ran at e2, and it passed -> 0/1
    expect(m.forgettingFlip).toBe(0);
    expect(m.forgettingMax).toBe(0);
    expect(m.bwt).toBe(0);
  });

  it('tasks in the set that never ran are in every denominator', () => {
    const m = metrics(['1', '1'], 'train', ['t1', 't2', 't3', 't4']);
    expect(m.tasks).toBe(4);
    expect(m.last).toBe(0.5);
    expect(m.epochs[0]!.missing).toBe(2);
  });

  it('an epoch with no rows at all shows as not run when the epochs are given', () => {
    const m = metrics(['11', '01'], 'train', undefined, [1, 2, 3]);
    expect(m.epochs.map((e) => e.epoch)).toEqual([1, 2, 3]);
    expect(m.epochs[2]).toMatchObject({ acc: 0, ran: 0, missing: 2, avgSteps: null });
    expect(m.last).toBe(0);
  });

  it('an empty task set gives null rates', () => {
    const m = computeMetrics(buildMatrix([], 'train', { taskIds: [], epochs: [1] }));
    expect(m.tasks).toBe(0);
    expect(m.last).toBeNull();
    expect(m.epochs[0]!.csr).toBeNull();
  });
});

describe('average steps and tokens', () => {
  it('averages steps over rows that ran and were not skipped', () => {
    const rows = [
      row({ taskId: 'a', epoch: 1, status: 'pass', steps: 4, totalTokens: 100 }),
      row({ taskId: 'b', epoch: 1, status: 'skipped', steps: 0, totalTokens: 0 }),
      row({ taskId: 'c', epoch: 1, status: 'error', steps: 7, totalTokens: 20 }),
      row({ taskId: 'a', epoch: 2, status: 'fail', steps: 30, totalTokens: 50 }),
    ];
    const m = computeMetrics(buildMatrix(rows, 'train'));
    // e1: (4 + 7) / 2 = 5.5 (b skipped); e2: 30 / 1
    expect(m.epochs.map((e) => e.avgSteps)).toEqual([5.5, 30]);
    expect(m.epochs.map((e) => e.totalTokens)).toEqual([120, 50]);
  });
});

describe('validation with a pre-training pass (epoch 0)', () => {
  //      e0 e1 e2
  // v1    0  1  1
  // v2    1  0  1
  const m = metrics(['011', '101'], 'valid');

  it('treats epoch 0 as the first column', () => {
    expect(m.phase).toBe('valid');
    expect(m.epochs.map((e) => e.epoch)).toEqual([0, 1, 2]);
    // acc: 1/2, 1/2, 2/2; csr: 1/2, 2/2, 2/2
    expect(m.epochs.map((e) => e.acc)).toEqual([0.5, 0.5, 1]);
    expect(m.epochs.map((e) => e.csr)).toEqual([0.5, 1, 1]);
  });

  it('computes forgetting across e0 -> e1 too', () => {
    // flip(e0->e1): {v2} -> v2 fails = 1; flip(e1->e2): {v1} -> passes = 0; mean 0.5
    expect(m.forgettingFlip).toBe(0.5);
    // final e2: both solved -> forgetting_max 0, bwt (v1 first e1, v2 first e0): (0 + 0)/2 = 0
    expect(m.forgettingMax).toBe(0);
    expect(m.bwt).toBe(0);
    expect(m.last).toBe(1);
  });
});
