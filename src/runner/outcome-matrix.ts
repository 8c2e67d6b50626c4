/**
 * The outcome matrix so far: the rows a resumed run kept, then each committed batch and
 * validation pass, in commit order. The epoch's metrics, pass@k's retries and the
 * error-rate stop read it.
 */
import type { OutcomeRow } from '../core/outcome.js';
import { summarize, type RunSummary } from '../metrics/summary.js';

export class OutcomeMatrix {
  constructor(
    /** Every row so far (reporters get this very array). */
    readonly rows: OutcomeRow[],
    private readonly taskIds: { train: readonly string[]; valid: readonly string[] },
  ) {}

  add(rows: readonly OutcomeRow[]): void {
    this.rows.push(...rows);
  }

  /** Training tasks solved in any epoch so far. */
  solved(): Set<string> {
    return new Set(this.rows.filter((r) => r.phase === 'train' && r.success).map((r) => r.taskId));
  }

  /** Metrics over every row so far; validation's only once a pass ran. */
  metrics(): RunSummary {
    const hasValid = this.rows.some((r) => r.phase === 'valid');
    return summarize(this.rows, { trainTaskIds: this.taskIds.train, validTaskIds: hasValid ? this.taskIds.valid : undefined });
  }

  /** Too many errors in this epoch (more than `maxRate` of its episodes): its numbers would describe the fault, not the method. */
  failureOf(epoch: number, maxRate: number | undefined): string | undefined {
    if (maxRate === undefined) return undefined;
    const ran = this.rows.filter((r) => r.epoch === epoch);
    const errors = ran.filter((r) => r.status === 'error');
    if (ran.length === 0 || errors.length / ran.length <= maxRate) return undefined;
    const pct = (x: number) => `${Math.round(100 * x)}%`;
    return `epoch ${epoch}: ${errors.length} of ${ran.length} episodes ended in error (${pct(errors.length / ran.length)} > memrl.max_error_rate ${pct(maxRate)}); the first: ${errors[0]!.error ?? 'no message'}`;
  }
}
