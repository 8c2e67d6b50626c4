/**
 * The reporter contract: every output of a run (outcomes.jsonl and .arrow, traces,
 * metrics.json, TensorBoard, summary.json, memories.jsonl, the progress bar, the
 * terminal lines, the response recording) is a Reporter held in a map by name. The
 * runner calls the hooks in this order:
 *
 *   onTasksLoaded → onRunStart → ( onPhaseStart → onEpisode* → onPhaseEnd → onRows )*
 *   → onEpochEnd (per epoch) → onRunEnd → close
 *
 * Crash safety is the runner's: a hook that writes a file does so atomically or
 * append-only, and everything written in onEpochEnd is on disk before the epoch's
 * checkpoint. Hooks are synchronous so that order is the order on disk.
 */
import { z } from 'zod';
import type { MemoryRecord } from '../memory/types.js';
import type { TagFamily } from '../metrics/tensorboard/tags.js';
import type { RunSummary } from '../metrics/summary.js';
import type { Transcript } from '../metrics/transcripts.js';
import { contract, fn, opaque } from '../util/contract-schema.js';
import type { OutcomeRow } from './outcome.js';
import { RUN_STATUSES, type RunEndSummary } from './run-files/summary.js';
import type { TraceLine } from './run-files/traces.js';

const rows = opaque<readonly OutcomeRow[]>('OutcomeRow[]');
const memoryRecords = opaque<readonly Readonly<MemoryRecord>[]>('MemoryRecord[]');

export const runInfoSchema = contract('RunInfo', 'The run a hook is about.', {
  runDir: z.string().describe('The run folder.'),
  benchmark: z.string().describe("The benchmark's name."),
  tagFamily: opaque<TagFamily | string>('TagFamily | string').describe("The benchmark module's reference TensorBoard tags; a name or 'other': memrl's tags only."),
  validSetLabel: z.string().optional().describe('Validation set name for `Evaluation/…/<set>` tags, if the benchmark has its own.'),
  trainTaskIds: z.array(z.string()).readonly().describe('Training task ids, in order.'),
  validTaskIds: z.array(z.string()).readonly().describe('Validation task ids, in order.'),
});
export type RunInfo = z.infer<typeof runInfoSchema>;

/** One episode's full conversation (multi-turn benchmarks), kept beside its row (a traces.jsonl line without the benchmark). */
export type Trace = Omit<TraceLine, 'benchmark'>;

export const runStartEventSchema = contract('RunStartEvent', 'What `onRunStart` gets.', {
  info: runInfoSchema,
  resuming: z.boolean().describe('True when an existing run folder is being continued.'),
  keptUpToEpoch: z.number().int().describe('Rows up to this epoch are kept (the checkpointed ones; -1: none); later ones will run again.'),
  kept: rows.describe('Those rows, in file order.'),
  notices: z.array(z.string()).readonly().describe('Worth telling the user as the run starts (e.g. a damaged checkpoint fallen back from).'),
});
export type RunStartEvent = z.infer<typeof runStartEventSchema>;

export const epochEndEventSchema = contract('EpochEndEvent', 'What `onEpochEnd` gets.', {
  info: runInfoSchema,
  epoch: z.number().int().describe('The epoch that ended.'),
  epochs: z.number().int().describe('Epochs in the run.'),
  metrics: opaque<RunSummary>('RunSummary').describe('Metrics over every row so far.'),
  rows: rows.describe('Every row so far, in commit order.'),
  memories: z.number().int().describe('Memories after the epoch.'),
  records: memoryRecords.optional().describe('The memory after the epoch (its Q values feed q-history.jsonl and the TensorBoard histograms).'),
});
export type EpochEndEvent = z.infer<typeof epochEndEventSchema>;

export const runEndEventSchema = contract('RunEndEvent', 'What `onRunEnd` gets.', {
  info: runInfoSchema,
  status: z.enum(RUN_STATUSES).describe('How the run ended.'),
  summary: opaque<RunEndSummary>('RunEndSummary').describe('summary.json as the runner composed it (the summary reporter adds the format; its schema: src/core/run-files/summary.ts).'),
  records: memoryRecords.describe('The memory at the end.'),
});
export type RunEndEvent = z.infer<typeof runEndEventSchema>;

const hook = <F extends (...args: never[]) => void>(params: readonly (readonly [string, z.ZodTypeAny])[]) => fn<F>(params, z.void() as unknown as z.ZodType<ReturnType<F>, z.ZodTypeDef, unknown>).optional();

export const reporterSchema = contract('Reporter', "An output of a run. Every hook is optional and synchronous (so order is the order on disk); the runner calls them in the order listed. A program that starts runs itself (`startRun` from 'memrl/app') may add its own in `reporters`.", {
  onTasksLoaded: hook<(ev: { train: number; valid: number; split: string }) => void>([['ev', opaque('{ train, valid, split }')]]).describe('Tasks are loaded; the run folder may not exist yet (a bad start leaves none).'),
  onRunStart: hook<(ev: RunStartEvent) => void>([['ev', runStartEventSchema]]).describe('The run folder exists (created, or reopened for --resume).'),
  onPhaseStart: hook<(ev: { label: string; total: number }) => void>([['ev', opaque('{ label, total }')]]).describe('A training batch or a validation pass starts.'),
  onEpisode: hook<(row: OutcomeRow) => void>([['row', opaque('OutcomeRow')]]).describe('An episode finished (or was taken from the journal); committed later, with its batch.'),
  onPhaseEnd: hook<() => void>([]).describe('The phase ended.'),
  onRows: hook<(rows: readonly OutcomeRow[], traces: readonly Trace[], transcripts?: readonly Transcript[]) => void>([
    ['rows', rows],
    ['traces', opaque('Trace[]')],
    ['transcripts', opaque('Transcript[]').optional()],
  ]).describe('Rows committed (a train batch at its barrier, a validation pass at its end), in task order; traces and transcripts apart.'),
  onEpochEnd: hook<(ev: EpochEndEvent) => void>([['ev', epochEndEventSchema]]).describe('An epoch is complete; write durable outputs here: they are on disk before the checkpoint.'),
  onRunEnd: hook<(ev: RunEndEvent) => void>([['ev', runEndEventSchema]]).describe('The run ended, however it ended.'),
  close: hook<() => void>([]).describe('Always called last, whatever happened: release files and terminals.'),
});
export type Reporter = z.infer<typeof reporterSchema>;

/** Reporters by name: the app composes the map, a caller may drop or replace an entry. */
export type ReporterMap = Map<string, Reporter>;
