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
 */
import { REFERENCE_FIDELITY, type Fidelity } from '../util/fidelity.js';
import type { Logger } from 'pino';
import type { Benchmark, InjectedMemory, TaskBase } from '../core/benchmark.js';
import type { Experience, MethodInstance, MethodModule, Retrieval } from '../core/method.js';
import { parseOutcomeRow, type Outcome, type OutcomePhase, type OutcomeRow } from '../core/outcome.js';
import type { Reporter, ReporterMap, RunInfo, Trace } from '../core/reporter.js';
import type { Headline, RunComposition, RunEndSummary } from '../core/run-files/index.js';
import type { Embedder } from '../embed/types.js';
import { canonicalJson, ReplayMissError } from '../llm/cache.js';
import { LEDGER_ROLES, UsageLedger, type LedgerSnapshot } from '../llm/ledger.js';
import { MeteredChatModel } from '../llm/metered.js';
import { EndpointDownError, EndpointHealth } from '../llm/endpoint-health.js';
import type { SimPlayer } from '../llm/sim/model.js';
import type { ChatModel, Phase } from '../llm/types.js';
import type { BuildStrategy, MemoryParams } from '../memory/types.js';
import { summarize, type RunSummary } from '../metrics/summary.js';
import { transcriptId, type RecordedCall, type Transcript } from '../metrics/transcripts.js';
import type { TagFamily } from '../metrics/tensorboard/tags.js';
import { BUILTIN_METHODS } from '../methods/registry.js';
import { MemrlError, UserError, errorMessage } from '../util/errors.js';
import { chunk, mapPool } from '../util/pool.js';
import { Rng } from '../util/rng.js';
import { crashPoint } from '../util/crash-point.js';
import type { Slots } from '../util/slots.js';
import { faultOutcome } from './episode-outcome.js';
import { playEpisode, recording, type PlayedEpisode } from './episode.js';
import type { EpisodeDispatcher, EpisodeResult } from './remote-episodes.js';
import { learningOutcome } from './reward-noise.js';
import { JOURNAL_FILE, Journal } from './journal.js';
import { fileReporters } from './reporters/index.js';
import { RunFolder } from './run-folder.js';
import { blockedTasksNotice } from './blocked-tasks.js';

export interface RunPlan<T extends TaskBase = TaskBase> {
  benchmark: Benchmark<T>;
  /** The memory method (a built-in may be named). */
  method: MethodModule | string;
  /** Its memrl.<name> section, if it has one. */
  methodSettings?: unknown;
  memoryParams: MemoryParams;
  buildStrategy: BuildStrategy;
  epochs: number;
  batchSize: number;
  concurrency: number;
  seed: number;
  runValidation: boolean;
  /** With runValidation: also validate before epoch 1 (the memory-free start). */
  validateBeforeTraining: boolean;
  /** With runValidation: validate after epoch e only when e % validInterval == 0 (the reference's valid_interval; default 1; 0 = never after an epoch, only before training). */
  validInterval?: number;
  /** Create the chat model once tasks are known (the sim model needs the benchmark's player). */
  createModel: (simPlayer: SimPlayer) => ChatModel;
  /** A separate scoring model (HLE's judge), metered like the agent. */
  createJudgeModel?: (simPlayer: SimPlayer) => ChatModel;
  embedder: Embedder;
  /** Token ledger; pass one to also count embedding calls made by the embedder. */
  ledger?: UsageLedger;
  /** The prompt pack's `memory` folder (the writer's and methods' templates), if a pack is in use. */
  promptDir?: string;
  /** Fidelity switch settings (default: all at the reference's behaviour). */
  fidelity?: Fidelity;
  /** Where this run's files go: a new folder, or the folder being resumed. */
  runDir: string;
  resume: boolean;
  /** Redacted resolved config and other facts for run.json. */
  manifest: RunComposition;
  /** Stop as failed when more than this share of an epoch's episodes end in `error` (default: never). */
  maxErrorRate?: number;
  /** Stop (resumably) once this many model calls in a row to an endpoint that answered before failed after their retries (default: never). */
  stopAfterFailures?: number;
  /** Shared with other runs (a sweep): an episode runs only while it holds one of these slots. */
  episodeSlots?: Slots;
  /** Play episodes elsewhere (workers on a queue) instead of in this process; memory stays here. */
  episodes?: EpisodeDispatcher;
  /** Flip the reward the method learns from with this probability (--reward-noise); default 0. */
  rewardNoise?: number;
  /** The reference TensorBoard tag set (the benchmark module's); default: from the benchmark's name. */
  tagFamily?: TagFamily;
  /** Every output; default: the run folder's files (fileReporters). */
  reporters?: ReporterMap;
  log: Logger;
  signal?: AbortSignal;
  /** Injectable clock (tests); defaults to Date.now. */
  now?: () => number;
}

export interface RunResult {
  runDir: string;
  epochsCompleted: number;
  interrupted: boolean;
  /** Why the run stopped as failed (too many error episodes), if it did. */
  failure?: string;
  summary: RunEndSummary;
}

interface IndexedTask<T> {
  task: T;
  index: number;
}

interface EpisodeRecord {
  row: OutcomeRow;
  experience?: Experience;
}

/** A fatal provider refusal (bad key, unknown model): every later call would fail the same way. */
export class FatalModelError extends MemrlError {
  constructor(message: string) {
    super('model', 'provider_fatal', message);
    this.name = 'FatalModelError';
  }
}

export async function runBenchmark<T extends TaskBase>(plan: RunPlan<T>): Promise<RunResult> {
  const reporters = plan.reporters ?? fileReporters(plan.runDir);
  const emit = <K extends keyof Reporter>(hook: K, ...args: Parameters<NonNullable<Reporter[K]>>): void => {
    for (const r of reporters.values()) (r[hook] as ((...a: unknown[]) => void) | undefined)?.call(r, ...args);
  };
  try {
    return await schedule(plan, emit);
  } finally {
    for (const r of reporters.values()) r.close?.();
  }
}

type Emit = <K extends keyof Reporter>(hook: K, ...args: Parameters<NonNullable<Reporter[K]>>) => void;

/**
 * A committed batch's rows go to the reporters once the next batch's first calls are
 * out. What reporters write is derived: the journal already holds every episode and
 * every barrier, and a resume cuts the files back and writes them again. So writing them
 * need not hold the barrier, where 32 episodes at once waited 10-35 ms for it. Any other
 * event writes pending rows first, so reporters see the events in the same order.
 */
class RowsLater {
  private pending: (() => void) | undefined;
  /** A write that failed off the main path, thrown at the next event. */
  private failed: unknown;

  constructor(private readonly emitNow: Emit) {}

  /** Every event goes through here. */
  readonly emit: Emit = (hook, ...args) => {
    this.flush();
    this.emitNow(hook, ...args);
  };

  /**
   * Rows are validated here too, off the barrier (128 rows took 3 ms there warm, 15 ms
   * cold): a bad row stops the run at the next event, before it reaches any file and
   * before an epoch's outputs or checkpoint.
   */
  rows(...args: Parameters<NonNullable<Reporter['onRows']>>): void {
    this.flush();
    this.pending = () => {
      for (const row of args[0]) parseOutcomeRow(row, 'outcome row');
      this.emitNow('onRows', ...args);
    };
  }

  /** Write pending rows once the calls started now are out; a failure surfaces at the next event. */
  flushSoon(): void {
    setImmediate(() => {
      try {
        this.flush();
      } catch (err) {
        this.failed ??= err;
      }
    });
  }

  flush(): void {
    if (this.failed !== undefined) throw this.failed;
    const pending = this.pending;
    this.pending = undefined;
    pending?.();
  }
}

async function schedule<T extends TaskBase>(plan: RunPlan<T>, emitNow: Emit): Promise<RunResult> {
  const folder = new RunFolder(plan.runDir);
  const opened: { method?: MethodInstance } = {};
  const later = new RowsLater(emitNow);
  let ended = false;
  try {
    // A resumed folder is locked before anything of it is read; a new one as it is made.
    if (plan.resume && folder.hasManifest()) folder.lock();
    const result = await scheduleIn(folder, plan, later, opened);
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

async function scheduleIn<T extends TaskBase>(folder: RunFolder, plan: RunPlan<T>, later: RowsLater, opened: { method?: MethodInstance }): Promise<RunResult> {
  const emit = later.emit;
  const now = plan.now ?? Date.now;
  const log = plan.log;
  const bench = plan.benchmark;
  const methodModule = typeof plan.method === 'string' ? builtinMethod(plan.method) : plan.method;
  const loaded = await bench.load();
  if (loaded.train.length === 0) throw new UserError(`${bench.name}: the train set is empty (check --limit, --subset and the split file)`, 'empty_train_set');

  const ledger = plan.ledger ?? new UsageLedger();
  // Each running episode's own calls (agent, judge, memory writer), so its journal entry carries its usage.
  const attemptUsage = new Map<string, UsageLedger>();
  const tapUsage = (m: ChatModel): ChatModel => ({
    label: m.label,
    simulated: m.simulated,
    chat: async (req, signal) => {
      const res = await m.chat(req, signal);
      attemptUsage.get(attemptKey(req.tags.phase, req.tags.epoch, req.tags.taskId))?.record(req.tags, res.usage, { cached: res.cached === true });
      return res;
    },
  });
  const player = bench.simPlayer([...loaded.train, ...loaded.valid]);
  const health = (): EndpointHealth => new EndpointHealth(plan.stopAfterFailures ?? 0);
  const model = new MeteredChatModel(tapUsage(plan.createModel(player)), ledger, log, health());
  const judge = plan.createJudgeModel ? new MeteredChatModel(tapUsage(plan.createJudgeModel(player)), ledger, log, health()) : undefined;
  emit('onTasksLoaded', { train: loaded.train.length, valid: loaded.valid.length, split: loaded.splitLabel });

  // Resume: restore the learning state of the last completed epoch and drop rows past it;
  // the journal then replays the unfinished epoch up to where the run stopped.
  const ckpt = plan.resume ? folder.readCheckpoint() : undefined;
  if (plan.resume && !ckpt && !folder.hasManifest()) {
    throw new UserError(`--resume ${plan.runDir}: not a memrl run folder (no run.json)`);
  }
  // The method's own calls (memory writer, Self-RAG's gate, Mem0's extraction), by the episode they serve: its transcript gets them.
  const methodCalls = new Map<string, RecordedCall[]>();
  const takeMethodCalls = (phase: string, epoch: number, taskId: string): RecordedCall[] => {
    const key = attemptKey(phase, epoch, taskId);
    const calls = methodCalls.get(key) ?? [];
    methodCalls.delete(key);
    return calls;
  };
  const methodModel = recording(model, 'memory', (call, req) => {
    const key = attemptKey(req.tags.phase, req.tags.epoch, req.tags.taskId);
    methodCalls.set(key, [...(methodCalls.get(key) ?? []), call]);
  });
  const method: MethodInstance = await methodModule.create({
    benchmark: bench.name,
    settings: plan.methodSettings,
    params: plan.memoryParams,
    buildStrategy: plan.buildStrategy,
    model: methodModel,
    embedder: plan.embedder,
    ...(plan.promptDir ? { promptDir: plan.promptDir } : {}),
    fidelity: plan.fidelity ?? REFERENCE_FIDELITY,
    log,
    ...(ckpt ? { restored: ckpt.memory } : {}),
  });
  opened.method = method;
  if (ckpt) ledger.restore(ckpt.ledger);
  const doneEpoch = ckpt?.epochCompleted ?? 0;
  const valZeroDone = ckpt?.validatedBeforeTraining ?? false;

  const evaluator = await bench.describeEvaluator();
  const resuming = plan.resume && folder.hasManifest();
  const trainTaskIds = loaded.train.map((t) => t.id);
  const validTaskIds = loaded.valid.map((t) => t.id);
  if (!resuming) {
    // Only now, with tasks loaded, does the run folder come to exist: a bad start leaves nothing behind.
    folder.create({
      ...plan.manifest,
      benchmark: bench.name,
      env: bench.envLabel,
      method: methodModule.name,
      model: model.label,
      simulated: model.simulated,
      embedder: plan.embedder.label,
      seed: plan.seed,
      epochs: plan.epochs,
      batchSize: plan.batchSize,
      concurrency: plan.concurrency,
      dataset: { sources: loaded.sources, split: loaded.splitLabel, train: loaded.train.length, valid: loaded.valid.length },
      trainTaskIds,
      validTaskIds,
      evaluator,
      startedAt: new Date(now()).toISOString(),
    });
  } else {
    folder.removeStrayTempFiles();
  }
  const info: RunInfo = {
    runDir: plan.runDir,
    benchmark: bench.name,
    tagFamily: plan.tagFamily ?? bench.name,
    ...(bench.validSetLabel ? { validSetLabel: bench.validSetLabel } : {}),
    trainTaskIds,
    validTaskIds,
  };
  const keptUpToEpoch = ckpt ? doneEpoch : -1;
  // The outcome matrix so far: the kept rows, then each committed batch (metrics and retries read it).
  const rows: OutcomeRow[] = resuming ? folder.rowsUpTo(keptUpToEpoch) : [];
  const blocked = blockedTasksNotice(evaluator, plan.runValidation ? [...trainTaskIds, ...validTaskIds] : trainTaskIds);
  const notices = [...(ckpt?.recovered ? [ckpt.recovered] : []), ...(blocked ? [blocked] : [])];
  emit('onRunStart', { info, resuming, keptUpToEpoch, kept: rows, notices });
  if (ckpt?.recovered) log.warn({ event: 'checkpoint_recovered', detail: ckpt.recovered }, 'damaged checkpoint');
  // Entries of checkpointed epochs are stale (a kill between checkpoint and journal reset).
  const journal = new Journal(folder.path(JOURNAL_FILE), (e) => plan.resume && (!ckpt || e.epoch > doneEpoch));
  if (resuming) folder.noteResume(new Date(now()).toISOString(), doneEpoch, journal.size);
  log.info({ event: 'run_start', runDir: plan.runDir, resumeFrom: doneEpoch, journaled: journal.size, train: loaded.train.length, valid: loaded.valid.length }, 'run start');
  // run.json is final from here on: workers can open the run while the method prepares.
  plan.episodes?.runOpened?.(plan.runDir);

  await method.prepare?.([...loaded.train, ...loaded.valid], plan.signal);

  const train: IndexedTask<T>[] = loaded.train.map((task, index) => ({ task, index }));
  const valid: IndexedTask<T>[] = loaded.valid.map((task, index) => ({ task, index }));
  const aborted = (): boolean => plan.signal?.aborted ?? false;
  const retrieveAll = (items: readonly IndexedTask<T>[], phase: Phase, epoch: number, rng: Rng): Promise<Retrieval[]> =>
    method.retrieve(
      items.map((it) => it.task),
      { phase, epoch, rng, ...(plan.signal ? { signal: plan.signal } : {}) },
    );

  // On workers, every episode of a batch is queued at once: their number and concurrency set the pace.
  const width = (n: number): number => (plan.episodes ? Math.max(1, n) : plan.concurrency);

  /**
   * A batch's retrievals, as many tasks at a time as play at once: the first slice before
   * the episodes start, each later one after the one before, once the first calls are
   * out. At 32, retrieving 128 tasks at once held every slot 4-14 ms at each barrier
   * (bench:throughput); Self-RAG's decision calls, 4 at a time, held them for the whole
   * batch's decisions. One RNG stream in task order, as one call would draw it (the
   * method contract), so the retrievals are the same.
   */
  const retrieveAhead = async (items: readonly IndexedTask<T>[], phase: Phase, epoch: number, rng: Rng): Promise<(i: number) => Promise<Retrieval>> => {
    const size = width(items.length);
    const [first = [], ...later] = chunk(items, size);
    const head = await retrieveAll(first, phase, epoch, rng);
    if (later.length === 0) return async (i) => head[i] as Retrieval;
    let previous: Promise<unknown> = new Promise<void>((resolve) => setImmediate(resolve));
    const slices = later.map((slice) => {
      const retrieved = previous.then(() => retrieveAll(slice, phase, epoch, rng));
      retrieved.catch(() => undefined); // thrown to the episodes that wait for it
      previous = retrieved;
      return retrieved;
    });
    return async (i) => {
      if (i < size) return head[i] as Retrieval;
      try {
        return (await (slices[Math.floor(i / size) - 1] as Promise<Retrieval[]>))[i % size] as Retrieval;
      } catch (err) {
        // Cancelled (Ctrl-C): the episode starts cancelled too, and like the batch's others is neither journaled nor committed.
        if (aborted()) return { memories: [], fields: { retrievedIds: [] } };
        throw err;
      }
    };
  };
  // A fatal refusal reported by a worker's endpoint (bad key there, unknown model): stops the run like a local one.
  let remoteFatal: string | undefined;
  /** Never throws: a failed episode is an 'error' outcome. Also measures wall time. */
  const runEpisode = (it: IndexedTask<T>, epoch: number, phase: Phase, batch: number, memories: InjectedMemory[]): Promise<PlayedEpisode> => {
    if (plan.episodes) return runRemote(plan.episodes, it, epoch, phase, batch, memories);
    const play = (): Promise<PlayedEpisode> => playEpisode(bench, it.task, { model, ...(judge ? { judge } : {}) }, { epoch, phase, memories, signal: plan.signal, log });
    return plan.episodeSlots ? plan.episodeSlots.run(play) : play();
  };
  /** On a worker: its calls are counted here, as if made here (ledger, budget, the journal's usage). */
  const runRemote = async (episodes: EpisodeDispatcher, it: IndexedTask<T>, epoch: number, phase: Phase, batch: number, memories: InjectedMemory[]): Promise<PlayedEpisode> => {
    let res: EpisodeResult;
    try {
      res = await episodes.play({ runDir: plan.runDir, phase, epoch, batch, taskIndex: it.index, taskId: it.task.id, memories }, plan.signal);
    } catch (err) {
      log.error({ event: 'episode_error', task: it.task.id, epoch, phase, err: errorMessage(err) }, 'remote episode failed');
      return { ...faultOutcome(err), ms: 0 };
    }
    const usage = attemptUsage.get(attemptKey(phase, epoch, it.task.id));
    for (const call of res.metered) {
      const opts = { cached: call.cached === true, ...(call.model ? { model: call.model } : {}), ...(call.systemFingerprint ? { systemFingerprint: call.systemFingerprint } : {}) };
      usage?.record({ role: call.role }, call.usage, opts);
      ledger.record({ role: call.role }, call.usage, opts);
    }
    if (res.fatal) remoteFatal ??= `${res.worker}: ${res.fatal}`;
    return res.outcome;
  };

  const makeRow = (it: IndexedTask<T>, epoch: number, phase: Phase, retrieval: Retrieval, o: PlayedEpisode, memoryId?: string): OutcomeRow => ({
    benchmark: bench.name,
    taskId: it.task.id,
    taskIndex: it.index,
    epoch,
    phase: phase === 'valid' ? 'valid' : 'train',
    status: o.status,
    success: o.success,
    reward: o.success ? 1 : 0,
    steps: o.steps,
    error: o.error,
    ...retrieval.fields,
    promptTokens: o.usage.promptTokens,
    completionTokens: o.usage.completionTokens,
    totalTokens: o.usage.totalTokens,
    latencyMs: o.ms,
    memoryId,
    finishedAt: new Date(now()).toISOString(),
    extra: retrieval.record ? { ...o.extra, retrieval: retrieval.record } : o.extra,
  });

  /**
   * Every later call would fail the same way (bad key, unknown model, the endpoint gone):
   * stop, resumable, instead of recording errors. `played` is the batch or pass that saw it.
   */
  const stopIfFatal = (phase: OutcomePhase, epoch: number, played: readonly IndexedTask<T>[]): void => {
    const fatal = model.fatal ?? judge?.fatal;
    if (!fatal && !remoteFatal) return;
    emit('onPhaseEnd');
    // Episodes journaled before the endpoint was judged gone may hold its failures (a
    // memory the writer could not write): the resume plays the whole batch again, its
    // answered calls from the run's recording.
    if (fatal instanceof EndpointDownError || remoteFatal) journal.forget(phase, epoch, played.map((it) => it.index));
    journal.close();
    if (!fatal) throw new FatalModelError(`${remoteFatal}; fix the key, endpoint or model name there and rerun with --resume ${plan.runDir}`);
    if (fatal instanceof ReplayMissError) throw new UserError(fatal.message, 'replay_miss');
    if (fatal instanceof EndpointDownError) throw new FatalModelError(`${fatal.message}; once it answers again, rerun with --resume ${plan.runDir}`);
    throw new FatalModelError(`${fatal.message}; fix the key, endpoint or model name and rerun with --resume ${plan.runDir}`);
  };

  /**
   * One episode, exactly once across kills: taken from the journal when this very attempt
   * (same task, same retrieval) already finished, else run and journaled. An episode cut
   * short by Ctrl-C or a fatal provider error is not journaled: it runs again on resume.
   */
  const once = async (it: IndexedTask<T>, epoch: number, phase: OutcomePhase, retrieval: Retrieval, run: () => Promise<EpisodeRecord>): Promise<EpisodeRecord> => {
    const saved = journal.episode(phase, epoch, it.index);
    // An episode that ended in error is run again: the fault (an endpoint, an evaluator) may be fixed now.
    if (saved && saved.taskId === it.task.id && saved.row.status !== 'error' && sameRetrieval(retrieval, saved.row)) {
      // Its row holds the method's calls of the first attempt; this retrieval's repeat them.
      takeMethodCalls(phase, epoch, it.task.id);
      ledger.restore(addUsage(ledger.snapshot(), saved.usage));
      emit('onEpisode', saved.row);
      return { row: saved.row, ...(saved.result ? { experience: saved.result } : {}) };
    }
    if (saved) log.warn({ event: 'journal_mismatch', task: it.task.id, epoch, phase }, 'journaled episode retrieved differently now (changed settings?): running it again');
    const key = attemptKey(phase, epoch, it.task.id);
    attemptUsage.set(key, new UsageLedger());
    try {
      const rec = await run();
      emit('onEpisode', rec.row);
      if (!aborted() && !(model.fatal ?? judge?.fatal ?? remoteFatal)) {
        const usage = (attemptUsage.get(key) as UsageLedger).snapshot();
        journal.record({ kind: 'episode', phase, epoch, taskIndex: it.index, taskId: it.task.id, row: rec.row, ...(rec.experience ? { result: rec.experience } : {}), usage });
        crashPoint('journaled');
      }
      return rec;
    } finally {
      attemptUsage.delete(key);
    }
  };

  /**
   * Rows of a committed batch or pass, in task order (validated as they are written);
   * transcripts move to their own file.
   */
  const commitRows = (records: readonly EpisodeRecord[], qUpdates: ReadonlyMap<number, NonNullable<Transcript['qUpdates']>> = new Map()): void => {
    const committed: OutcomeRow[] = [];
    const traces: Trace[] = [];
    const transcripts: Transcript[] = [];
    for (const [i, { row: r }] of records.entries()) {
      let row = r;
      if (r.extra && 'transcript' in r.extra) {
        const { transcript, ...extra } = r.extra;
        traces.push({ taskId: r.taskId, taskIndex: r.taskIndex, epoch: r.epoch, phase: r.phase, transcript });
        row = { ...row, extra };
      }
      // The method's calls made at commit (Mem0's extraction) and the Q updates the episode caused join its record.
      const late = takeMethodCalls(r.phase, r.epoch, r.taskId);
      const q = qUpdates.get(i);
      if ((row.extra && ('calls' in row.extra || 'evaluatorOutput' in row.extra)) || late.length || q) {
        const { calls, evaluatorOutput, ...extra } = row.extra ?? {};
        const id = transcriptId(r.phase, r.epoch, r.taskIndex);
        transcripts.push({
          id,
          taskId: r.taskId,
          taskIndex: r.taskIndex,
          epoch: r.epoch,
          phase: r.phase,
          calls: [...((calls as RecordedCall[] | undefined) ?? []), ...late],
          ...(evaluatorOutput !== undefined ? { evaluatorOutput } : {}),
          ...(q ? { qUpdates: q } : {}),
        });
        row = { ...row, extra: { ...extra, transcriptId: id } };
      }
      committed.push(row);
    }
    rows.push(...committed);
    later.rows(committed, traces, transcripts);
  };

  /** A validation pass: reads memory, never writes it. Epoch 0 = before training. */
  const validate = async (epoch: number): Promise<void> => {
    if (valid.length === 0) return;
    const rng = Rng.derive(plan.seed, 'retrieve', 'valid', epoch);
    const retrieval = await retrieveAhead(valid, 'valid', epoch, rng);
    emit('onPhaseStart', { label: `valid e${epoch}`, total: valid.length });
    const records = await mapPool(valid, width(valid.length), async (it, i) => {
      const r = await retrieval(i);
      return once(it, epoch, 'valid', r, async () => {
        const retrievalCalls = takeMethodCalls('valid', epoch, it.task.id);
        const o = await runEpisode(it, epoch, 'valid', 0, r.memories);
        return { row: withMethodCalls(makeRow(it, epoch, 'valid', r, o), retrievalCalls, []) };
      });
    });
    await journal.synced();
    emit('onPhaseEnd');
    stopIfFatal('valid', epoch, valid);
    if (aborted()) return;
    commitRows(records);
  };

  /** One training episode and what the method learns from it (committed later, at the barrier). */
  const trainEpisode = async (it: IndexedTask<T>, epoch: number, batch: number, retrieval: Retrieval): Promise<EpisodeRecord> => {
    // The method's calls so far for this task (Self-RAG's gate and decision) come first in its transcript, the writer's last.
    const retrievalCalls = takeMethodCalls('train', epoch, it.task.id);
    const o = await runEpisode(it, epoch, 'train', batch, retrieval.memories);
    // A harness error is not experience: it neither writes memory nor moves Q.
    if (o.status === 'error' || o.status === 'skipped' || !method.learn) return { row: withMethodCalls(makeRow(it, epoch, 'train', retrieval, o), retrievalCalls, []) };
    let experience: Experience | undefined;
    const noisy = learningOutcome(o, plan.rewardNoise ?? 0, plan.seed, epoch, it.task.id);
    try {
      experience = await method.learn({ task: it.task, index: it.index, epoch, retrieval, outcome: noisy.outcome, ...(plan.signal ? { signal: plan.signal } : {}) });
    } catch (err) {
      // Only a cancelled run gets here (the writer falls back on model errors); the batch is dropped.
      if (aborted()) return { row: makeRow(it, epoch, 'train', retrieval, o) };
      throw err;
    }
    const row = withMethodCalls(makeRow(it, epoch, 'train', retrieval, o, experience?.memoryId), retrievalCalls, takeMethodCalls('train', epoch, it.task.id));
    if (noisy.flipped) row.extra = { ...row.extra, rewardFlipped: true };
    return { row, ...(experience ? { experience } : {}) };
  };

  const trainEpoch = async (epoch: number): Promise<boolean> => {
    const rng = Rng.derive(plan.seed, 'retrieve', 'train', epoch);
    const solved = new Set(rows.filter((r) => r.phase === 'train' && r.success).map((r) => r.taskId));
    const todo = method.trainTasks ? train.filter((it) => method.trainTasks!([it.task], { epoch, solved }).length > 0) : train;
    emit('onPhaseStart', { label: `train e${epoch}`, total: todo.length });
    for (const [b, batch] of chunk(todo, plan.batchSize).entries()) {
      if (aborted()) break;
      const retrieval = await retrieveAhead(batch, 'train', epoch, rng);
      const played = mapPool(batch, width(batch.length), async (it, i) => {
        const r = await retrieval(i);
        return once(it, epoch, 'train', r, () => trainEpisode(it, epoch, b, r));
      });
      // The last batch's rows are written while this batch's first calls are out.
      later.flushSoon();
      const records = await played;
      // Nothing is committed before every episode it learns from is on disk.
      await journal.synced();
      stopIfFatal('train', epoch, batch);
      if (aborted()) break; // not committed; its finished episodes wait in the journal
      // A replayed barrier keeps its first commit time, so memory timestamps match too.
      const recordedAt = journal.barrierAt(epoch, b);
      const at = recordedAt ?? now();
      const learned = records.flatMap((r, i) => (r.experience ? [i] : []));
      const effects = await method.commit(
        learned.map((i) => records[i]!.experience!),
        at,
      );
      // Each Q update belongs to the episode whose experience caused it.
      const qUpdates = new Map<number, NonNullable<Transcript['qUpdates']>>();
      for (const u of effects?.qUpdates ?? []) {
        const i = learned[u.experience];
        if (i !== undefined) qUpdates.set(i, [...(qUpdates.get(i) ?? []), { memoryId: u.memoryId, before: u.before, after: u.after }]);
      }
      commitRows(records, qUpdates);
      crashPoint('barrier');
      // On disk by the next batch's commit (its flushes cover this line) or the epoch's checkpoint.
      if (recordedAt === undefined) journal.record({ kind: 'barrier', epoch, batch: b, at });
    }
    emit('onPhaseEnd');
    return !aborted();
  };

  const metricsNow = (): RunSummary => {
    const hasValid = rows.some((r) => r.phase === 'valid');
    return summarize(rows, { trainTaskIds, validTaskIds: hasValid ? validTaskIds : undefined });
  };

  /** Too many errors in this epoch: its numbers would describe the fault, not the method. */
  const failureOf = (epoch: number): string | undefined => {
    if (plan.maxErrorRate === undefined) return undefined;
    const ran = rows.filter((r) => r.epoch === epoch);
    const errors = ran.filter((r) => r.status === 'error');
    if (ran.length === 0 || errors.length / ran.length <= plan.maxErrorRate) return undefined;
    const pct = (x: number) => `${Math.round(100 * x)}%`;
    return `epoch ${epoch}: ${errors.length} of ${ran.length} episodes ended in error (${pct(errors.length / ran.length)} > memrl.max_error_rate ${pct(plan.maxErrorRate)}); the first: ${errors[0]!.error ?? 'no message'}`;
  };

  let epochsCompleted = doneEpoch;
  let validatedBeforeTraining = valZeroDone;
  let failure: string | undefined;
  if (plan.runValidation && plan.validateBeforeTraining && doneEpoch === 0 && !valZeroDone) {
    await validate(0);
    validatedBeforeTraining = !aborted();
  }
  for (let epoch = doneEpoch + 1; epoch <= plan.epochs && !aborted(); epoch++) {
    const ok = await trainEpoch(epoch);
    if (!ok) break;
    const every = plan.validInterval ?? 1;
    if (plan.runValidation && every > 0 && epoch % every === 0) await validate(epoch);
    if (aborted()) break;
    // Not checkpointed: a resume runs the epoch again, once the fault is fixed.
    failure = failureOf(epoch);
    if (failure) {
      log.error({ event: 'run_failed', epoch, failure }, 'too many errors');
      break;
    }
    // Derived files first: a kill before the checkpoint replays this epoch and rewrites them.
    const metrics = metricsNow();
    emit('onEpochEnd', { info, epoch, epochs: plan.epochs, metrics, rows, memories: method.size, records: method.records() });
    crashPoint('epoch-outputs');
    folder.writeCheckpoint({
      version: 2,
      epochCompleted: epoch,
      validatedBeforeTraining,
      memory: method.snapshot(),
      ledger: ledger.snapshot(),
      savedAt: new Date(now()).toISOString(),
    });
    crashPoint('checkpoint');
    journal.reset();
    epochsCompleted = epoch;
    const tr = metrics.train.epochs.at(-1);
    log.info({ event: 'epoch_end', epoch, acc: tr?.acc, csr: tr?.csr, memories: method.size }, 'epoch end');
  }

  const interrupted = aborted() || epochsCompleted < plan.epochs;
  crashPoint('end');
  const metrics = metricsNow();
  const status = failure ? 'failed' : interrupted ? 'interrupted' : 'complete';
  // run.json describes the evaluator as it started. A part that gave out later (a fork
  // server that could not start, so tests ran in fresh sandboxes) is recorded here.
  const evaluatorAtEnd = await bench.describeEvaluator().catch(() => undefined);
  const evaluatorChanged = evaluatorAtEnd !== undefined && canonicalJson(evaluatorAtEnd) !== canonicalJson(evaluator);
  if (evaluatorChanged) log.warn({ event: 'evaluator_changed', evaluator: evaluatorAtEnd }, 'the evaluator ended otherwise than it started: summary.json evaluatorAtEnd');
  const summary: RunEndSummary = {
    status,
    ...(failure ? { failure } : {}),
    ...(evaluatorChanged ? { evaluatorAtEnd } : {}),
    epochsCompleted,
    epochsPlanned: plan.epochs,
    model: model.label,
    simulated: model.simulated,
    method: methodModule.name,
    usage: ledger.snapshot(),
    memory: method.stats(),
    benchmark: bench.name,
    train: headline(metrics.train),
    valid: metrics.valid ? headline(metrics.valid) : undefined,
    metrics,
  };
  emit('onRunEnd', { info, status, summary, records: method.records() });
  if (interrupted) journal.close();
  else journal.remove();
  log.info({ event: 'run_end', epochsCompleted, interrupted }, 'run end');
  return { runDir: plan.runDir, epochsCompleted, interrupted, ...(failure ? { failure } : {}), summary };
}

/** The row with the method's calls for it around the episode's own: before (at retrieval) and after (the writer). */
function withMethodCalls(row: OutcomeRow, before: RecordedCall[], after: RecordedCall[]): OutcomeRow {
  if (before.length === 0 && after.length === 0) return row;
  const calls = [...before, ...((row.extra?.calls as RecordedCall[] | undefined) ?? []), ...after];
  return { ...row, extra: { ...row.extra, calls } };
}

function builtinMethod(name: string): MethodModule {
  const m = BUILTIN_METHODS.find((x) => x.name === name);
  if (!m) throw new UserError(`unknown method \`${name}\`; built-in: ${BUILTIN_METHODS.map((x) => x.name).join(', ')}`, 'unknown_method');
  return m;
}


function attemptKey(phase: string, epoch: number, taskId: string): string {
  return `${phase}|${epoch}|${taskId}`;
}

const RETRIEVAL_KEYS = ['retrievedIds', 'retrievedQ', 'retrievedSim', 'explored', 'pool'] as const;

/** The same attempt: the row fields that come from the retrieval, and its record, are equal. */
function sameRetrieval(retrieval: Retrieval, row: OutcomeRow): boolean {
  const pick = (x: Partial<Record<(typeof RETRIEVAL_KEYS)[number], unknown>>) => JSON.stringify(RETRIEVAL_KEYS.map((k) => x[k]));
  return pick(retrieval.fields) === pick(row) && JSON.stringify(retrieval.record) === JSON.stringify(row.extra?.retrieval);
}

function headline(m: RunSummary['train']): Headline {
  return { tasks: m.tasks, last: m.last, lastExcludingErrors: m.lastExcludingErrors, csr: m.csrFinal, forgettingFlip: m.forgettingFlip, forgettingMax: m.forgettingMax, bwt: m.bwt };
}

function addUsage(a: LedgerSnapshot, b: LedgerSnapshot): LedgerSnapshot {
  const byRole = { ...a.byRole };
  for (const role of LEDGER_ROLES) {
    const x = a.byRole[role];
    const y = b.byRole[role];
    if (!y) continue;
    byRole[role] = {
      calls: x.calls + y.calls,
      cachedCalls: x.cachedCalls + y.cachedCalls,
      promptTokens: x.promptTokens + y.promptTokens,
      completionTokens: x.completionTokens + y.completionTokens,
      totalTokens: x.totalTokens + y.totalTokens,
      cachedTokens: x.cachedTokens + y.cachedTokens,
    };
  }
  return { ...a, byRole };
}
