/**
 * What one episode produces, and how an episode reports that it could not be run.
 *
 * An episode returns an Outcome for every attempt the model made, right or wrong.
 * When the harness, the model endpoint or the task itself fails, the episode throws
 * an EpisodeFault carrying what it got so far (turns, tokens, transcript); only the
 * runner turns faults into `error` rows, so every benchmark records them alike.
 */
import type { TokenUsage } from '../llm/types.js';
import { MemrlError, type FaultKind } from '../util/errors.js';

export { OUTCOME_STATUSES, OUTCOME_PHASES, outcomeRowSchema, parseOutcomeRow, type OutcomeRow, type OutcomePhase } from '../metrics/outcome-row.js';
export type { OutcomeStatus } from '../metrics/outcome-row.js';
import type { OutcomeRow, OutcomeStatus } from '../metrics/outcome-row.js';

/** An outcome's benchmark-specific details, kept in its row's `extra` (open-ended: each benchmark its own). */
export type OutcomeExtra = NonNullable<OutcomeRow['extra']>;

export interface Outcome {
  status: OutcomeStatus;
  success: boolean;
  steps: number;
  /** First line of the error, if any. */
  error?: string;
  /** The model's final answer (code, SQL answer, ...). */
  answer?: string;
  /** Text stored as the trajectory of this episode (for memory building). */
  trajectory: string;
  usage: TokenUsage;
  /** Benchmark-specific details kept in the outcome row (a `transcript` goes to traces.jsonl, an `evaluatorOutput` to the episode's record in transcripts.jsonl.gz). */
  extra?: OutcomeExtra;
}

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
