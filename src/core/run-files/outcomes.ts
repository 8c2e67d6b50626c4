/**
 * outcomes.jsonl: the outcome matrix, one row per task × epoch × phase, appended at
 * each barrier. A row's schema sits with the matrix code below core (src/metrics:
 * the log that appends rows validates each against it, and every metric is computed
 * from rows), and is the one the readers use; its shape is the same in formats 1 and 2.
 */
export { OUTCOME_PHASES, OUTCOME_STATUSES, outcomeRowObject, outcomeRowSchema, parseOutcomeRow, type OutcomePhase, type OutcomeRow, type OutcomeStatus } from '../../metrics/outcome-row.js';
export { readOutcomeRows, OutcomeLog } from '../../metrics/outcome-store.js';

export const OUTCOMES_FILE = 'outcomes.jsonl';
