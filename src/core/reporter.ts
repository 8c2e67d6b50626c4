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
import type { MemoryRecord } from '../memory/types.js';
import type { TagFamily } from '../metrics/tensorboard/tags.js';
import type { MetricsJson } from './run-files/metrics.js';
import type { RunEndSummary, RunStatus } from './run-files/summary.js';
import type { TraceLine } from './run-files/traces.js';
import type { Transcript } from '../metrics/transcripts.js';
import type { OutcomeRow } from './outcome.js';

export interface RunInfo {
  runDir: string;
  benchmark: string;
  /** The reference TensorBoard tag set (the benchmark module's), or the benchmark's name to look it up by. */
  tagFamily: TagFamily | string;
  /** Validation set name for `Evaluation/…/<set>` tags, if the benchmark has its own. */
  validSetLabel?: string;
  trainTaskIds: readonly string[];
  validTaskIds: readonly string[];
}

/** One episode's full conversation (multi-turn benchmarks), kept beside its row (a traces.jsonl line without the benchmark). */
export type Trace = Omit<TraceLine, 'benchmark'>;

export interface RunStartEvent {
  info: RunInfo;
  /** True when an existing run folder is being continued. */
  resuming: boolean;
  /** Rows up to this epoch are kept (the checkpointed ones; -1: none); later ones will run again. */
  keptUpToEpoch: number;
  /** Those rows, in file order. */
  kept: readonly OutcomeRow[];
  /** Worth telling the user as the run starts (e.g. a damaged checkpoint fallen back from). */
  notices: readonly string[];
}

export interface EpochEndEvent {
  info: RunInfo;
  epoch: number;
  epochs: number;
  /** Metrics over every row so far (metrics.json). */
  metrics: MetricsJson;
  /** Every row so far, in commit order. */
  rows: readonly OutcomeRow[];
  /** Memories after the epoch. */
  memories: number;
  /** The memory after the epoch (its Q values feed q-history.jsonl and the TensorBoard histograms). */
  records?: readonly Readonly<MemoryRecord>[];
}

export interface RunEndEvent {
  info: RunInfo;
  status: RunStatus;
  /** summary.json as the runner composed it (the reporter adds the format). */
  summary: RunEndSummary;
  /** The memory at the end. */
  records: readonly Readonly<MemoryRecord>[];
}

export interface Reporter {
  /** Tasks are loaded; the run folder may not exist yet (a bad start leaves none). */
  onTasksLoaded?(ev: { train: number; valid: number; split: string }): void;
  /** The run folder exists (created, or reopened for --resume). */
  onRunStart?(ev: RunStartEvent): void;
  onPhaseStart?(ev: { label: string; total: number }): void;
  /** An episode finished (or was taken from the journal); committed later, with its batch. */
  onEpisode?(row: OutcomeRow): void;
  onPhaseEnd?(): void;
  /** Rows committed (a train batch at its barrier, a validation pass at its end), in task order; traces and transcripts apart. */
  onRows?(rows: readonly OutcomeRow[], traces: readonly Trace[], transcripts?: readonly Transcript[]): void;
  /** An epoch is complete; durable outputs are written here, before the checkpoint. */
  onEpochEnd?(ev: EpochEndEvent): void;
  onRunEnd?(ev: RunEndEvent): void;
  /** Always called last, whatever happened: release files and terminals. */
  close?(): void;
}

/** Reporters by name: the app composes the map, a caller may drop or replace an entry. */
export type ReporterMap = Map<string, Reporter>;
