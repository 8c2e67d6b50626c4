/**
 * Metrics of one phase, computed from its outcome matrix with one definition for
 * every benchmark (the reference runners disagree with each other; see
 * docs/benchmarks.md, "Common protocol").
 *
 * Notation: N tasks in the set, matrix columns e_1 < … < e_T (epochs; validation may
 * start at e_1 = 0, the pass before training). For task i and column k:
 *   ran_i(k) = the task has a row in that epoch;
 *   s_i(k)   = 1 if it ran and succeeded, else 0 (not run, fail, timeout, error and
 *              skipped all count as not solved).
 *
 * Per column k:
 *   acc_k   = Σ_i s_i(k) / N
 *   csr_k   = |{i : s_i(j) = 1 for some j ≤ k}| / N
 *   flip_k  (k ≥ 2) = |{i : s_i(k−1) = 1, ran_i(k), s_i(k) = 0}| / |{i : s_i(k−1) = 1, ran_i(k)}|,
 *             null when that denominator is 0.
 * Forgetting "as of column k" (k treated as the final epoch):
 *   forgettingFlip_k = mean of the non-null flip_j, 2 ≤ j ≤ k; null if there are none
 *             (epochs with nothing solved in the previous epoch are skipped, not 0).
 *   forgettingMax_k  = (1/N) Σ_i f_i(k),  f_i(k) = max(0, max_{j<k} s_i(j) − s_i(k)) when
 *             ran_i(k), else 0. Chaudhry-style per task; with 0/1 outcomes f_i is 1
 *             exactly when the task was solved in some earlier epoch and failed at k.
 *             Averaged over ALL N tasks (never-solved tasks contribute 0); null if k = 1.
 *   bwt_k     = mean over B_k of (s_i(k) − s_i(first_i)) = mean over B_k of (s_i(k) − 1),
 *             first_i = the first column where task i was solved,
 *             B_k = {i : first_i < k and ran_i(k)}; null if B_k is empty.
 *             "Final accuracy minus accuracy at the epoch the task was first solved",
 *             GEM-style: tasks first solved at k itself are left out (they had no chance
 *             to be forgotten, as GEM leaves out the last task). In [−1, 0]; equals
 *             −(tasks forgotten at k) / (tasks solved before k that ran at k).
 * Tasks not run in column k (a partial epoch after a crash) lower acc/csr but are not
 * counted as forgotten: the forgetting terms only use tasks that ran at k.
 *   accExcludingErrors_k = Σ_i s_i(k) / (N − |{i : ran_i(k), status_i(k) = error}|): accuracy
 *             as the reference's LLB and HLE runners count it (a crashed row leaves the
 *             denominator instead of counting as a failure); null when every task errored.
 * Report level: last = acc_T, csrFinal = csr_T, lastExcludingErrors, and the forgetting
 * values of column T.
 */
import type { OutcomeMatrix } from './matrix.js';
import type { OutcomePhase, OutcomeRowStatus } from './outcome-row.js';

export interface EpochMetrics {
  epoch: number;
  /** null only when the task set is empty. */
  acc: number | null;
  /** Solved over the rows that did not end in `error`: the reference's LLB/HLE denominator. */
  accExcludingErrors: number | null;
  csr: number | null;
  solved: number;
  /** Tasks with a row in this epoch. */
  ran: number;
  /** Tasks with no row in this epoch (counted as not solved). */
  missing: number;
  /** Rows with status 'error' (the harness or evaluator failed). */
  errors: number;
  skipped: number;
  statusCounts: Partial<Record<OutcomeRowStatus, number>>;
  /** Mean steps over rows that ran and were not skipped; null if none. */
  avgSteps: number | null;
  totalTokens: number;
  /** flip_k: share of the previous epoch's solved tasks that failed here. */
  flipRate: number | null;
  /** Forgetting as of this epoch (see the module comment). */
  forgettingFlip: number | null;
  forgettingMax: number | null;
  bwt: number | null;
}

export interface MetricsReport {
  phase: OutcomePhase;
  tasks: number;
  epochs: EpochMetrics[];
  /** acc at the final epoch. */
  last: number | null;
  /** accExcludingErrors at the final epoch (the reference's LLB/HLE accuracy). */
  lastExcludingErrors: number | null;
  csrFinal: number | null;
  forgettingFlip: number | null;
  forgettingMax: number | null;
  bwt: number | null;
  /** Rows that did not enter the matrix (see OutcomeMatrix). */
  ignoredRows: { unknownTask: number; unknownEpoch: number; duplicate: number };
}

export function computeMetrics(matrix: OutcomeMatrix): MetricsReport {
  const n = matrix.taskIds.length;
  const rate = (x: number): number | null => (n === 0 ? null : x / n);
  const s = (i: number, k: number): number => (matrix.cells[i]![k]?.success ? 1 : 0);

  // first[i]: first column where task i was solved, or Infinity.
  const first = matrix.cells.map((line) => {
    const k = line.findIndex((c) => c?.success === true);
    return k < 0 ? Infinity : k;
  });

  const epochs: EpochMetrics[] = [];
  const flips: number[] = [];
  for (let k = 0; k < matrix.epochs.length; k++) {
    let solved = 0;
    let everSolved = 0;
    let ranCount = 0;
    let errors = 0;
    let skipped = 0;
    let stepSum = 0;
    let stepCount = 0;
    let totalTokens = 0;
    const statusCounts: Partial<Record<OutcomeRowStatus, number>> = {};
    let flipNum = 0;
    let flipDen = 0;
    let forgotten = 0;
    let bwtSum = 0;
    let bwtCount = 0;

    for (let i = 0; i < n; i++) {
      const row = matrix.cells[i]![k];
      if (first[i]! <= k) everSolved++;
      if (row === undefined) continue;
      ranCount++;
      statusCounts[row.status] = (statusCounts[row.status] ?? 0) + 1;
      totalTokens += row.totalTokens;
      if (row.success) solved++;
      if (row.status === 'error') errors++;
      if (row.status === 'skipped') skipped++;
      else {
        stepSum += row.steps;
        stepCount++;
      }
      if (k >= 1 && s(i, k - 1) === 1) {
        flipDen++;
        if (!row.success) flipNum++;
      }
      if (first[i]! < k) {
        // Solved at some earlier column, so max_{j<k} s_i(j) = 1.
        if (!row.success) forgotten++;
        bwtSum += s(i, k) - 1;
        bwtCount++;
      }
    }

    const flipRate = k >= 1 && flipDen > 0 ? flipNum / flipDen : null;
    if (flipRate !== null) flips.push(flipRate);
    epochs.push({
      epoch: matrix.epochs[k]!,
      acc: rate(solved),
      accExcludingErrors: n - errors === 0 ? null : solved / (n - errors),
      csr: rate(everSolved),
      solved,
      ran: ranCount,
      missing: n - ranCount,
      errors,
      skipped,
      statusCounts,
      avgSteps: stepCount === 0 ? null : stepSum / stepCount,
      totalTokens,
      flipRate,
      forgettingFlip: flips.length === 0 ? null : mean(flips),
      forgettingMax: k === 0 ? null : rate(forgotten),
      bwt: bwtCount === 0 ? null : bwtSum / bwtCount,
    });
  }

  const final = epochs[epochs.length - 1];
  return {
    phase: matrix.phase,
    tasks: n,
    epochs,
    last: final?.acc ?? null,
    lastExcludingErrors: final?.accExcludingErrors ?? null,
    csrFinal: final?.csr ?? null,
    forgettingFlip: final?.forgettingFlip ?? null,
    forgettingMax: final?.forgettingMax ?? null,
    bwt: final?.bwt ?? null,
    ignoredRows: {
      unknownTask: matrix.unknownTaskRows,
      unknownEpoch: matrix.unknownEpochRows,
      duplicate: matrix.duplicateRows,
    },
  };
}

function mean(xs: readonly number[]): number {
  let sum = 0;
  for (const x of xs) sum += x;
  return sum / xs.length;
}
