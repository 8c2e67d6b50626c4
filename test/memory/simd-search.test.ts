/**
 * Phase A's search through the WebAssembly SIMD shortlist returns exactly what the
 * scalar scan returns (same keys, same order, bit-identical similarities), on data made
 * to break a shortlist: ties, keys a hair either side of the threshold or of the k-th
 * best, duplicates, zero vectors, and dimensions that are not multiples of 16 or 4.
 */
import { describe, expect, it } from 'vitest';
import { KeyIndex } from '../../src/memory/key-index.js';
import { Rng } from '../../src/util/rng.js';

function unit(rng: Rng, dim: number): Float32Array {
  const v = new Float32Array(dim);
  let s = 0;
  for (let j = 0; j < dim; j++) {
    v[j] = rng.next() * 2 - 1;
    s += (v[j] as number) ** 2;
  }
  for (let j = 0; j < dim; j++) v[j] = (v[j] as number) / Math.sqrt(s);
  return v;
}

/** `n` keys around `query`: noise, exact copies, copies nudged in their last bits, zero vectors. */
function indexes(seed: number, n: number, dim: number, query: Float32Array): [KeyIndex, KeyIndex] {
  const rng = new Rng(seed);
  const simd = new KeyIndex({ dim, capacity: 16 });
  const scalar = new KeyIndex({ dim, capacity: 16, simd: false });
  for (let i = 0; i < n; i++) {
    const kind = rng.int(10);
    let v: Float32Array;
    if (kind === 0) v = query.slice(); // ties at the top
    else if (kind === 1) {
      v = query.slice();
      v[rng.int(dim)] = Math.fround((v[rng.int(dim)] as number) * (1 + 2 ** -20)); // a hair off a tie
    } else if (kind === 2) v = new Float32Array(dim); // zero vector: the floored norm
    else if (kind <= 5) {
      // A mix of the query and noise: similarities spread around the thresholds tested.
      const noise = unit(rng, dim);
      const a = rng.next();
      v = new Float32Array(dim);
      for (let j = 0; j < dim; j++) v[j] = a * (query[j] as number) + (1 - a) * (noise[j] as number);
    } else v = unit(rng, dim);
    simd.addKey(`k${i}`, v);
    scalar.addKey(`k${i}`, v);
  }
  return [simd, scalar];
}

describe('SIMD shortlist + exact re-score = the scalar scan', () => {
  for (const dim of [16, 1003, 1536, 3072]) {
    it(`dim ${dim}: every k and threshold, including thresholds set at a key's exact similarity`, () => {
      const rng = new Rng(dim);
      const query = unit(rng, dim);
      const n = Math.ceil((1 << 17) / dim) + 50; // past the size where the shortlist is used
      const [simd, scalar] = indexes(dim, n, dim, query);
      const all = scalar.search(query, -2, n);
      // Thresholds: none, typical ones, and exactly at / a hair around real similarities (the worst case for a margin).
      const at = (r: number): number => all.sims[Math.floor(r * (all.sims.length - 1))] as number;
      const thresholds = [-2, 0, 0.3, at(0.1), at(0.5), at(0.5) + 1e-7, at(0.5) - 1e-7, at(0.9), 0.999999];
      for (const q of [query, unit(rng, dim)]) {
        for (const threshold of thresholds) {
          for (const k of [1, 3, 5, 20, n]) expect(simd.search(q, threshold, k), `k ${k} threshold ${threshold}`).toEqual(scalar.search(q, threshold, k));
        }
      }
    });
  }

  it('keeps the same results when the index grows past its first allocation, row by row', () => {
    const dim = 768;
    const rng = new Rng(5);
    const query = unit(rng, dim);
    const simd = new KeyIndex({ simd: true });
    const scalar = new KeyIndex({ simd: false });
    for (let i = 0; i < 400; i++) {
      const v = unit(rng, dim);
      simd.addKey(`k${i}`, v);
      scalar.addKey(`k${i}`, v);
      if (i % 37 === 0) expect(simd.search(query, 0, 5)).toEqual(scalar.search(query, 0, 5));
    }
    expect(simd.embeddingAt(123)).toEqual(scalar.embeddingAt(123));
  });
});
