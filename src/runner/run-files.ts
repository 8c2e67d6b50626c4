/**
 * The files of one run folder (results/<benchmark>/<run-id>/):
 *   run.json          manifest: redacted config, versions, data hashes, model, seed
 *   outcomes.jsonl    the outcome matrix, one row per task × epoch × phase (appended at each batch barrier)
 *   outcomes.arrow    the same rows as an Arrow IPC file (rewritten each epoch)
 *   metrics.json      per-epoch metrics (rewritten each epoch)
 *   summary.json      final (or interrupted) status, metrics, usage, memory stats
 *   memories.jsonl    the memory records at the end (no embeddings)
 *   traces.jsonl      multi-turn benchmarks: each episode's full conversation
 *   tb/               TensorBoard event file, reference tag names, step = epoch
 *   checkpoint.json   the whole learning state at the last completed epoch
 *   journal.jsonl     while unfinished: the episodes finished since that checkpoint (journal.ts)
 */
import { appendFileSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fsyncDir, writeFileAtomic, writeJsonAtomic } from '../util/fs.js';
import type { InjectedMemory } from '../bench/types.js';
import type { LedgerSnapshot } from '../llm/ledger.js';
import type { MemoryRecord, MemorySnapshot } from '../memory/types.js';
import { OutcomeLog, readOutcomeRows } from '../metrics/outcome-store.js';
import type { OutcomeRow } from '../metrics/outcome-row.js';
import { writeOutcomesArrow } from '../metrics/outcome-arrow.js';
import { summarize, type RunSummary } from '../metrics/summary.js';
import { TensorBoardWriter, writeEpochScalars } from '../metrics/tensorboard/index.js';

export interface Checkpoint {
  version: 1;
  epochCompleted: number;
  validatedBeforeTraining: boolean;
  memory: MemorySnapshot;
  ledger: LedgerSnapshot;
  /** reflection mode: each task's latest attempt. */
  attempts?: Record<string, InjectedMemory>;
  savedAt: string;
}

export class RunFiles {
  private log: OutcomeLog | undefined;
  private rows: OutcomeRow[] = [];
  private traces = 0;

  /** Touches nothing on disk: the folder comes to exist with create(). */
  constructor(
    readonly dir: string,
    private readonly benchmark: string,
  ) {}

  path(name: string): string {
    return join(this.dir, name);
  }

  hasManifest(): boolean {
    return existsSync(this.path('run.json'));
  }

  /**
   * Create the run folder with its run.json in one step (built under a temp name, then
   * renamed), so a kill never leaves a run folder that --resume cannot open.
   */
  create(manifest: Record<string, unknown>): void {
    if (existsSync(this.dir)) return this.writeManifest(manifest);
    const parent = dirname(this.dir);
    mkdirSync(parent, { recursive: true });
    const tmp = join(parent, `${basename(this.dir)}.tmp-${process.pid}`);
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp);
    writeJsonAtomic(join(tmp, 'run.json'), { memrlRunFormat: 1, ...manifest });
    renameSync(tmp, this.dir);
    fsyncDir(parent);
  }

  /** Temp files a killed writer left behind (`<name>.tmp-<pid>`). */
  removeStrayTempFiles(): void {
    for (const d of [this.dir, this.path('tb')]) {
      if (!existsSync(d)) continue;
      for (const f of readdirSync(d)) if (/\.tmp-\d+$/.test(f)) rmSync(join(d, f), { force: true });
    }
  }

  writeManifest(manifest: Record<string, unknown>): void {
    writeJsonAtomic(this.path('run.json'), { memrlRunFormat: 1, ...manifest });
  }

  readManifest(): Record<string, unknown> {
    return JSON.parse(readFileSync(this.path('run.json'), 'utf8')) as Record<string, unknown>;
  }

  /** `journaled`: finished episodes of the unfinished epoch taken over from the journal. */
  noteResume(at: string, fromEpoch: number, journaled: number): void {
    const m = this.readManifest();
    const resumes = Array.isArray(m.resumes) ? m.resumes : [];
    this.writeManifest({ ...m, resumes: [...resumes, { at, fromEpoch, journaled }] });
  }

  readCheckpoint(): Checkpoint | undefined {
    const p = this.path('checkpoint.json');
    if (!existsSync(p)) return undefined;
    return JSON.parse(readFileSync(p, 'utf8')) as Checkpoint;
  }

  writeCheckpoint(c: Checkpoint): void {
    writeJsonAtomic(this.path('checkpoint.json'), c);
  }

  /**
   * Open outcomes.jsonl for appending. On resume, rows past the checkpointed epoch
   * belong to an unfinished epoch that will run again, so they are dropped first.
   */
  openOutcomes(opts: { keepUpToEpoch: number }): void {
    const p = this.path('outcomes.jsonl');
    const existing = existsSync(p) ? readOutcomeRows(p).rows : [];
    const kept = existing.filter((r) => r.epoch <= opts.keepUpToEpoch);
    if (kept.length !== existing.length || (existsSync(p) && opts.keepUpToEpoch < 0)) {
      writeFileAtomic(p, kept.map((r) => `${JSON.stringify(r)}\n`).join(''));
    }
    this.rows = kept;
    // No flush per row: the journal already holds each episode; sync() runs before each checkpoint.
    this.log = new OutcomeLog(p, { syncEachRow: false });
    // Transcripts of dropped episodes go too, so traces.jsonl matches outcomes.jsonl.
    const t = this.path('traces.jsonl');
    if (existsSync(t)) {
      const lines = readFileSync(t, 'utf8').split('\n').filter((l) => {
        if (!l.trim()) return false;
        try {
          return (JSON.parse(l) as { epoch: number }).epoch <= opts.keepUpToEpoch;
        } catch {
          return false; // a line cut by a crash
        }
      });
      writeFileAtomic(t, lines.map((l) => `${l}\n`).join(''));
      this.traces = lines.length;
    }
  }

  /** One episode's full conversation (multi-turn benchmarks), beside its outcome row. */
  appendTraces(traces: { taskId: string; taskIndex: number; epoch: number; phase: string; transcript: unknown }[]): void {
    if (traces.length === 0) return;
    appendFileSync(this.path('traces.jsonl'), traces.map((t) => `${JSON.stringify({ benchmark: this.benchmark, ...t })}\n`).join(''));
    this.traces += traces.length;
  }

  /** Put outcomes.jsonl and traces.jsonl on disk before a checkpoint counts on them. */
  sync(): void {
    this.log?.flush();
    const t = this.path('traces.jsonl');
    if (!existsSync(t)) return;
    const fd = openSync(t, 'r+');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  /** Tasks that passed in any recorded epoch of a phase (passk / reflection retry the others). */
  solvedTaskIds(phase: 'train' | 'valid'): Set<string> {
    return new Set(this.rows.filter((r) => r.phase === phase && r.success).map((r) => r.taskId));
  }

  /** Append rows; a transcript in `extra.transcript` moves to traces.jsonl so outcome rows stay small. */
  appendRows(rows: OutcomeRow[]): void {
    if (!this.log) throw new Error('outcomes.jsonl is not open');
    const traces: Parameters<RunFiles['appendTraces']>[0] = [];
    for (const r of rows) {
      let row = r;
      if (r.extra && 'transcript' in r.extra) {
        const { transcript, ...extra } = r.extra;
        traces.push({ taskId: r.taskId, taskIndex: r.taskIndex, epoch: r.epoch, phase: r.phase, transcript });
        row = { ...r, extra };
      }
      this.rows.push(this.log.append(row));
    }
    this.appendTraces(traces);
  }

  /** Metrics of every row so far; validation metrics only once a validation row exists. */
  private metrics(trainTaskIds: string[], validTaskIds: string[]): RunSummary {
    const hasValid = this.rows.some((r) => r.phase === 'valid');
    return summarize(this.rows, { trainTaskIds, validTaskIds: hasValid ? validTaskIds : undefined });
  }

  /** Recompute metrics from every row, rewrite metrics.json, outcomes.arrow and the TensorBoard file. */
  writeEpochOutputs(trainTaskIds: string[], validTaskIds: string[], validSetLabel?: string): RunSummary {
    const metrics = this.metrics(trainTaskIds, validTaskIds);
    writeJsonAtomic(this.path('metrics.json'), metrics);
    writeOutcomesArrow(this.path('outcomes.arrow'), this.rows);
    this.rewriteTensorBoard(metrics, validSetLabel);
    return metrics;
  }

  /**
   * TensorBoard scalars are derived data: rewriting the whole file from the metrics
   * each epoch keeps it consistent after a resume (no duplicate or missing steps).
   */
  private rewriteTensorBoard(metrics: RunSummary, validSetLabel?: string): void {
    const dir = this.path('tb');
    if (existsSync(dir)) for (const f of readdirSync(dir)) if (f.startsWith('events.out.tfevents')) rmSync(join(dir, f));
    const tb = new TensorBoardWriter(dir);
    for (const e of metrics.train.epochs) writeEpochScalars(tb, this.benchmark, metrics.train, { epoch: e.epoch });
    if (metrics.valid) {
      for (const e of metrics.valid.epochs) writeEpochScalars(tb, this.benchmark, metrics.valid, { epoch: e.epoch, ...(validSetLabel ? { evalSet: validSetLabel } : {}) });
    }
    tb.close();
  }

  writeSummary(fields: Record<string, unknown> & { trainTaskIds: string[]; validTaskIds: string[] }): Record<string, unknown> {
    const { trainTaskIds, validTaskIds, ...rest } = fields;
    const metrics = this.metrics(trainTaskIds, validTaskIds);
    const summary = {
      ...rest,
      benchmark: this.benchmark,
      train: pickHeadline(metrics.train),
      valid: metrics.valid ? pickHeadline(metrics.valid) : undefined,
      metrics,
    };
    writeJsonAtomic(this.path('summary.json'), summary);
    return summary;
  }

  writeMemoryDump(records: readonly MemoryRecord[]): void {
    writeFileAtomic(this.path('memories.jsonl'), records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  }

  close(): void {
    this.log?.close();
    this.log = undefined;
  }
}

function pickHeadline(m: RunSummary['train']): Record<string, unknown> {
  return { tasks: m.tasks, last: m.last, csr: m.csrFinal, forgettingFlip: m.forgettingFlip, forgettingMax: m.forgettingMax, bwt: m.bwt };
}
