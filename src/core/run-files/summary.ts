/**
 * summary.json: how a run ended (or stopped), its headline numbers, usage and memory
 * statistics, written by the summary reporter at the end of every attempt. It is also
 * read on its own (`memrl compare summary.json`), so it says its format itself.
 */
import { z } from 'zod';
import { methodStatsSchema } from '../method.js';
import { EvaluatorFactsSchema } from './evaluator.js';
import { parseRunFile, RUN_FORMAT, runFormatOf } from './format.js';
import { MetricsJsonSchema, migrateMetricsV1 } from './metrics.js';
import { LedgerSnapshotSchema } from './usage.js';

export const SUMMARY_FILE = 'summary.json';

/** complete; interrupted (Ctrl-C, a budget: resumable); failed (too many error episodes: fix the cause, then resume). */
export const RUN_STATUSES = ['complete', 'interrupted', 'failed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

const rate = z.number().nullable();

/** The numbers of one phase at its last epoch (the full reports are under `metrics`). */
export const HeadlineSchema = z
  .object({
    tasks: z.number().int().nonnegative(),
    last: rate,
    lastExcludingErrors: rate,
    csr: rate,
    forgettingFlip: rate,
    forgettingMax: rate,
    bwt: rate,
  })
  .strict();

export type Headline = z.infer<typeof HeadlineSchema>;

/** What the runner composes at a run's end (the reporter adds the format). */
export const RunEndSummarySchema = z
  .object({
    status: z.enum(RUN_STATUSES),
    /** Why a failed run stopped. */
    failure: z.string().optional(),
    /** The evaluator's facts at the end, when they differ from run.json's (a part gave out during the run). */
    evaluatorAtEnd: EvaluatorFactsSchema.optional(),
    epochsCompleted: z.number().int().nonnegative(),
    epochsPlanned: z.number().int().nonnegative(),
    model: z.string(),
    simulated: z.boolean(),
    method: z.string(),
    usage: LedgerSnapshotSchema,
    /** The method's own statistics (the built-ins: memories, keys, successes, Q…; plus a method's settings) and its fallbacks by kind. */
    memory: methodStatsSchema,
    benchmark: z.string(),
    train: HeadlineSchema,
    valid: HeadlineSchema.optional(),
    metrics: MetricsJsonSchema,
  })
  .strict();

export type RunEndSummary = z.infer<typeof RunEndSummarySchema>;

/** summary.json: the summary and its format (as written: RUN_FORMAT; as read, the format it was written in). */
export const SummaryJsonSchema = RunEndSummarySchema.extend({ memrlRunFormat: z.number().int() }).strict();

export type SummaryJson = z.infer<typeof SummaryJsonSchema>;

/** summary.json as written (the format first, then the runner's summary in its order). */
export function summaryJson(summary: RunEndSummary): SummaryJson {
  return { memrlRunFormat: RUN_FORMAT, ...summary };
}

/**
 * Format 1 (no memrlRunFormat in summary.json): the headline and metrics may predate
 * lastExcludingErrors and accExcludingErrors (null: not recorded).
 */
function migrateSummaryV1(s: { [key: string]: unknown }): { [key: string]: unknown } {
  const headline = (h: unknown): unknown => (typeof h === 'object' && h !== null ? { lastExcludingErrors: null, ...h } : h);
  return {
    memrlRunFormat: 1,
    ...s,
    ...(s.train !== undefined ? { train: headline(s.train) } : {}),
    ...(s.valid !== undefined ? { valid: headline(s.valid) } : {}),
    ...(s.metrics !== undefined ? { metrics: migrateMetricsV1(s.metrics) } : {}),
  };
}

/** A parsed summary.json of any format this memrl reads, as the current format. */
export function readSummaryJson(value: unknown, file: string): SummaryJson {
  const format = runFormatOf(file, value);
  const doc = typeof value === 'object' && value !== null ? (value as { [key: string]: unknown }) : {};
  return parseRunFile(SummaryJsonSchema, format === 1 ? migrateSummaryV1(doc) : value, file);
}
