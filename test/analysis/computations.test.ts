/**
 * The analyses on constructed runs whose answers are known by hand: a perfectly
 * predictive Q gives r = 1, no retrieval gives churn 0, a run that never drops has no
 * stability loss, and so on.
 */
import { describe, expect, it } from 'vitest';
import { analyzeRun } from '../../src/analysis/analyze.js';
import { ablations, noiseSurvival, similarityVsGain, type RunPoint } from '../../src/analysis/cross-run.js';
import { lifelong } from '../../src/analysis/lifelong.js';
import { memoryDynamics } from '../../src/analysis/memory-dynamics.js';
import { calibrate, qCritic } from '../../src/analysis/q-critic.js';
import { meanPairwiseCosineOf } from '../../src/analysis/similarity.js';
import { bootstrapInterval, pearson, quantile, ranks, spearman } from '../../src/analysis/stats.js';
import { row, runOf } from './fixtures.js';

describe('statistics', () => {
  it('Pearson and Spearman on known series', () => {
    expect(pearson([1, 2, 3, 4], [2, 4, 6, 8])).toBeCloseTo(1, 12);
    expect(pearson([1, 2, 3, 4], [8, 6, 4, 2])).toBeCloseTo(-1, 12);
    // x = [1,2,3], y = [1,3,2]: cov 0.5, var 1 and 1 → r = 0.5
    expect(pearson([1, 2, 3], [1, 3, 2])).toBeCloseTo(0.5, 12);
    expect(pearson([1, 1, 1], [0, 1, 0])).toBeNull();
    // monotone but not linear: Spearman 1, Pearson below 1
    expect(spearman([1, 2, 3, 4], [1, 10, 100, 1000])).toBeCloseTo(1, 12);
    expect(pearson([1, 2, 3, 4], [1, 10, 100, 1000])!).toBeLessThan(0.95);
  });

  it('ranks ties by their average rank', () => {
    expect(ranks([10, 20, 20, 30])).toEqual([1, 2.5, 2.5, 4]);
  });

  it('quantiles interpolate as numpy does', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([1, 2, 3, 4], 0.25)).toBe(1.75);
  });

  it('the bootstrap interval is reproducible and brackets the estimate', () => {
    const x = Array.from({ length: 60 }, (_, i) => i % 7);
    const y = x.map((v, i) => v + ((i * 13) % 5));
    const a = bootstrapInterval(x, y, pearson, { seed: 3 });
    expect(a).toEqual(bootstrapInterval(x, y, pearson, { seed: 3 }));
    const r = pearson(x, y)!;
    expect(a![0]).toBeLessThanOrEqual(r);
    expect(a![1]).toBeGreaterThanOrEqual(r);
    expect(a![1]).toBeLessThanOrEqual(1);
  });
});

describe('Q-critic', () => {
  it('Q that predicts success perfectly gives r = 1 overall, per epoch and over bins', () => {
    const rows = [
      row({ task: 't1', epoch: 1, success: true, ids: ['a'], q: [1] }),
      row({ task: 't2', epoch: 1, success: false, ids: ['b'], q: [0] }),
      row({ task: 't1', epoch: 2, success: true, ids: ['a'], q: [1] }),
      row({ task: 't2', epoch: 2, success: false, ids: ['b'], q: [0] }),
    ];
    const c = qCritic(runOf(rows), { minBinSize: 1, minUses: 1 });
    expect(c.overall.pearson).toBeCloseTo(1, 12);
    expect(c.overall.n).toBe(4);
    expect(c.byEpoch.map((e) => [e.epoch, e.correlation.pearson])).toEqual([
      [1, 1],
      [2, 1],
    ]);
    expect(c.memories.pearson).toBeCloseTo(1, 12);
    expect(c.calibration.at(0)!.successRate).toBe(0);
    expect(c.calibration.at(-1)!.successRate).toBe(1);
  });

  it('leaves out error rows (a harness fault says nothing about the memory) and has no pairs without retrieval', () => {
    const rows = [
      row({ task: 't1', epoch: 1, success: true, ids: ['a'], q: [0.5] }),
      row({ task: 't2', epoch: 1, success: false, ids: ['a'], q: [0.5], status: 'error' }),
      row({ task: 't3', epoch: 1, success: false }),
    ];
    expect(qCritic(runOf(rows)).overall.n).toBe(1);
    expect(qCritic(runOf([row({ task: 't1', epoch: 1, success: true })])).overall).toMatchObject({ n: 0, pearson: null });
  });

  it('calibration bins count every pair once', () => {
    const bins = calibrate([0, 0.1, 0.5, 1], [0, 0, 1, 1], 2);
    expect(bins.map((b) => b.n)).toEqual([2, 2]);
    expect(bins.map((b) => b.successRate)).toEqual([0, 1]);
  });
});

describe('memory dynamics', () => {
  it('no retrieval: churn 0, nothing injected, every memory never retrieved', () => {
    const rows = [1, 2].flatMap((epoch) => ['t1', 't2'].map((task) => row({ task, epoch, success: true, memoryId: `m-${task}-${epoch}` })));
    const d = memoryDynamics(runOf(rows, { memories: rows.map((r) => ({ id: r.memoryId!, key: r.taskId, success: true, q: 0 })) }));
    expect(d.epochs[0]!.churn).toBeNull(); // nothing to compare with in the first epoch
    expect(d.epochs[1]!.churn).toBe(0);
    expect(d.epochs.every((e) => e.injected === 0)).toBe(true);
    expect(d.neverRetrieved).toBe(4);
    expect(d.epochs.map((e) => e.added)).toEqual([2, 2]);
  });

  it('churn is the share of injected memories that differ from last epoch for the same task', () => {
    const rows = [
      row({ task: 't1', epoch: 1, success: true, ids: ['a', 'b'] }),
      row({ task: 't1', epoch: 2, success: true, ids: ['a', 'c'] }),
      row({ task: 't1', epoch: 3, success: true, ids: ['a', 'c'] }),
    ];
    const d = memoryDynamics(runOf(rows));
    expect(d.epochs.map((e) => e.churn)).toEqual([null, 0.5, 0]);
  });

  it('Q quantiles, additions and never-retrieved per epoch come from q-history', () => {
    const rows = [row({ task: 't1', epoch: 1, success: true }), row({ task: 't1', epoch: 2, success: true, ids: ['a'] })];
    const qHistory = [
      { epoch: 1, ids: ['a'], q: [0.2], success: [true] },
      { epoch: 2, ids: ['a', 'b'], q: [0.6, -0.4], success: [true, false] },
    ];
    const d = memoryDynamics(runOf(rows, { qHistory }));
    expect(d.epochs.map((e) => [e.memories, e.added, e.neverRetrieved])).toEqual([
      [1, 1, 1],
      [2, 1, 1],
    ]);
    expect(d.epochs[1]!.q).toMatchObject({ n: 2, min: -0.4, max: 0.6 });
    expect(d.epochs[1]!.q!.median).toBeCloseTo(0.1, 12);
    expect(d.epochs[1]!.qFailureMemories).toMatchObject({ n: 1, max: -0.4 });
    expect(d.epochs[1]!.injectedSuccessShare).toBe(1);
  });

  it('finds failure memories injected with a high Q and how their episodes did', () => {
    const memories = [
      { id: 'f', key: 'k1', success: false, q: 0.9, taskId: 't9' },
      { id: 's', key: 'k2', success: true, q: 0.9 },
    ];
    const rows = [
      row({ task: 't1', epoch: 2, success: true, ids: ['f'], q: [0.8] }),
      row({ task: 't2', epoch: 2, success: false, ids: ['f', 's'], q: [0.7, 0.9] }),
      row({ task: 't3', epoch: 2, success: true, ids: ['f'], q: [0.2] }), // below the threshold
      row({ task: 't4', epoch: 2, success: true, ids: ['s'], q: [0.9] }),
    ];
    const h = memoryDynamics(runOf(rows, { memories }), { highQ: 0.5 }).highQFailures;
    expect(h.memories).toEqual([{ id: 'f', taskId: 't9', uses: 2, successRate: 0.5, maxQ: 0.8 }]);
    expect(h.successWith).toBe(0.5);
    expect(h.successWithout).toBe(1);
  });
});

describe('lifelong metrics', () => {
  it('learning gain, stability loss, forgetting rate and held-out transfer on a hand-made matrix', () => {
    // acc per epoch: 1/2, 1, 1/2 → gain 0, drops [0, 1/2] → stability loss 1/4
    const rows = [
      row({ task: 't1', epoch: 1, success: true }),
      row({ task: 't2', epoch: 1, success: false }),
      row({ task: 't1', epoch: 2, success: true }),
      row({ task: 't2', epoch: 2, success: true }),
      row({ task: 't1', epoch: 3, success: false }),
      row({ task: 't2', epoch: 3, success: true }),
      row({ task: 'v1', epoch: 0, success: false, phase: 'valid' }),
      row({ task: 'v1', epoch: 3, success: true, phase: 'valid' }),
    ];
    const l = lifelong(runOf(rows));
    expect(l.learningGain).toBeCloseTo(0, 12);
    expect(l.stabilityLoss).toBeCloseTo(0.25, 12);
    // flip_2 = 0/1, flip_3 = 1/2 → forgetting rate (forgetting_flip) = 1/4
    expect(l.forgettingRate).toBeCloseTo(0.25, 12);
    expect(l.heldOutTransfer).toBe(1);
  });

  it('says why held-out transfer is missing', () => {
    const l = lifelong(runOf([row({ task: 't1', epoch: 1, success: true })]));
    expect(l.heldOutTransfer).toBeNull();
    expect(l.heldOutNote).toMatch(/no validation ran/);
  });
});

describe('task similarity', () => {
  it('is the mean cosine over pairs of distinct tasks', () => {
    // a·b = 1 (same direction), a·c = b·c = 0 → mean over the 3 pairs = 1/3
    expect(meanPairwiseCosineOf([[1, 0], [2, 0], [0, 3]])).toBeCloseTo(1 / 3, 12);
    expect(meanPairwiseCosineOf([[1, 0]])).toBeNull();
  });
});

describe('across runs', () => {
  const point = (over: Partial<RunPoint>): RunPoint => ({ id: 'x', column: 'hle', method: 'memrl', seed: 1, lastAcc: 0.5, firstAcc: 0.4, params: { k1: 5, k2: 3, weightQ: 0.5 }, rewardNoise: 0, similarity: null, ...over });

  it('an ablation grid per varying parameter, seeds averaged', () => {
    const points = [
      point({ params: { k1: 5, k2: 3, weightQ: 0.5 }, lastAcc: 0.6, seed: 1 }),
      point({ params: { k1: 5, k2: 3, weightQ: 0.5 }, lastAcc: 0.4, seed: 2 }),
      point({ params: { k1: 10, k2: 3, weightQ: 0.5 }, lastAcc: 0.45 }),
    ];
    const a = ablations(points);
    expect(a).toHaveLength(1);
    expect(a[0]).toMatchObject({ axis: 'k1', confounded: [] });
    expect(a[0]!.rows.map((r) => [r.value, r.runs, r.meanLast])).toEqual([
      [5, 2, 0.5],
      [10, 1, 0.45],
    ]);
  });

  it('similarity against the gain over none, correlated across benchmarks', () => {
    const points = [
      ['alfworld', 0.518, 0.3, 0.5],
      ['hle', 0.186, 0.4, 0.45],
      ['bcb', 0.3, 0.5, 0.55],
    ].flatMap(([column, sim, none, memrl]) => [
      point({ column: column as string, method: 'none', lastAcc: none as number, similarity: sim as number }),
      point({ column: column as string, method: 'memrl', lastAcc: memrl as number, similarity: sim as number }),
    ]);
    const s = similarityVsGain(points);
    expect(s.columns.find((c) => c.column === 'alfworld')!.gains.memrl).toBeCloseTo(0.2, 12);
    // gains 0.2, 0.05, 0.05 against similarity 0.518, 0.186, 0.3: positive
    expect(s.correlation.memrl!).toBeGreaterThan(0.8);
  });

  it('how much of the clean gain survives a noisy reward', () => {
    const points = [
      point({ method: 'none', lastAcc: 0.3 }),
      point({ method: 'memrl', lastAcc: 0.5 }),
      point({ method: 'memrl', lastAcc: 0.4, rewardNoise: 0.2 }),
    ];
    const [n] = noiseSurvival(points);
    expect(n).toMatchObject({ method: 'memrl', rewardNoise: 0.2, reference: 'none' });
    expect(n!.survival).toBeCloseTo(0.5, 12);
  });
});

describe('what does not apply', () => {
  it('a method without memory gets one line per section, a method without learned Q no Q-critic', async () => {
    const rows = [row({ task: 't1', epoch: 1, success: true })];
    const none = await analyzeRun(runOf(rows, { method: 'none', keepsMemory: false, learnsQ: false }));
    expect(none.qCritic).toEqual({ notApplicable: expect.stringMatching(/none keeps no memory/) });
    expect(none.memory).toEqual({ notApplicable: expect.stringMatching(/none keeps no memory/) });
    expect(none.similarity).toEqual({ notApplicable: expect.stringMatching(/no task keys/) });
    const memp = await analyzeRun(runOf(rows, { method: 'memp', learnsQ: false }));
    expect(memp.qCritic).toEqual({ notApplicable: expect.stringMatching(/constant/) });
    expect('value' in memp.memory).toBe(true);
  });
});
