/** The statistics the analyses share: correlations, a bootstrap interval, quantiles. */
import { Rng } from '../util/rng.js';

export function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Pearson's r; null with fewer than 2 pairs or when either side is constant (r undefined). */
export function pearson(xs: readonly number[], ys: readonly number[]): number | null {
  const n = xs.length;
  if (n < 2 || ys.length !== n) return null;
  const mx = mean(xs);
  const my = mean(ys);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = xs[i]! - mx;
    const dy = ys[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx === 0 || syy === 0) return null;
  return Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)));
}

/** Ranks 1..n with ties given their average rank (as Spearman's rho needs). */
export function ranks(xs: readonly number[]): number[] {
  const order = xs.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(xs.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) out[order[k]![1]] = rank;
    i = j + 1;
  }
  return out;
}

export function spearman(xs: readonly number[], ys: readonly number[]): number | null {
  return pearson(ranks(xs), ranks(ys));
}

/**
 * Percentile bootstrap interval of a paired statistic: resample the pairs with
 * replacement `iterations` times (seeded, so the interval is reproducible) and take
 * the (1−level)/2 and (1+level)/2 quantiles of the statistic where it is defined.
 */
export function bootstrapInterval(
  xs: readonly number[],
  ys: readonly number[],
  stat: (x: readonly number[], y: readonly number[]) => number | null,
  opts: { iterations?: number; level?: number; seed?: number } = {},
): [number, number] | null {
  const n = xs.length;
  if (n < 2) return null;
  const rng = Rng.derive(opts.seed ?? 0, 'bootstrap');
  const values: number[] = [];
  const bx = new Array<number>(n);
  const by = new Array<number>(n);
  for (let it = 0; it < (opts.iterations ?? 1000); it++) {
    for (let i = 0; i < n; i++) {
      const k = rng.int(n);
      bx[i] = xs[k]!;
      by[i] = ys[k]!;
    }
    const v = stat(bx, by);
    if (v !== null) values.push(v);
  }
  if (values.length === 0) return null;
  values.sort((a, b) => a - b);
  const level = opts.level ?? 0.95;
  return [quantile(values, (1 - level) / 2), quantile(values, (1 + level) / 2)];
}

/** Linear-interpolated quantile of sorted values (numpy's default). */
export function quantile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * p;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export interface Quantiles {
  n: number;
  min: number;
  p25: number;
  median: number;
  p75: number;
  max: number;
  mean: number;
}

export function quantiles(values: readonly number[]): Quantiles | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  return { n: s.length, min: s[0]!, p25: quantile(s, 0.25), median: quantile(s, 0.5), p75: quantile(s, 0.75), max: s.at(-1)!, mean: mean(s) };
}
