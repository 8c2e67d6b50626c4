/**
 * Analyses across runs (a sweep, or any set of run folders): ablation grids over the
 * retrieval parameters, task similarity against each method's gain over `none`, and how
 * much of a clean run's gain survives a noisy reward.
 */
import type { MemoryParams } from '../memory/types.js';
import { mean, pearson } from './stats.js';

/** What the cross-run analyses need of one run. */
export interface RunPoint {
  id: string;
  column: string;
  method: string;
  seed: number | null;
  lastAcc: number | null;
  firstAcc: number | null;
  params: Partial<MemoryParams>;
  rewardNoise: number;
  similarity: number | null;
}

/** The engine parameters an ablation may vary, and what the paper calls them. */
export const ABLATION_AXES = [
  { key: 'k1', label: 'k1 (Phase A recall)' },
  { key: 'k2', label: 'k2 (memories injected)' },
  { key: 'weightQ', label: 'λ (weight of Q)' },
  { key: 'simThreshold', label: 'similarity threshold' },
  { key: 'epsilon', label: 'ε (exploration)' },
  { key: 'alpha', label: 'α (Q learning rate)' },
] as const;

export interface AblationRow {
  value: number;
  runs: number;
  meanLast: number | null;
  seeds: (number | null)[];
}

export interface Ablation {
  column: string;
  method: string;
  axis: string;
  label: string;
  /** The other parameters that vary within the group too (the grid is not one-axis clean). */
  confounded: string[];
  rows: AblationRow[];
}

/** For every (column, method) group of clean runs, one table per parameter that takes ≥ 2 values. */
export function ablations(points: readonly RunPoint[]): Ablation[] {
  const out: Ablation[] = [];
  for (const group of groupBy(points.filter((p) => p.rewardNoise === 0), (p) => `${p.column}\u0000${p.method}`).values()) {
    const varying = ABLATION_AXES.filter((a) => new Set(group.map((p) => JSON.stringify(p.params[a.key]))).size > 1);
    for (const axis of varying) {
      const byValue = groupBy(
        group.filter((p) => typeof p.params[axis.key] === 'number'),
        (p) => String(p.params[axis.key]),
      );
      const rows = [...byValue.values()]
        .map((runs) => {
          const lasts = runs.map((r) => r.lastAcc).filter((x): x is number => x !== null);
          return { value: runs[0]!.params[axis.key] as number, runs: runs.length, meanLast: lasts.length ? mean(lasts) : null, seeds: runs.map((r) => r.seed) };
        })
        .sort((a, b) => a.value - b.value);
      out.push({ column: group[0]!.column, method: group[0]!.method, axis: axis.key, label: axis.label, confounded: varying.filter((v) => v !== axis).map((v) => v.key), rows });
    }
  }
  return out;
}

export interface SimilarityGain {
  column: string;
  similarity: number | null;
  /** Mean last acc of each method minus that of `none` on the same column (clean runs). */
  gains: Record<string, number>;
}

export interface SimilarityVsGain {
  columns: SimilarityGain[];
  /** Across columns, per method: Pearson of similarity vs gain (≥ 3 columns). */
  correlation: Record<string, number | null>;
}

export function similarityVsGain(points: readonly RunPoint[]): SimilarityVsGain {
  const columns: SimilarityGain[] = [];
  for (const group of groupBy(points.filter((p) => p.rewardNoise === 0), (p) => p.column).values()) {
    const lastOf = (method: string): number | null => {
      const xs = group.filter((p) => p.method === method).map((p) => p.lastAcc).filter((x): x is number => x !== null);
      return xs.length ? mean(xs) : null;
    };
    const none = lastOf('none');
    const sims = group.map((p) => p.similarity).filter((x): x is number => x !== null);
    const gains: Record<string, number> = {};
    if (none !== null) for (const m of new Set(group.map((p) => p.method))) {
      const last = lastOf(m);
      if (m !== 'none' && last !== null) gains[m] = last - none;
    }
    columns.push({ column: group[0]!.column, similarity: sims.length ? sims[0]! : null, gains });
  }
  const methods = new Set(columns.flatMap((c) => Object.keys(c.gains)));
  const correlation: Record<string, number | null> = {};
  for (const m of methods) {
    const usable = columns.filter((c) => c.similarity !== null && c.gains[m] !== undefined);
    correlation[m] = usable.length >= 3 ? pearson(usable.map((c) => c.similarity!), usable.map((c) => c.gains[m]!)) : null;
  }
  return { columns, correlation };
}

export interface NoiseSurvival {
  column: string;
  method: string;
  rewardNoise: number;
  noisyLast: number | null;
  cleanLast: number | null;
  /** Against `none` when its runs are there, else against each run's own first epoch. */
  reference: 'none' | 'first-epoch';
  /** (noisy gain) / (clean gain); null when the clean gain is 0 or unknown. */
  survival: number | null;
}

export function noiseSurvival(points: readonly RunPoint[]): NoiseSurvival[] {
  const out: NoiseSurvival[] = [];
  for (const group of groupBy(points, (p) => p.column).values()) {
    const lasts = (ps: readonly RunPoint[], f: (p: RunPoint) => number | null): number | null => {
      const xs = ps.map(f).filter((x): x is number => x !== null);
      return xs.length ? mean(xs) : null;
    };
    const none = lasts(group.filter((p) => p.method === 'none' && p.rewardNoise === 0), (p) => p.lastAcc);
    for (const noisy of groupBy(group.filter((p) => p.rewardNoise > 0), (p) => `${p.method}\u0000${p.rewardNoise}`).values()) {
      const method = noisy[0]!.method;
      const clean = group.filter((p) => p.method === method && p.rewardNoise === 0);
      if (clean.length === 0) continue;
      const noisyLast = lasts(noisy, (p) => p.lastAcc);
      const cleanLast = lasts(clean, (p) => p.lastAcc);
      const gain = (ps: readonly RunPoint[], last: number | null): number | null =>
        last === null ? null : none !== null ? last - none : lasts(ps, (p) => (p.lastAcc !== null && p.firstAcc !== null ? p.lastAcc - p.firstAcc : null));
      const gNoisy = gain(noisy, noisyLast);
      const gClean = gain(clean, cleanLast);
      out.push({
        column: group[0]!.column,
        method,
        rewardNoise: noisy[0]!.rewardNoise,
        noisyLast,
        cleanLast,
        reference: none !== null ? 'none' : 'first-epoch',
        survival: gNoisy !== null && gClean !== null && gClean !== 0 ? gNoisy / gClean : null,
      });
    }
  }
  return out;
}

function groupBy<T>(xs: readonly T[], key: (x: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const x of xs) {
    const k = key(x);
    const list = m.get(k);
    if (list) list.push(x);
    else m.set(k, [x]);
  }
  return m;
}
