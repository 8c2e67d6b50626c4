/**
 * The files of a run folder (results/<benchmark>/<run-id>/), one module each: its zod
 * schema (the types its writer and every reader use), the format it belongs to, and
 * how a file of an older format is read (one migration per file) or refused.
 *
 *   run.json                  what the run is (run-json.ts)
 *   summary.json              how it ended, headline numbers, usage, memory statistics (summary.ts)
 *   metrics.json              per-epoch metrics, rewritten each epoch (metrics.ts)
 *   checkpoint.json           the learning state at the last completed epoch; checkpoint.prev.json the one before (checkpoint.ts)
 *   journal.jsonl             while an epoch is unfinished: its finished episodes (journal.ts)
 *   outcomes.jsonl            the outcome matrix, one row per task × epoch × phase (outcomes.ts)
 *   memories.jsonl            the memory at the end, without embeddings (memories.ts)
 *   q-history.jsonl           every memory's Q after each epoch (q-history.ts)
 *   traces.jsonl              multi-turn episodes' conversations as their benchmark records them (traces.ts)
 *   transcripts.jsonl.gz      every model call of every episode, texts in transcript-parts.jsonl.gz (transcripts.ts)
 *   spend.json                what every attempt spent, for the budget (spend.ts)
 *   .lock                     while a process runs the folder: who; with summary.json, the evidence of a run's state (run-state.ts)
 *
 * Derived or foreign files have no schema here: outcomes.arrow (the rows again), tb/
 * (TensorBoard's format), responses.jsonl (the reply cache's), log.jsonl (pino's).
 */
export * from './format.js';
export * from './usage.js';
export * from './evaluator.js';
export * from './metrics.js';
export * from './summary.js';
export * from './run-json.js';
export * from './checkpoint.js';
export * from './outcomes.js';
export * from './journal.js';
export * from './memories.js';
export * from './q-history.js';
export * from './traces.js';
export * from './transcripts.js';
export * from './spend.js';
export * from './run-state.js';
