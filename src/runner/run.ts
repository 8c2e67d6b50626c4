/**
 * The runner: the only place that knows epochs, batches, barriers, checkpoints and resume.
 * It knows no benchmark and no memory method by name: the Benchmark runs episodes, the
 * method instance retrieves, learns and commits, and reporters write every output.
 *
 * One epoch = a train phase over the method's training tasks in fixed order, in batches.
 * All tasks of a batch retrieve from the memory as it was before the batch (retrievals
 * are drawn in task order, so exploration does not depend on concurrency); episodes run
 * concurrently; at the barrier the method commits the batch's experiences in task order.
 * Then an optional validation phase reads memory and never writes it. At every epoch end
 * the whole learning state is checkpointed atomically.
 *
 * Crash safety: every finished episode goes to the journal (journal.ts) at once, with
 * what its barrier commit needs. --resume restores the epoch checkpoint and replays the
 * epoch batch by batch: retrievals are recomputed (same memory, same RNG stream), an
 * episode found in the journal with the same retrieval is taken as recorded, the rest
 * run; barriers commit as before. So the resumed run passes through exactly the states
 * of an uninterrupted one, and no episode is lost or counted twice.
 *
 * This file is the loop; what it asks is elsewhere: openRun (open-run.ts) sets a run up,
 * the retrieval slicer (retrieval-slicer.ts) retrieves a batch in slices, the episode
 * records (episode-records.ts) play it through a dispatcher (local or on workers), the
 * attempts (attempts.ts) keep every episode and barrier exactly once, the transcripts
 * reporter assembles committed rows, the stops (stops.ts) say when to stop early.
 */
import type { TaskBase } from '../core/benchmark.js';
import type { MethodInstance } from '../core/method.js';
import type { OutcomePhase } from '../core/outcome.js';
import { crashPoint } from '../util/crash-point.js';
import { chunk } from '../util/pool.js';
import { Rng } from '../util/rng.js';
import type { EpisodeRecord } from './attempts.js';
import type { IndexedTask } from './dispatcher.js';
import { openRun, type OpenRun } from './open-run.js';
import { fileReporters } from './reporters/index.js';
import { assembleCommitted, qUpdatesByEpisode, type QUpdates } from './reporters/transcripts.js';
import { retrieveAhead, type RetrievalOf } from './retrieval-slicer.js';
import { RunFolder } from './run-folder.js';
import type { RunPlan, RunResult } from './run-plan.js';
import { RunEnding } from './run-ending.js';
import { RowsLater, type Emit } from './rows-later.js';

export type { RunPlan, RunResult } from './run-plan.js';
export { FatalModelError } from './stops.js';

export async function runBenchmark<T extends TaskBase>(plan: RunPlan<T>): Promise<RunResult> {
  const reporters = plan.outputs?.reporters ?? fileReporters(plan.folder.dir);
  const emit: Emit = (hook, ...args) => {
    for (const r of reporters.values()) (r[hook] as ((...a: unknown[]) => void) | undefined)?.call(r, ...args);
  };
  try {
    return await schedule(plan, emit);
  } finally {
    for (const r of reporters.values()) r.close?.();
  }
}

async function schedule<T extends TaskBase>(plan: RunPlan<T>, emitNow: Emit): Promise<RunResult> {
  const folder = new RunFolder(plan.folder.dir);
  const opened: { method?: MethodInstance } = {};
  const later = new RowsLater(emitNow);
  let ended = false;
  try {
    // A resumed folder is locked before anything of it is read; a new one as it is made.
    if (plan.folder.resume && folder.hasManifest()) folder.lock();
    const run = await openRun(folder, plan, later.emit, opened);
    const scheduler = new Scheduler(plan, folder, later, run);
    const result = await scheduler.loop().catch((err: unknown) => {
      scheduler.endByError(err);
      throw err;
    });
    ended = true;
    return result;
  } finally {
    try {
      // Committed rows reach the files even when the run ends by an error, whose message a failing write must not replace.
      try {
        later.flush();
      } catch (err) {
        if (ended) throw err;
      }
      await opened.method?.close?.();
    } finally {
      folder.unlock();
    }
  }
}

/** The loop: epochs of batches, validation passes, barriers, checkpoints. It holds no collaborator's state. */
class Scheduler<T extends TaskBase> {
  private readonly emit: Emit;
  private readonly now: () => number;
  private readonly ending: RunEnding<T>;
  /** The last checkpointed epoch. */
  private epochsCompleted = 0;

  constructor(
    private readonly plan: RunPlan<T>,
    private readonly folder: RunFolder,
    private readonly later: RowsLater,
    private readonly run: OpenRun<T>,
  ) {
    this.emit = later.emit;
    this.now = plan.now ?? Date.now;
    this.ending = new RunEnding(plan, run, this.emit);
  }

  async loop(): Promise<RunResult> {
    const { plan, run } = this;
    const { epochs } = plan.schedule;
    const v = plan.validation;
    this.epochsCompleted = run.doneEpoch;
    let validatedBeforeTraining = run.validatedBeforeTraining;
    let failure: string | undefined;
    if (v.run && v.beforeTraining && run.doneEpoch === 0 && !validatedBeforeTraining) {
      await this.validate(0);
      validatedBeforeTraining = !this.aborted();
    }
    for (let epoch = run.doneEpoch + 1; epoch <= epochs && !this.aborted(); epoch++) {
      if (!(await this.trainEpoch(epoch))) break;
      const every = v.interval ?? 1;
      if (v.run && every > 0 && epoch % every === 0) await this.validate(epoch);
      if (this.aborted()) break;
      // Not checkpointed: a resume runs the epoch again, once the fault is fixed.
      failure = run.matrix.failureOf(epoch, plan.stops?.maxErrorRate);
      if (failure) {
        plan.log.error({ event: 'run_failed', epoch, failure }, 'too many errors');
        break;
      }
      this.endEpoch(epoch, validatedBeforeTraining);
      this.epochsCompleted = epoch;
    }
    return this.end(this.epochsCompleted, failure);
  }

  private async trainEpoch(epoch: number): Promise<boolean> {
    const { plan, run } = this;
    const rng = Rng.derive(plan.schedule.seed, 'retrieve', 'train', epoch);
    const solved = run.matrix.solved();
    const todo = run.method.trainTasks ? run.train.filter((it) => run.method.trainTasks!([it.task], { epoch, solved }).length > 0) : run.train;
    this.emit('onPhaseStart', { label: `train e${epoch}`, total: todo.length });
    for (const [b, batch] of chunk(todo, plan.schedule.batchSize).entries()) {
      if (this.aborted()) break;
      const retrieval = await this.retrieve(batch, 'train', epoch, rng);
      const played = run.episodes.playAll(batch, retrieval, 'train', epoch, b);
      // The last batch's rows are written while this batch's first calls are out.
      this.later.flushSoon();
      const records = await played;
      // Nothing is committed before every episode it learns from is on disk.
      await run.attempts.synced();
      this.stopIfFatal('train', epoch, batch);
      if (this.aborted()) break; // not committed; its finished episodes wait in the journal
      await this.commitBatch(epoch, b, records);
    }
    this.emit('onPhaseEnd');
    return !this.aborted();
  }

  /** The barrier: the method commits the batch's experiences in task order, then its rows go out. */
  private async commitBatch(epoch: number, batch: number, records: EpisodeRecord[]): Promise<void> {
    const time = this.run.attempts.barrierTime(epoch, batch, this.now);
    const learned = records.flatMap((rec, i) => (rec.experience ? [i] : []));
    const effects = await this.run.method.commit(learned.map((i) => records[i]!.experience!), time.at);
    this.commitRows(records, qUpdatesByEpisode(learned, effects));
    this.run.attempts.barrierDone(epoch, batch, time);
  }

  /** A validation pass: reads memory, never writes it. Epoch 0 = before training. */
  private async validate(epoch: number): Promise<void> {
    const { valid, episodes } = this.run;
    if (valid.length === 0) return;
    const rng = Rng.derive(this.plan.schedule.seed, 'retrieve', 'valid', epoch);
    const retrieval = await this.retrieve(valid, 'valid', epoch, rng);
    this.emit('onPhaseStart', { label: `valid e${epoch}`, total: valid.length });
    const records = await episodes.playAll(valid, retrieval, 'valid', epoch, 0);
    await this.run.attempts.synced();
    this.emit('onPhaseEnd');
    this.stopIfFatal('valid', epoch, valid);
    if (this.aborted()) return;
    this.commitRows(records);
  }

  /** The retrievals of a batch or pass, in slices as wide as the episodes that play at once. */
  private retrieve(items: readonly IndexedTask<T>[], phase: OutcomePhase, epoch: number, rng: Rng): Promise<RetrievalOf> {
    const signal = this.plan.stops?.signal;
    const query = { phase, epoch, rng, ...(signal ? { signal } : {}) };
    return retrieveAhead(this.run.method, items.map((it) => it.task), query, this.run.dispatcher.width(items.length), () => this.aborted());
  }

  /** Rows of a committed batch or pass, in task order, to the outcome matrix and (soon) the reporters. */
  private commitRows(records: readonly EpisodeRecord[], qUpdates?: ReadonlyMap<number, QUpdates>): void {
    const batch = assembleCommitted(records.map((rec) => rec.row), (row) => this.run.calls.take(row.phase, row.epoch, row.taskId), qUpdates);
    this.run.matrix.add(batch.rows);
    this.later.rows(batch.rows, batch.traces, batch.transcripts);
  }

  /** Every later call would fail the same way: stop, resumable, instead of recording errors. `played` is the batch or pass that saw it. */
  private stopIfFatal(phase: OutcomePhase, epoch: number, played: readonly IndexedTask<T>[]): void {
    const fatal = this.run.stops.fatal();
    if (!fatal) return;
    this.emit('onPhaseEnd');
    this.run.attempts.abandon(phase, epoch, fatal.replayBatch ? played.map((it) => it.index) : []);
    throw fatal.error;
  }

  /** Derived files first: a kill before the checkpoint replays this epoch and rewrites them. */
  private endEpoch(epoch: number, validatedBeforeTraining: boolean): void {
    const { run } = this;
    const metrics = run.matrix.metrics();
    this.emit('onEpochEnd', { info: run.info, epoch, epochs: this.plan.schedule.epochs, metrics, rows: run.matrix.rows, memories: run.method.size, records: run.method.records() });
    crashPoint('epoch-outputs');
    this.folder.writeCheckpoint({ version: 2, epochCompleted: epoch, validatedBeforeTraining, memory: run.method.snapshot(), ledger: run.ledger.snapshot(), savedAt: new Date(this.now()).toISOString() });
    crashPoint('checkpoint');
    run.attempts.checkpointed();
    const tr = metrics.train.epochs.at(-1);
    this.plan.log.info({ event: 'epoch_end', epoch, acc: tr?.acc, csr: tr?.csr, memories: run.method.size }, 'epoch end');
  }

  private end(epochsCompleted: number, failure: string | undefined): Promise<RunResult> {
    return this.ending.finish(epochsCompleted, failure, this.aborted());
  }

  /** An error ended the run: recorded as failed (or interrupted, if it was being stopped), resumable. */
  endByError(err: unknown): void {
    this.ending.byError(err, this.epochsCompleted, this.aborted());
  }

  private aborted(): boolean {
    return this.run.stops.aborted();
  }
}

