/**
 * HLE questions picked and ordered exactly as the reference's pandas code does, against
 * vectors recorded by running numpy, pandas and the reference's own HLERunner methods
 * (test/fixtures/fidelity/README.md says how).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadHle } from '../../src/bench/hle/dataset.js';
import { NumpyRandomState, pandasSample } from '../../src/util/python/random.js';
import { writeHle, type RawRow } from './helpers.js';

const FIXTURES = 'test/fixtures/fidelity';
const work = mkdtempSync(join(tmpdir(), 'memrl-hle-order-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function vectors<I, O>(file: string): { input: I; output: O }[] {
  const [, ...lines] = readFileSync(join(FIXTURES, file), 'utf8').split('\n').filter((l) => l.trim() !== '');
  return lines.map((l) => JSON.parse(l) as { input: I; output: O });
}

describe("numpy's legacy RandomState, as pandas' sample draws it", () => {
  const cases = vectors<{ n: number; seed: number; k: number }, { permutation: number[]; sample: number[] }>('numpy_permutation.jsonl');

  it.each(cases.map((c) => [`n=${c.input.n} seed=${c.input.seed}`, c] as const))('%s: permutation and sample(n=k)', (_, c) => {
    expect(new NumpyRandomState(c.input.seed).permutation(c.input.n)).toEqual(c.output.permutation);
    const positions = Array.from({ length: c.input.n }, (_, i) => i);
    expect(pandasSample(positions, c.input.k, c.input.seed)).toEqual(c.output.sample);
  });

  it('refuses a seed numpy refuses', () => {
    expect(() => new NumpyRandomState(-1)).toThrow(RangeError);
    expect(() => new NumpyRandomState(2 ** 32)).toThrow(RangeError);
  });
});

interface SelectionInput {
  rows: RawRow[];
  seed: number;
  categories?: string[];
  category_ratio?: number;
  dataset_ratio?: number;
  train_valid_split?: number;
  num_train?: number;
  num_valid?: number;
}

describe("loadHle under the reference's selection (the default): the reference's questions in its order", () => {
  const cases = vectors<SelectionInput, { train: string[]; valid: string[] }>('hle_selection.jsonl');

  it.each(cases.map((c, i) => [`case ${i + 1}: ${JSON.stringify({ ...c.input, rows: c.input.rows.length })}`, c] as const))('%s', async (name, c) => {
    const file = join(work, `${name.slice(0, 7).replace(/\W/g, '')}.parquet`);
    writeHle(file, c.input.rows);
    const r = await loadHle({
      trainPath: file,
      seed: c.input.seed,
      categories: c.input.categories ?? null,
      categoryRatio: c.input.category_ratio ?? 1,
      datasetRatio: c.input.dataset_ratio ?? 1,
      trainValidSplit: c.input.train_valid_split ?? 0.8,
      numTrain: c.input.num_train ?? null,
      numValid: c.input.num_valid ?? null,
    });
    expect(r.train.map((t) => t.id)).toEqual(c.output.train);
    expect(r.valid.map((t) => t.id)).toEqual(c.output.valid);
  });
});
