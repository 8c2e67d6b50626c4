/**
 * The Q-critic: does a memory's learned Q predict whether the episodes that use it
 * succeed? Three views of the same question:
 *  - pairs: each injected memory's Q at retrieval time against its episode's success
 *    (Pearson = point-biserial r, and Spearman), per epoch and overall, with a bootstrap
 *    interval;
 *  - calibration: Q bins → success rate of those pairs, and the Pearson r between a
 *    bin's mean Q and its success rate (the shape of the paper's Q-vs-success figure);
 *  - memories: each memory's mean Q when injected against the success rate of the
 *    episodes that injected it (memories used at least `minUses` times).
 */
import type { OutcomeRow } from '../metrics/outcome-row.js';
import type { RunInput } from './run-input.js';
import { bootstrapInterval, mean, pearson, spearman } from './stats.js';

export interface Correlation {
  n: number;
  pearson: number | null;
  spearman: number | null;
  /** 95% bootstrap interval of Pearson's r. */
  pearsonCi: [number, number] | null;
}

export interface CalibrationBin {
  lo: number;
  hi: number;
  n: number;
  meanQ: number;
  successRate: number;
}

export interface QCritic {
  overall: Correlation;
  byEpoch: { epoch: number; correlation: Correlation }[];
  calibration: CalibrationBin[];
  /** Pearson over bins with at least `minBinSize` pairs: bin mean Q vs success rate. */
  binnedPearson: number | null;
  memories: Correlation;
}

export interface QCriticOptions {
  bins?: number;
  minBinSize?: number;
  minUses?: number;
  iterations?: number;
  seed?: number;
}

/** Rows whose outcome says something about the memories they used (harness faults say nothing). */
export function scoredRows(rows: readonly OutcomeRow[]): OutcomeRow[] {
  return rows.filter((r) => r.status !== 'error' && r.status !== 'skipped');
}

export function qCritic(run: Pick<RunInput, 'rows'>, opts: QCriticOptions = {}): QCritic {
  const rows = scoredRows(run.rows).filter((r) => r.retrievedQ && r.retrievedQ.length > 0);
  const pairsOf = (rs: readonly OutcomeRow[]): { q: number[]; s: number[] } => {
    const q: number[] = [];
    const s: number[] = [];
    for (const r of rs) for (const v of r.retrievedQ ?? []) {
      q.push(v);
      s.push(r.success ? 1 : 0);
    }
    return { q, s };
  };
  const correlate = (q: readonly number[], s: readonly number[]): Correlation => ({
    n: q.length,
    pearson: pearson(q, s),
    spearman: spearman(q, s),
    pearsonCi: bootstrapInterval(q, s, pearson, { iterations: opts.iterations ?? 1000, seed: opts.seed ?? 0 }),
  });
  const all = pairsOf(rows);
  const epochs = [...new Set(rows.filter((r) => r.phase === 'train').map((r) => r.epoch))].sort((a, b) => a - b);
  const byEpoch = epochs.map((epoch) => {
    const p = pairsOf(rows.filter((r) => r.phase === 'train' && r.epoch === epoch));
    return { epoch, correlation: correlate(p.q, p.s) };
  });
  const calibration = calibrate(all.q, all.s, opts.bins ?? 10);
  const minBin = opts.minBinSize ?? 5;
  const usable = calibration.filter((b) => b.n >= minBin);
  const uses = new Map<string, { q: number[]; s: number[] }>();
  for (const r of rows) {
    r.retrievedIds.forEach((id, i) => {
      const u = uses.get(id) ?? { q: [], s: [] };
      u.q.push(r.retrievedQ![i]!);
      u.s.push(r.success ? 1 : 0);
      uses.set(id, u);
    });
  }
  const mq: number[] = [];
  const ms: number[] = [];
  for (const u of uses.values()) {
    if (u.q.length < (opts.minUses ?? 3)) continue;
    mq.push(mean(u.q));
    ms.push(mean(u.s));
  }
  return {
    overall: correlate(all.q, all.s),
    byEpoch,
    calibration,
    binnedPearson: pearson(
      usable.map((b) => b.meanQ),
      usable.map((b) => b.successRate),
    ),
    memories: correlate(mq, ms),
  };
}

/** Equal-width bins over the observed Q range; empty bins are left out. */
export function calibrate(q: readonly number[], s: readonly number[], bins: number): CalibrationBin[] {
  if (q.length === 0) return [];
  const lo = Math.min(...q);
  const hi = Math.max(...q);
  const n = hi > lo ? bins : 1;
  const width = (hi - lo) / n;
  const acc = Array.from({ length: n }, () => ({ n: 0, q: 0, s: 0 }));
  q.forEach((v, i) => {
    const b = width > 0 ? Math.min(n - 1, Math.floor((v - lo) / width)) : 0;
    acc[b]!.n++;
    acc[b]!.q += v;
    acc[b]!.s += s[i]!;
  });
  return acc.flatMap((a, b) => (a.n === 0 ? [] : [{ lo: lo + b * width, hi: b === n - 1 ? hi : lo + (b + 1) * width, n: a.n, meanQ: a.q / a.n, successRate: a.s / a.n }]));
}
