/**
 * The metrics a results table can show, read from a run's recomputed metrics
 * (see src/metrics/compute.ts for the definitions).
 */
import type { MetricsReport } from '../metrics/compute.js';

export interface TableMetric {
  key: string;
  /** Column label. */
  label: string;
  /** Which direction the bold "best" cell goes. */
  better: 'higher' | 'lower';
  /** What the number is, for the line under the table. */
  describe: string;
  pick: (report: MetricsReport) => number | null;
}

export const TABLE_METRICS: readonly TableMetric[] = [
  { key: 'last', label: 'Last', better: 'higher', describe: 'accuracy at the final epoch', pick: (r) => r.last },
  { key: 'csr', label: 'CSR', better: 'higher', describe: 'cumulative success rate (solved in any epoch)', pick: (r) => r.csrFinal },
  // The paper's "forgetting rate" is closest to the flip rate: share of solved tasks lost the next epoch.
  { key: 'forgetting', label: 'Forgetting', better: 'lower', describe: 'forgetting_flip, mean share of solved tasks failed the next epoch (lower is better)', pick: (r) => r.forgettingFlip },
  { key: 'forgetting_max', label: 'Forgetting (max)', better: 'lower', describe: 'forgetting_max, share of tasks solved earlier and failed at the end (lower is better)', pick: (r) => r.forgettingMax },
  { key: 'bwt', label: 'BWT', better: 'higher', describe: 'backward transfer over tasks solved before the final epoch (0 = nothing forgotten)', pick: (r) => r.bwt },
  {
    key: 'last_excluding_errors',
    label: 'Last (excl. errors)',
    better: 'higher',
    describe: "accuracy at the final epoch over the rows that did not end in error: how some of the reference's runners count it",
    pick: (r) => r.lastExcludingErrors,
  },
];

export function tableMetric(key: string): TableMetric | undefined {
  return TABLE_METRICS.find((m) => m.key === key);
}
