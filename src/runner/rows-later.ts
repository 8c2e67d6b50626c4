/**
 * A committed batch's rows go to the reporters once the next batch's first calls are
 * out. What reporters write is derived: the journal already holds every episode and
 * every barrier, and a resume cuts the files back and writes them again. So writing them
 * need not hold the barrier, where 32 episodes at once waited 10-35 ms for it. Any other
 * event writes pending rows first, so reporters see the events in the same order.
 */
import { parseOutcomeRow } from '../core/outcome.js';
import type { Reporter } from '../core/reporter.js';

/** Calls one hook of every reporter. */
export type Emit = <K extends keyof Reporter>(hook: K, ...args: Parameters<NonNullable<Reporter[K]>>) => void;

export class RowsLater {
  private pending: (() => void) | undefined;
  /** A write that failed off the main path, thrown at the next event. */
  private failed: unknown;

  constructor(private readonly emitNow: Emit) {}

  /** Every event goes through here. */
  readonly emit: Emit = (hook, ...args) => {
    this.flush();
    this.emitNow(hook, ...args);
  };

  /**
   * Rows are validated here too, off the barrier (128 rows took 3 ms there warm, 15 ms
   * cold): a bad row stops the run at the next event, before it reaches any file and
   * before an epoch's outputs or checkpoint.
   */
  rows(...args: Parameters<NonNullable<Reporter['onRows']>>): void {
    this.flush();
    this.pending = () => {
      for (const row of args[0]) parseOutcomeRow(row, 'outcome row');
      this.emitNow('onRows', ...args);
    };
  }

  /** Write pending rows once the calls started now are out; a failure surfaces at the next event. */
  flushSoon(): void {
    setImmediate(() => {
      try {
        this.flush();
      } catch (err) {
        this.failed ??= err;
      }
    });
  }

  flush(): void {
    if (this.failed !== undefined) throw this.failed;
    const pending = this.pending;
    this.pending = undefined;
    pending?.();
  }
}
