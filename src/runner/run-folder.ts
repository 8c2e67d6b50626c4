/**
 * A run folder (results/<benchmark>/<run-id>/) as the runner owns it: its manifest
 * (run.json), its epoch checkpoint, and the rows already on disk when resuming. The
 * other files are the reporters' (runner/reporters/); each file's schema and format is
 * in src/core/run-files/:
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
import {
  CHECKPOINT_FILE,
  LOCK_FILE,
  OUTCOMES_FILE,
  PREVIOUS_CHECKPOINT_FILE,
  readCheckpointJson,
  readOutcomeRows,
  readRunJson,
  RUN_FORMAT,
  RUN_JSON_FILE,
  RunFileError,
  runFormatOf,
  RunJsonSchema,
  type Checkpoint,
  type OutcomeRow,
  type RunComposition,
  type RunJson,
  type RunnerFacts,
} from '../core/run-files/index.js';
import { readOutcomesArrow } from '../metrics/outcome-arrow.js';
import { describeLacking, epochsLackingRows } from '../results/run-status.js';
import { fsyncDir, writeJsonAtomic } from '../util/fs.js';
import { errorMessage, UserError } from '../util/errors.js';
import { FileLock } from '../util/lock.js';
import { causeOf } from '../util/fs-errors.js';

export { CHECKPOINT_FILE, LOCK_FILE, OUTCOMES_FILE, PREVIOUS_CHECKPOINT_FILE, type Checkpoint };
/** The outcome rows as Arrow, rewritten at each epoch end (reporters/epoch-files.ts): what lost rows are rebuilt from. */
const ARROW_FILE = 'outcomes.arrow';

/** What run.json is created with: the app's account of the run (if any) and the runner's facts. */
export type NewRunJson = RunComposition & RunnerFacts;

/** What later attempts add to run.json. */
type RunJsonUpdate = Pick<RunJson, 'resumes' | 'observed'>;

export class RunFolder {
  private held: FileLock | undefined;

  /** Touches nothing on disk: the folder comes to exist with create(). */
  constructor(readonly dir: string) {}

  path(name: string): string {
    return join(this.dir, name);
  }

  hasManifest(): boolean {
    return existsSync(this.path(RUN_JSON_FILE));
  }

  /**
   * Create the run folder with its run.json in one step (built under a temp name, then
   * renamed), so a kill never leaves a run folder that --resume cannot open. The
   * folder is locked from then on (see lock).
   */
  create(manifest: NewRunJson): void {
    const doc = { memrlRunFormat: RUN_FORMAT, ...manifest };
    // Checked before anything is written: a run.json memrl could not read back is memrl's fault (or a plug-in's manifest()).
    const checked = RunJsonSchema.safeParse(doc);
    if (!checked.success) throw new Error(`run.json to be written is not valid: ${checked.error.issues[0]?.path.join('.')}: ${checked.error.issues[0]?.message}`);
    if (existsSync(this.dir)) {
      // Already there (a reply cache opened it, or another process): take it before writing into it.
      this.lock();
      writeJsonAtomic(this.path(RUN_JSON_FILE), doc);
      return;
    }
    const parent = dirname(this.dir);
    mkdirSync(parent, { recursive: true });
    const tmp = join(parent, `${basename(this.dir)}.tmp-${process.pid}`);
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp);
    writeJsonAtomic(join(tmp, RUN_JSON_FILE), doc);
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

  /** run.json as the current format reads it (an older format through its migration). */
  readManifest(): RunJson {
    return readRunJson(this.readRawManifest(), this.path(RUN_JSON_FILE));
  }

  /**
   * Add what a later attempt records (a resume, what was observed), rewriting run.json
   * as it is on disk with those fields replaced: the rest keeps its bytes and its format
   * (a run.json of an older format stays that format).
   */
  updateManifest(update: RunJsonUpdate): void {
    const p = this.path(RUN_JSON_FILE);
    const raw = this.readRawManifest();
    const doc = { memrlRunFormat: runFormatOf(p, raw), ...raw, ...update };
    readRunJson(doc, p); // what memrl writes, it can read back
    writeJsonAtomic(p, doc);
  }

  private readRawManifest(): { [key: string]: unknown } {
    const p = this.path(RUN_JSON_FILE);
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(p, 'utf8'));
    } catch (err) {
      throw new UserError(`${p} is damaged (${causeOf(err)}); it describes the run, so it cannot be resumed: start it again in a new folder`, 'manifest_damaged');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new RunFileError(`${p}: not a JSON object; this run folder was not written by memrl, or was edited`);
    return value as { [key: string]: unknown };
  }

  /** `journaled`: finished episodes of the unfinished epoch taken over from the journal. */
  noteResume(at: string, fromEpoch: number, journaled: number): void {
    // The earlier entries as written (checked with the whole file by updateManifest).
    const earlier = this.readRawManifest().resumes;
    this.updateManifest({ resumes: [...(Array.isArray(earlier) ? (earlier as NonNullable<RunJson['resumes']>) : []), { at, fromEpoch, journaled }] });
  }

  /**
   * The last epoch checkpoint. A damaged one (edited, or cut short by a full disk) falls
   * back to the one before it, `recovered` saying so: the epochs after it run again.
   * One of an older version is read through its migration; one of a version this memrl
   * does not know is refused.
   */
  readCheckpoint(): (Checkpoint & { recovered?: string }) | undefined {
    const p = this.path(CHECKPOINT_FILE);
    const prev = this.path(PREVIOUS_CHECKPOINT_FILE);
    if (!existsSync(p)) return existsSync(prev) ? this.parseCheckpoint(prev) : undefined;
    try {
      return this.parseCheckpoint(p);
    } catch (err) {
      if (err instanceof RunFileError && err.code === 'run_format_unknown') throw err;
      const why = err instanceof Error ? err.message : String(err);
      if (!existsSync(prev)) {
        throw new UserError(`${p} is damaged (${why}) and there is no earlier checkpoint to fall back to; restore it from a backup, or start the run again in a new folder`, 'checkpoint_damaged');
      }
      const earlier = this.parseCheckpoint(prev);
      return { ...earlier, recovered: `${p} is damaged (${why}); resuming from ${PREVIOUS_CHECKPOINT_FILE} (epoch ${earlier.epochCompleted}): the epochs after it run again` };
    }
  }

  private parseCheckpoint(p: string): Checkpoint {
    const value: unknown = JSON.parse(readFileSync(p, 'utf8'));
    try {
      return readCheckpointJson(value, p);
    } catch (err) {
      // The reason alone: the caller names the file.
      if (err instanceof RunFileError && err.code !== 'run_format_unknown') throw new Error(err.message.replace(`${p}: `, '').replace(/; this run folder .*$/, ''));
      throw err;
    }
  }

  /** Atomically; the previous checkpoint is kept beside it, to fall back to if this one is ever damaged. */
  writeCheckpoint(c: Checkpoint): void {
    const p = this.path(CHECKPOINT_FILE);
    if (existsSync(p)) renameSync(p, this.path(PREVIOUS_CHECKPOINT_FILE));
    writeJsonAtomic(p, c);
  }

  /**
   * The rows a resume keeps: those of the checkpointed epochs (up to `epoch`; -1: none),
   * checked against run.json's train tasks: each epoch has a row for every task not
   * solved before it. A file deleted, cut or holding a broken line is rebuilt from
   * outcomes.arrow (rewritten with every row at each epoch end, before the checkpoint)
   * when that holds them all, `rebuilt` saying so; else refused in one line naming the
   * file and what to do, never resumed into a run with wrong numbers.
   */
  keptRows(epoch: number, trainTaskIds: readonly string[]): { rows: OutcomeRow[]; rebuilt?: string } {
    if (epoch < 0) return { rows: [] };
    const file = this.path(OUTCOMES_FILE);
    let problem: string;
    let rows: OutcomeRow[] = [];
    try {
      rows = readOutcomeRows(file).rows.filter((r) => r.epoch <= epoch);
      const lacking = epochsLackingRows(rows, trainTaskIds, epoch);
      if (lacking.length === 0) return { rows };
      problem = existsSync(file) ? `${file} lacks rows of ${describeLacking(lacking)}` : `${file} is missing`;
    } catch (err) {
      // A line broken in the middle (a cut last line is dropped by the reader): file:line: why.
      problem = `${errorMessage(err)} (a broken line in the middle)`;
    }
    const fromArrow = this.arrowRows(epoch);
    if (fromArrow && epochsLackingRows(fromArrow, trainTaskIds, epoch).length === 0 && fromArrow.length >= rows.length) {
      return { rows: fromArrow, rebuilt: `${problem}; rebuilt the rows of epochs up to ${epoch} from ${ARROW_FILE}` };
    }
    throw new UserError(
      `--resume ${this.dir}: ${problem}, and ${ARROW_FILE} cannot rebuild them; the epochs after the checkpoint would be measured on wrong rows: restore ${OUTCOMES_FILE} from a backup, or start the run again in a new folder`,
      'resume_rows_missing',
    );
  }

  private arrowRows(epoch: number): OutcomeRow[] | undefined {
    try {
      return existsSync(this.path(ARROW_FILE)) ? readOutcomesArrow(this.path(ARROW_FILE)).filter((r) => r.epoch <= epoch) : undefined;
    } catch {
      return undefined; // damaged too: nothing to rebuild from
    }
  }
}
