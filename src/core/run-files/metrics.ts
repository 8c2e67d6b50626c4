/**
 * metrics.json: the train (and validation) metrics over every row so far, rewritten at
 * each epoch end; summary.json carries the same under `metrics`. The numbers are
 * computed below core (src/metrics/compute.ts), whose types are checked equal to these
 * schemas. Readers recompute metrics from the rows (so a fix to the metric code
 * applies to old runs too); this file is for people and other tools.
 */
import { z } from 'zod';
import type { EpochMetrics, MetricsReport } from '../../metrics/compute.js';
import { OUTCOME_PHASES, OUTCOME_STATUSES } from '../../metrics/outcome-row.js';
import type { RunSummary } from '../../metrics/summary.js';
import type { Same } from './format.js';

export const METRICS_FILE = 'metrics.json';

const count = z.number().int().nonnegative();
const rate = z.number().nullable();

export const EpochMetricsSchema = z
  .object({
    epoch: count,
    acc: rate,
    accExcludingErrors: rate,
    csr: rate,
    solved: count,
    ran: count,
    missing: count,
    errors: count,
    skipped: count,
    statusCounts: z.object(Object.fromEntries(OUTCOME_STATUSES.map((s) => [s, count.optional()])) as { [K in (typeof OUTCOME_STATUSES)[number]]: z.ZodOptional<typeof count> }).strict(),
    avgSteps: z.number().nullable(),
    totalTokens: count,
    flipRate: rate,
    forgettingFlip: rate,
    forgettingMax: rate,
    bwt: rate,
  })
  .strict();

export const MetricsReportSchema = z
  .object({
    phase: z.enum(OUTCOME_PHASES),
    tasks: count,
    epochs: z.array(EpochMetricsSchema),
    last: rate,
    lastExcludingErrors: rate,
    csrFinal: rate,
    forgettingFlip: rate,
    forgettingMax: rate,
    bwt: rate,
    ignoredRows: z.object({ unknownTask: count, unknownEpoch: count, duplicate: count }).strict(),
  })
  .strict();

/** metrics.json (and summary.json's `metrics`). */
export const MetricsJsonSchema = z.object({ train: MetricsReportSchema, valid: MetricsReportSchema.optional() }).strict();

export type MetricsJson = z.infer<typeof MetricsJsonSchema>;

const checks: [Same<z.infer<typeof EpochMetricsSchema>, EpochMetrics>, Same<z.infer<typeof MetricsReportSchema>, MetricsReport>, Same<MetricsJson, RunSummary>] = [true, true, true];
void checks;

/**
 * Format 1 metrics from before the reference's LLB/HLE accuracy (accExcludingErrors,
 * lastExcludingErrors) was computed: null there, "not recorded"; the rows still give it
 * (readers recompute metrics from them).
 */
export function migrateMetricsV1(m: unknown): unknown {
  if (typeof m !== 'object' || m === null) return m;
  const report = (r: unknown): unknown => {
    if (typeof r !== 'object' || r === null) return r;
    const { epochs, ...rest } = r as { epochs?: unknown };
    return {
      lastExcludingErrors: null,
      ...rest,
      ...(Array.isArray(epochs) ? { epochs: epochs.map((e: unknown) => (typeof e === 'object' && e !== null ? { accExcludingErrors: null, ...e } : e)) } : {}),
    };
  };
  const { train, valid, ...rest } = m as { train?: unknown; valid?: unknown };
  return { ...rest, ...(train !== undefined ? { train: report(train) } : {}), ...(valid !== undefined ? { valid: report(valid) } : {}) };
}
