import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../../src/metrics/compute.js';
import { buildMatrix } from '../../src/metrics/matrix.js';
import { BUILTIN_BENCHMARKS } from '../../src/bench/registry.js';
import { epochScalars, writeEpochScalars, type TagFamily } from '../../src/metrics/tensorboard/tags.js';
import { rowsFromGrid } from './helpers.js';

//      e1 e2
// t1    1  0
// t2    0  1
// t3    0  0
// t4    1  1
const train = computeMetrics(buildMatrix(rowsFromGrid(['10', '01', '00', '11']), 'train'));
//      e0 e1
// v1    0  1
// v2    0  0
const valid = computeMetrics(buildMatrix(rowsFromGrid(['01', '00'], 'valid'), 'valid'));

const asMap = (xs: { tag: string; value: number; step: number }[]) =>
  Object.fromEntries(xs.map((x) => [x.tag, [x.value, x.step]]));

/** The reference tags a built-in benchmark's module declares. */
const familyOf = (name: string): TagFamily => BUILTIN_BENCHMARKS.find((b) => b.name === name)!.tagFamily!;
const [hle, alfworld, llb, bcb] = ['hle', 'alfworld', 'llb', 'bcb'].map(familyOf) as [TagFamily, TagFamily, TagFamily, TagFamily];

describe('tag families', () => {
  it('a benchmark without reference tags (a name, or other) gets memrl\'s tags only', () => {
    for (const family of ['other', 'something-new'] as const) {
      const tags = epochScalars(family, train).map((s) => s.tag);
      expect(tags.length).toBeGreaterThan(0);
      expect(tags.every((t) => t.startsWith('memrl/train/'))).toBe(true);
    }
  });

  it('writes the reference tags first, in the order the module lists them', () => {
    expect(epochScalars(alfworld, train, { epoch: 2 }).map((s) => s.tag).slice(0, 4)).toEqual([
      'Train/Section_Success_Rate',
      'Train/Cumulative_Success_Rate',
      'Train/Section_Avg_Steps',
      'memrl/train/acc',
    ]);
  });
});

describe('epochScalars', () => {
  it('HLE train: Section_Acc and Cumulative_Acc at step = epoch', () => {
    const m = asMap(epochScalars(hle, train, { epoch: 2 }));
    // e2: acc = {t2,t4} 2/4; csr = {t1,t2,t4} 3/4
    expect(m['Train/Section_Acc']).toEqual([0.5, 2]);
    expect(m['Train/Cumulative_Acc']).toEqual([0.75, 2]);
    expect(m['memrl/train/csr']).toEqual([0.75, 2]);
    // flip_2: {t1,t4} solved at e1, t1 fails -> 1/2
    expect(m['memrl/train/forgetting_flip']).toEqual([0.5, 2]);
  });

  it('HLE valid: Evaluation/Acc and Valid/Cumulative_Acc, including epoch 0', () => {
    expect(asMap(epochScalars(hle, valid, { epoch: 0 }))['Evaluation/Acc']).toEqual([0, 0]);
    const m = asMap(epochScalars(hle, valid));
    expect(m['Evaluation/Acc']).toEqual([0.5, 1]);
    expect(m['Valid/Cumulative_Acc']).toEqual([0.5, 1]);
    expect(m['Train/Section_Acc']).toBeUndefined();
  });

  it('ALFWorld/LLB: success-rate tags and Evaluation/Success_Rate/<set>', () => {
    const t = asMap(epochScalars(alfworld, train, { epoch: 1 }));
    expect(t['Train/Section_Success_Rate']).toEqual([0.5, 1]);
    expect(t['Train/Cumulative_Success_Rate']).toEqual([0.5, 1]);
    expect(t['Train/Section_Avg_Steps']).toEqual([1, 1]);
    expect(asMap(epochScalars(alfworld, valid))['Evaluation/Success_Rate/eval_in_distribution']).toEqual([0.5, 1]);
    expect(asMap(epochScalars(llb, valid))['Evaluation/Success_Rate/Validation']).toEqual([0.5, 1]);
    expect(asMap(epochScalars(llb, valid, { evalSet: 'os_val' }))['Evaluation/Avg_Steps/os_val']).toEqual([1, 1]);
  });

  it('BCB: bcb/<phase>/pass_at_1', () => {
    expect(asMap(epochScalars(bcb, train))['bcb/train/pass_at_1']).toEqual([0.5, 2]);
    expect(asMap(epochScalars(bcb, valid))['bcb/valid/pass_at_1']).toEqual([0.5, 1]);
  });

  it('leaves out metrics that are undefined at that epoch', () => {
    const m = asMap(epochScalars(bcb, train, { epoch: 1 }));
    expect(m['memrl/train/forgetting_flip']).toBeUndefined();
    expect(m['memrl/train/bwt']).toBeUndefined();
    expect(m['memrl/train/acc']).toEqual([0.5, 1]);
  });

  it('throws for an epoch the report does not have', () => {
    expect(() => epochScalars(bcb, train, { epoch: 7 })).toThrow(/epoch 7/);
  });

  it('writeEpochScalars sends the same scalars to the writer', () => {
    const got: [string, number, number][] = [];
    const n = writeEpochScalars({ scalar: (tag, value, step) => void got.push([tag, value, step]) }, bcb, train);
    expect(n).toBe(got.length);
    expect(got).toContainEqual(['bcb/train/pass_at_1', 0.5, 2]);
  });
});
