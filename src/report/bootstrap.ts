/**
 * Seeded percentile bootstrap of a mean (the across-seed intervals in `memrl table`).
 *
 * Given values x_1..x_n (one per run), draw `resamples` samples of size n with
 * replacement, take each sample's mean, sort those means, and read the 2.5th and
 * 97.5th percentiles with linear interpolation between order statistics
 * (h = (B − 1)·p, the "type 7" rule of R and numpy's default). The generator is
 * seeded by the caller, so the same runs give the same interval every time.
 * With n = 1 there is no spread to resample: the interval is null.
 */
import type { Rng } from '../util/rng.js';

/** `memrl table` and `memrl report`: resamples per cell and the base seed of the intervals. */
export const DEFAULT_RESAMPLES = 2000;
export const DEFAULT_BOOTSTRAP_SEED = 0;

export interface BootstrapInterval {
  mean: number;
  /** Null when n < 2. */
  low: number | null;
  high: number | null;
  n: number;
}

export interface BootstrapOptions {
  resamples: number;
  rng: Rng;
  /** Two-sided coverage; 0.95 unless given. */
  level?: number;
}

export function bootstrapMean(values: readonly number[], opts: BootstrapOptions): BootstrapInterval {
  const n = values.length;
  if (n === 0) throw new Error('bootstrapMean: no values');
  const mean = sum(values) / n;
  if (n === 1) return { mean, low: null, high: null, n };
  const level = opts.level ?? 0.95;
  const means = new Float64Array(opts.resamples);
  for (let b = 0; b < opts.resamples; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += values[opts.rng.int(n)]!;
    means[b] = s / n;
  }
  means.sort();
  const alpha = (1 - level) / 2;
  return { mean, low: quantileSorted(means, alpha), high: quantileSorted(means, 1 - alpha), n };
}

/** Linear interpolation between order statistics of an ascending array. */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

function sum(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}
