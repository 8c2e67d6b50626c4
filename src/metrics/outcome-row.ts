/**
 * One row of the persisted outcome matrix: one task × epoch × phase.
 *
 * Every metric memrl reports is recomputed from these rows, so they are written
 * as each episode finishes (outcomes.jsonl) and read back through the zod schema
 * below (resume, `memrl report`, Arrow export).
 */
import { z } from 'zod';

/**
 * How an episode ended. 'error': the harness, the endpoint or the task failed (not the
 * model's answer), counted in errors_t; 'skipped': not run.
 */
export const OUTCOME_STATUSES = ['pass', 'fail', 'timeout', 'syntax_error', 'runtime_error', 'error', 'skipped'] as const;
export type OutcomeStatus = (typeof OUTCOME_STATUSES)[number];

export const OUTCOME_PHASES = ['train', 'valid'] as const;
export type OutcomePhase = (typeof OUTCOME_PHASES)[number];

const count = z.number().int().nonnegative();

/** The row's fields (outcomeRowSchema adds the checks across fields). */
export const outcomeRowObject = z.object({
  runId: z.string().min(1).optional(),
  benchmark: z.string().min(1),
  taskId: z.string().min(1),
  /** 0-based position of the task in its phase's task list (the replay order). */
  taskIndex: count,
  /** 1-based training epoch; 0 = the validation pass before any training. */
  epoch: count,
  phase: z.enum(OUTCOME_PHASES),
  status: z.enum(OUTCOME_STATUSES),
  /** True exactly when status is 'pass' (checked below). */
  success: z.boolean(),
  reward: z.number().finite(),
  steps: count,
  /** First line of the error (status error/timeout/..., or a harness failure). */
  error: z.string().optional(),
  /** Ids of the memories injected into this episode, in prompt order. */
  retrievedIds: z.array(z.string()),
  /** Q-values of retrievedIds at retrieval time (same order and length). */
  retrievedQ: z.array(z.number().finite()).optional(),
  /** Cosine similarity of each retrieved memory's key to this task (same order). */
  retrievedSim: z.array(z.number().finite()).optional(),
  /** Phase-A candidate pool size at retrieval. */
  pool: count.optional(),
  /** True when the epsilon draw picked a random subset instead of the top scores. */
  explored: z.boolean().optional(),
  promptTokens: count,
  completionTokens: count,
  totalTokens: count,
  latencyMs: z.number().nonnegative().finite().optional(),
  /** The memory this episode wrote at the batch barrier, if any. */
  memoryId: z.string().optional(),
  /** ISO-8601 time the episode finished (ordering and debugging only). */
  finishedAt: z.string().optional(),
  /** Benchmark-specific details (e.g. BCB test output summary, HLE judge verdict). */
  extra: z.record(z.unknown()).optional(),
});

export const outcomeRowSchema = outcomeRowObject.superRefine((row, ctx) => {
  if (row.success !== (row.status === 'pass')) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['success'],
      message: `success=${row.success} contradicts status='${row.status}' (success must be true exactly when status is 'pass')`,
    });
  }
  if (row.phase === 'train' && row.epoch < 1) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['epoch'],
      message: 'train rows have epoch >= 1 (epoch 0 is the validation pass before training)',
    });
  }
  if (row.retrievedQ !== undefined && row.retrievedQ.length !== row.retrievedIds.length) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['retrievedQ'],
      message: `retrievedQ has ${row.retrievedQ.length} values for ${row.retrievedIds.length} retrievedIds`,
    });
  }
});

export type OutcomeRow = z.infer<typeof outcomeRowObject>;
export type OutcomeRowStatus = OutcomeRow['status'];

/** Validate an unknown value as a row; throws a message naming the offending fields. */
export function parseOutcomeRow(value: unknown, where = 'outcome row'): OutcomeRow {
  const parsed = outcomeRowSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(row)'}: ${i.message}`).join('; ');
    throw new Error(`${where}: invalid outcome row: ${issues}`);
  }
  return parsed.data;
}

