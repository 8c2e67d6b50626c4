/**
 * What `memrl compare` needs from one run, whatever it was read from (a run folder,
 * a summary.json, or a saved baseline file): identity fields for the like-with-like
 * check, per-phase headline metrics and per-epoch acc/csr, and — when the source has
 * them — each task's final-epoch status for the solved/failed flips.
 *
 * The zod schema doubles as the `runs[]` entry of the baseline file, so a baseline
 * holds exactly what a comparison reads and nothing else.
 */
import { z } from 'zod';
import type { EvaluatorFacts, SummaryJson } from '../core/run-files/index.js';
import type { MetricsReport } from '../metrics/compute.js';
import { buildMatrix } from '../metrics/matrix.js';
import type { OutcomePhase } from '../metrics/outcome-row.js';
import type { RunFolder } from '../results/run-folder.js';
import { metricValues } from './metrics.js';

const rate = z.number().min(0).max(1).nullable();

const phaseSchema = z.object({
  tasks: z.number().int().nonnegative(),
  epochs: z.array(z.object({ epoch: z.number().int().nonnegative(), acc: rate, csr: rate })),
  metrics: z.object({
    last: rate,
    csr: rate,
    forgetting_flip: rate,
    forgetting_max: rate,
    bwt: z.number().min(-1).max(0).nullable(),
  }),
  /**
   * taskId → status in the final epoch ('pass' is solved; 'not_run' when the task
   * has no row there). null when the source only has aggregate numbers.
   */
  final: z.record(z.string()).nullable(),
});

export const runDataSchema = z.object({
  id: z.string(),
  benchmark: z.string(),
  method: z.string(),
  model: z.string(),
  simulated: z.boolean(),
  /** The data split label (e.g. 'hard_seed42.json (103/45), limit 5'); null when unknown. */
  split: z.string().nullable(),
  seed: z.number().nullable(),
  status: z.string(),
  /** Why, for a run that is not complete (results/run-status.ts). */
  statusReason: z.string().optional(),
  /** Who judged the episodes, e.g. 'local-bwrap reference, python 3.11.2': the same code can get other verdicts elsewhere. */
  evaluator: z.string().nullable().optional(),
  phases: z.object({ train: phaseSchema.optional(), valid: phaseSchema.optional() }),
});

export type PhaseData = z.infer<typeof phaseSchema>;
export type RunData = z.infer<typeof runDataSchema>;

/** A run plus where it came from (for messages and reports). */
export interface LoadedRun {
  data: RunData;
  source: string;
  kind: 'run-folder' | 'summary' | 'baseline';
}

export const NOT_RUN = 'not_run';

function phaseFromReport(report: MetricsReport, final: Record<string, string> | null): PhaseData {
  return {
    tasks: report.tasks,
    epochs: report.epochs.map((e) => ({ epoch: e.epoch, acc: e.acc, csr: e.csr })),
    metrics: metricValues(report),
    final,
  };
}

export function runDataFromFolder(run: RunFolder): RunData {
  const phase = (p: OutcomePhase, report: MetricsReport | undefined, ids: string[]): PhaseData | undefined => {
    if (!report) return undefined;
    // Same task list as the metrics, so "final" covers exactly the denominator of last.
    const m = buildMatrix(run.rows, p, { taskIds: ids.length ? ids : undefined });
    const k = m.epochs.length - 1;
    const final: Record<string, string> = {};
    m.taskIds.forEach((id, i) => {
      final[id] = k >= 0 ? (m.cells[i]![k]?.status ?? NOT_RUN) : NOT_RUN;
    });
    return phaseFromReport(report, final);
  };
  const valid = phase('valid', run.metrics.valid, run.validTaskIds);
  return {
    id: run.id,
    benchmark: run.benchmark,
    method: run.method,
    model: run.model,
    simulated: run.simulated,
    split: run.split,
    seed: run.seed,
    status: run.status,
    ...(run.statusReason ? { statusReason: run.statusReason } : {}),
    evaluator: describeEvaluator(run.manifest.evaluator),
    phases: { train: phase('train', run.metrics.train, run.trainTaskIds), ...(valid ? { valid } : {}) },
  };
}

/** summary.json carries the full metrics reports but no per-task outcomes and no split. */
export function runDataFromSummary(summary: SummaryJson, id: string): RunData {
  const { metrics } = summary;
  return {
    id,
    benchmark: summary.benchmark,
    method: summary.method,
    model: summary.model,
    simulated: summary.simulated || summary.model === 'sim',
    split: null,
    seed: null,
    status: summary.status,
    ...(summary.failure ? { statusReason: summary.failure } : {}),
    evaluator: null,
    phases: {
      train: phaseFromReport(metrics.train, null),
      ...(metrics.valid ? { valid: phaseFromReport(metrics.valid, null) } : {}),
    },
  };
}

function describeEvaluator({ backend, mode, pythonVersion }: EvaluatorFacts): string | null {
  if (backend === undefined) return null;
  return [backend, mode !== undefined ? ` ${mode}` : '', pythonVersion != null ? `, python ${pythonVersion}` : ''].join('');
}

export function isSolved(status: string): boolean {
  return status === 'pass';
}
