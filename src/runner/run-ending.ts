/**
 * How a run ends: summary.json and the reporters' run end, both for a run that reached
 * the end of its loop (complete, interrupted, failed by its error rate) and for one an
 * error ended, so that no reader shows a run that is over as still running.
 */
import type { TaskBase } from '../core/benchmark.js';
import type { RunEndSummary } from '../core/run-files/index.js';
import { crashPoint } from '../util/crash-point.js';
import { errorMessage } from '../util/errors.js';
import { fsErrorMessage, humanizeErrno } from '../util/fs-errors.js';
import { redactSecrets } from '../util/redact.js';
import type { OpenRun } from './open-run.js';
import type { Emit } from './rows-later.js';
import type { RunPlan, RunResult } from './run-plan.js';
import { evaluatorChange, runSummary, type SummaryFacts } from './run-summary.js';

export class RunEnding<T extends TaskBase> {
  constructor(
    private readonly plan: RunPlan<T>,
    private readonly run: OpenRun<T>,
    private readonly emit: Emit,
  ) {}

  /** The loop is over: `aborted` (Ctrl-C, a budget, a fatal stop) or fewer epochs than planned is interrupted. */
  async finish(epochsCompleted: number, failure: string | undefined, aborted: boolean): Promise<RunResult> {
    const { plan, run } = this;
    const interrupted = aborted || epochsCompleted < plan.schedule.epochs;
    crashPoint('end');
    const status = failure ? 'failed' : interrupted ? 'interrupted' : 'complete';
    const summary = this.record(status, failure, epochsCompleted, await evaluatorChange(plan.benchmark, run.evaluator, plan.log));
    run.attempts.end(interrupted);
    plan.log.info({ event: 'run_end', epochsCompleted, interrupted }, 'run end');
    return { runDir: plan.folder.dir, epochsCompleted, interrupted, ...(failure ? { failure } : {}), summary };
  }

  /**
   * An error ended the run (an endpoint that refused every call, a full disk, a fault):
   * summary.json says so and why. The journal and checkpoint stay as they are: it
   * resumes once the cause is fixed. Best effort: a write that fails too (the disk is
   * full) must not replace the error that ended it.
   */
  byError(err: unknown, epochsCompleted: number, aborted: boolean): void {
    try {
      const status = aborted ? 'interrupted' : 'failed';
      const failure = aborted ? undefined : failureLine(err, `memrl run ${this.plan.benchmark.name} --resume ${this.plan.folder.dir}`);
      this.record(status, failure, epochsCompleted, undefined);
      this.plan.log.error({ event: 'run_end', status, failure }, 'run ended by an error');
    } catch {
      // The reader then finds no run-end record of this attempt: interrupted, resumable.
    }
  }

  /** summary.json and the reporters' run end. */
  private record(status: SummaryFacts['status'], failure: string | undefined, epochsCompleted: number, evaluatorAtEnd: SummaryFacts['evaluatorAtEnd']): RunEndSummary {
    const { plan, run } = this;
    const facts = { epochsCompleted, epochsPlanned: plan.schedule.epochs, model: run.model, method: run.methodName, benchmark: plan.benchmark.name };
    const summary = runSummary({ status, failure, evaluatorAtEnd, ...facts, usage: run.ledger.snapshot(), memory: run.method.stats(), metrics: run.matrix.metrics() });
    this.emit('onRunEnd', { info: run.info, status, summary, records: run.method.records() });
    return summary;
  }
}

/** The one line summary.json keeps of the error that ended a run: an errno in words, secrets redacted. */
function failureLine(err: unknown, resume: string): string {
  return fsErrorMessage(err, { resume }) ?? humanizeErrno(redactSecrets(errorMessage(err))).split('\n')[0]!;
}
