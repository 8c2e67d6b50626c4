/**
 * What one episode produces, and how an episode reports that it could not be run.
 *
 * An episode returns an Outcome for every attempt the model made, right or wrong.
 * When the harness, the model endpoint or the task itself fails, the episode throws
 * an EpisodeFault carrying what it got so far (turns, tokens, transcript); only the
 * runner turns faults into `error` rows, so every benchmark records them alike.
 */
import { z } from 'zod';
import { tokenUsageSchema, type TokenUsage } from '../llm/types.js';
import { contract, plainJson } from '../util/contract-schema.js';
import { MemrlError, type FaultKind } from '../util/errors.js';
import { OUTCOME_STATUSES } from '../metrics/outcome-row.js';

export { OUTCOME_STATUSES, OUTCOME_PHASES, outcomeRowSchema, parseOutcomeRow, type OutcomeRow, type OutcomePhase } from '../metrics/outcome-row.js';
export type { OutcomeStatus } from '../metrics/outcome-row.js';

export const outcomeSchema = contract('EpisodeResult', "What `episode` resolves to for every attempt the model made, right or wrong. memrl writes it as the episode's outcome row and hands it to the method's `learn`.", {
  status: z
    .enum(OUTCOME_STATUSES)
    .describe(
      "`pass` when the answer is right; `fail` when it is wrong; `timeout`, `syntax_error`, `runtime_error` for answers that did not run (code benchmarks). `error` and `skipped` are memrl's own (a thrown EpisodeFault becomes an `error` row): an episode returns them only if it really could not judge the answer.",
    ),
  success: z.boolean().describe("True exactly when `status` is `pass`. It is the reward the memory learns from (success reward or failure reward) and what accuracy counts."),
  steps: z.number().int().min(0).describe('Turns the episode took (1 for a single answer). Shown in the row and averaged in the metrics.'),
  finishRank: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("When the episode finished among its batch, on the benchmark's own clock (e.g. the step a game ended at, past max_steps when it ran out, or the model replies it took). The reference's runners collect a batch in finishing order and update Q in that order; methods commit in it under `engine.commit-order=reference` (ties keep task order). Leave it unset when the benchmark collects in task order."),
  error: z.string().optional().describe("First line of what went wrong (a wrong answer's reason, a failed test's message). Shown in the row and `memrl view`."),
  answer: z.string().optional().describe("The model's final answer as scored (code, a letter, a number). Kept in the row."),
  trajectory: z.string().describe("The episode as text: what memory is built from (a method's `learn` gets it; memrl's memory writer turns it into a procedure or stores it raw, per `memory.build_strategy`). Put in it what a later attempt should learn from: the task, the model's reasoning or actions, and the verdict."),
  usage: tokenUsageSchema.describe("Tokens the episode's calls used (sum the replies' `usage`; ZERO_USAGE if you do not count). memrl meters cost from the calls themselves; this is the row's count."),
  extra: z
    .record(z.unknown())
    .optional()
    .describe("Benchmark-specific details kept in the outcome row (plain JSON). A `transcript` key goes to traces.jsonl and an `evaluatorOutput` key to the episode's record in transcripts.jsonl.gz instead."),
}).superRefine((o, ctx) => {
  if (o.success !== (o.status === 'pass')) ctx.addIssue({ code: 'custom', path: ['success'], message: `is ${o.success} but status is '${o.status}' (success is true exactly when status is 'pass')` });
  if (o.extra !== undefined && !plainJson().safeParse(o.extra).success) ctx.addIssue({ code: 'custom', path: ['extra'], message: 'is not plain JSON (it is journaled and written to the outcome row)' });
});
export type Outcome = z.infer<typeof outcomeSchema>;

/** An outcome's benchmark-specific details, kept in its row's `extra` (open-ended: each benchmark its own). */
export type OutcomeExtra = NonNullable<Outcome['extra']>;

/** What an episode had when it failed: kept in the error row. */
export interface PartialEpisode {
  steps?: number;
  trajectory?: string;
  usage?: TokenUsage;
  extra?: OutcomeExtra;
}

/**
 * An episode that could not be completed for a reason that is not the model's answer:
 * `harness` (sandbox, bridge, database), `model` (the endpoint failed after its retries)
 * or `task` (the task's own data). The message becomes the row's error line.
 */
export class EpisodeFault extends MemrlError {
  constructor(
    kind: Exclude<FaultKind, 'user'>,
    code: string,
    message: string,
    readonly partial: PartialEpisode = {},
    options?: { cause?: unknown },
  ) {
    super(kind, code, message, options);
    this.name = 'EpisodeFault';
  }
}
