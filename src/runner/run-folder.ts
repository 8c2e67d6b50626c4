/**
 * A run folder (results/<benchmark>/<run-id>/) as the runner owns it: its manifest
 * (run.json), its epoch checkpoint, and the rows already on disk when resuming. The
 * other files are the reporters' (runner/reporters/):
 *
 *   run.json          manifest: redacted config, versions, data hashes, model, seed
 *   checkpoint.json   the whole learning state at the last completed epoch (checkpoint.prev.json: the one before)
 *   journal.jsonl     while unfinished: the episodes finished since that checkpoint (journal.ts)
 *   outcomes.jsonl    the outcome matrix, one row per task × epoch × phase (appended at each barrier)
 *   outcomes.arrow    the same rows as an Arrow IPC file (rewritten each epoch)
 *   traces.jsonl      multi-turn benchmarks: each episode's full conversation
 *   metrics.json      per-epoch metrics (rewritten each epoch)
 *   tb/               TensorBoard event file, reference tag names, step = epoch
 *   summary.json      final (or interrupted) status, metrics, usage, memory stats
 *   memories.jsonl    the memory records at the end (no embeddings)
 *   responses.jsonl   every model reply the run used (replay, resume)
 *   .lock             while a process runs it: who (one process per folder)
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { RUN_FORMAT } from '../core/run-files.js';
import type { LedgerSnapshot } from '../llm/ledger.js';
import { readOutcomeRows, type OutcomeRow } from '../metrics/index.js';
import { fsyncDir, writeJsonAtomic } from '../util/fs.js';
import { UserError } from '../util/errors.js';
import { FileLock } from '../util/lock.js';

export const CHECKPOINT_FILE = 'checkpoint.json';
export const PREVIOUS_CHECKPOINT_FILE = 'checkpoint.prev.json';
export const LOCK_FILE = '.lock';
export const OUTCOMES_FILE = 'outcomes.jsonl';

export interface Checkpoint {
  version: 2;
  epochCompleted: number;
  validatedBeforeTraining: boolean;
  /** The memory method's state: what its snapshot() returned. */
  memory: unknown;
  ledger: LedgerSnapshot;
  savedAt: string;
}

export class RunFolder {
  private held: FileLock | undefined;

  /** Touches nothing on disk: the folder comes to exist with create(). */
  constructor(readonly dir: string) {}

  path(name: string): string {
    return join(this.dir, name);
  }

  hasManifest(): boolean {
    return existsSync(this.path('run.json'));
  }

  /**
   * Create the run folder with its run.json in one step (built under a temp name, then
   * renamed), so a kill never leaves a run folder that --resume cannot open. The
   * folder is locked from then on (see lock).
   */
  create(manifest: Record<string, unknown>): void {
    if (existsSync(this.dir)) {
      // Already there (a reply cache opened it, or another process): take it before writing into it.
      this.lock();
      this.writeManifest(manifest);
      return;
    }
    const parent = dirname(this.dir);
    mkdirSync(parent, { recursive: true });
    const tmp = join(parent, `${basename(this.dir)}.tmp-${process.pid}`);
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp);
    writeJsonAtomic(join(tmp, 'run.json'), { memrlRunFormat: RUN_FORMAT, ...manifest });
    renameSync(tmp, this.dir);
    fsyncDir(parent);
    this.lock();
  }

  /** One process per run folder (two writing one folder would count episodes twice); held until unlock(). */
  lock(): void {
    this.held ??= FileLock.acquire(this.path(LOCK_FILE), `memrl run, ${process.argv.slice(2, 4).join(' ')}`, `run folder ${this.dir}`);
  }

  unlock(): void {
    this.held?.release();
    this.held = undefined;
  }

  /** Temp files a killed writer left behind (`<name>.tmp-<pid>`). */
  removeStrayTempFiles(): void {
    for (const d of [this.dir, this.path('tb')]) {
      if (!existsSync(d)) continue;
      for (const f of readdirSync(d)) if (/\.tmp-\d+$/.test(f)) rmSync(join(d, f), { force: true });
    }
  }

  writeManifest(manifest: Record<string, unknown>): void {
    writeJsonAtomic(this.path('run.json'), { memrlRunFormat: RUN_FORMAT, ...manifest });
  }

  readManifest(): Record<string, unknown> {
    const p = this.path('run.json');
    try {
      return JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      throw new UserError(`${p} is damaged (${err instanceof Error ? err.message : String(err)}); it describes the run, so it cannot be resumed: start it again in a new folder`, 'manifest_damaged');
    }
  }

  /** `journaled`: finished episodes of the unfinished epoch taken over from the journal. */
  noteResume(at: string, fromEpoch: number, journaled: number): void {
    const m = this.readManifest();
    const resumes = Array.isArray(m.resumes) ? m.resumes : [];
    this.writeManifest({ ...m, resumes: [...resumes, { at, fromEpoch, journaled }] });
  }

  /**
   * The last epoch checkpoint. A damaged one (edited, or cut short by a full disk) falls
   * back to the one before it, `recovered` saying so: the epochs after it run again.
   * One written by memrl's first checkpoint format is read too.
   */
  readCheckpoint(): (Checkpoint & { recovered?: string }) | undefined {
    const p = this.path(CHECKPOINT_FILE);
    const prev = this.path(PREVIOUS_CHECKPOINT_FILE);
    if (!existsSync(p)) return existsSync(prev) ? this.parseCheckpoint(prev) : undefined;
    try {
      return this.parseCheckpoint(p);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      if (!existsSync(prev)) {
        throw new UserError(`${p} is damaged (${why}) and there is no earlier checkpoint to fall back to; restore it from a backup, or start the run again in a new folder`, 'checkpoint_damaged');
      }
      const earlier = this.parseCheckpoint(prev);
      return { ...earlier, recovered: `${p} is damaged (${why}); resuming from ${PREVIOUS_CHECKPOINT_FILE} (epoch ${earlier.epochCompleted}): the epochs after it run again` };
    }
  }

  private parseCheckpoint(p: string): Checkpoint {
    const c = JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown>;
    if (typeof c.epochCompleted !== 'number' || !c.memory) throw new Error('not a checkpoint (no epochCompleted or memory)');
    if (c.version === 1) {
      // Format 1 kept reflection's attempts beside the engine snapshot.
      const { memory, attempts, ...rest } = c;
      return { ...(rest as unknown as Checkpoint), version: 2, memory: { ...(memory as object), ...(attempts ? { attempts } : {}) } };
    }
    return c as unknown as Checkpoint;
  }

  /** Atomically; the previous checkpoint is kept beside it, to fall back to if this one is ever damaged. */
  writeCheckpoint(c: Checkpoint): void {
    const p = this.path(CHECKPOINT_FILE);
    if (existsSync(p)) renameSync(p, this.path(PREVIOUS_CHECKPOINT_FILE));
    writeJsonAtomic(p, c);
  }

  /** Rows on disk up to an epoch (-1: none): what a resume keeps. */
  rowsUpTo(epoch: number): OutcomeRow[] {
    return readOutcomeRows(this.path(OUTCOMES_FILE)).rows.filter((r) => r.epoch <= epoch);
  }
}
