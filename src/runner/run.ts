/**
 * The runner: the only place that knows epochs, batches, barriers, checkpoints and resume.
 *
 * One epoch = a train phase over the whole train set in fixed order, in batches. All
 * tasks of a batch retrieve from the memory as it was before the batch (retrievals are
 * drawn in task order, so epsilon draws do not depend on concurrency); episodes run
 * concurrently; at the barrier the batch's Q updates and new memories are committed in
 * task order. Then an optional validation phase reads memory and never writes it.
 * At every epoch end the whole learning state is checkpointed atomically.
 *
 * Crash safety: every finished episode goes to the journal (journal.ts) at once, with
 * what its barrier commit needs. --resume restores the epoch checkpoint and replays the
 * epoch batch by batch: retrievals are recomputed (same memory, same RNG stream), an
 * episode found in the journal with the same selection is taken as recorded, the rest
 * run; barriers commit as before. So the resumed run passes through exactly the states
 * of an uninterrupted one, and no episode is lost or counted twice.
 */
import type { Logger } from 'pino';
import type { Benchmark, InjectedMemory, Outcome, TaskBase } from '../bench/types.js';
import type { Embedder } from '../embed/types.js';
import type { ChatModel, Phase } from '../llm/types.js';
import { LEDGER_ROLES, UsageLedger, type LedgerSnapshot } from '../llm/ledger.js';
import type { SimPlayer } from '../llm/sim/model.js';
import { MemoryEngine } from '../memory/engine.js';
import { MemoryWriter } from '../memory/writer.js';
import type { BuildStrategy, EpisodeResult, MemoryMethod, MemoryParams, Selection } from '../memory/types.js';
import type { OutcomePhase, OutcomeRow } from '../metrics/outcome-row.js';
import { Rng } from '../util/rng.js';
import { UserError, errorMessage } from '../util/errors.js';
import { MeteredChatModel } from '../llm/metered.js';
import { ReplayMissError } from '../llm/cache.js';
import { chunk, mapPool } from './pool.js';
import { Progress } from './progress.js';
import { RunFiles } from './run-files.js';
import { JOURNAL_FILE, Journal, type StoredResult } from './journal.js';

/**
 * Memory methods (none, rag, memp, memrl) go through the engine. passk and reflection
 * are runner modes without the engine: each epoch retries only the tasks not solved
 * yet; reflection also shows a task its own previous attempt and a reflection on it.
 */
export type RunMethod = 'none' | 'rag' | 'memp' | 'memrl' | 'passk' | 'reflection';

export interface RunPlan<T extends TaskBase = TaskBase> {
  benchmark: Benchmark<T>;
  method: RunMethod;
  memoryParams: MemoryParams;
  buildStrategy: BuildStrategy;
  epochs: number;
  batchSize: number;
  concurrency: number;
  seed: number;
  runValidation: boolean;
  /** With runValidation: also validate before epoch 1 (the memory-free start). */
  validateBeforeTraining: boolean;
  /** Create the chat model once tasks are known (the sim model needs the benchmark's player). */
  createModel: (simPlayer: SimPlayer) => ChatModel;
  /** A separate scoring model (HLE's judge), metered like the agent. */
  createJudgeModel?: (simPlayer: SimPlayer) => ChatModel;
  embedder: Embedder;
  /** Token ledger; pass one to also count embedding calls made by the embedder. */
  ledger?: UsageLedger;
  promptDir?: string;
  /** Where this run's files go: a new folder, or the folder being resumed. */
  runDir: string;
  resume: boolean;
  /** Redacted resolved config and other facts for run.json. */
  manifest: Record<string, unknown>;
  log: Logger;
  progress: boolean;
  signal?: AbortSignal;
  /** Called once the tasks are loaded, before the first episode. */
  onStart?: (info: { train: number; valid: number; split: string }) => void;
  /** Called after each completed epoch (the CLI prints a line). */
  onEpoch?: (e: EpochReport) => void;
  /** Injectable clock (tests); defaults to Date.now. */
  now?: () => number;
}

export interface EpochReport {
  epoch: number;
  epochs: number;
  acc: number | null;
  csr: number | null;
  validAcc: number | null;
  memories: number;
}

export interface RunResult {
  runDir: string;
  epochsCompleted: number;
  interrupted: boolean;
  summary: Record<string, unknown>;
}

interface IndexedTask<T> {
  task: T;
  index: number;
}

interface EpisodeRecord {
  row: OutcomeRow;
  result?: EpisodeResult;
}

export async function runBenchmark<T extends TaskBase>(plan: RunPlan<T>): Promise<RunResult> {
  const now = plan.now ?? Date.now;
  const log = plan.log;
  const bench = plan.benchmark;
  const loaded = await bench.load();
  if (loaded.train.length === 0) throw new Error(`${bench.name}: the train set is empty (check --limit, --subset and the split file)`);

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
  const model = new MeteredChatModel(tapUsage(plan.createModel(player)), ledger, log);
  const judge = plan.createJudgeModel ? new MeteredChatModel(tapUsage(plan.createJudgeModel(player)), ledger, log) : undefined;
  const files = new RunFiles(plan.runDir, bench.name);
  plan.onStart?.({ train: loaded.train.length, valid: loaded.valid.length, split: loaded.splitLabel });
  const retriesOnly = plan.method === 'passk' || plan.method === 'reflection';
  const engineMethod = retriesOnly ? 'none' : (plan.method as MemoryMethod);
  const usesMemory = engineMethod !== 'none';

  // Resume: restore the learning state of the last completed epoch and drop rows past it;
  // the journal then replays the unfinished epoch up to where the run stopped.
  const ckpt = plan.resume ? files.readCheckpoint() : undefined;
  if (plan.resume && !ckpt && !files.hasManifest()) {
    throw new Error(`--resume ${plan.runDir}: not a memrl run folder (no run.json)`);
  }
  // The plan's method decides the engine's behaviour (retrieval ranking, Q updates).
  const engine = ckpt ? MemoryEngine.restore(ckpt.memory) : new MemoryEngine({ ...plan.memoryParams, method: engineMethod });
  // reflection mode: each task's own latest attempt, shown to it on the retry.
  const attempts = new Map<string, InjectedMemory>(Object.entries(ckpt?.attempts ?? {}));
  if (ckpt) ledger.restore(ckpt.ledger);
  const doneEpoch = ckpt?.epochCompleted ?? 0;
  const valZeroDone = ckpt?.validatedBeforeTraining ?? false;

  const evaluator = await bench.describeEvaluator();
  const resuming = plan.resume && files.hasManifest();
  if (!resuming) {
    // Only now, with tasks loaded, does the run folder come to exist: a bad start leaves nothing behind.
    files.create({
      ...plan.manifest,
      benchmark: bench.name,
      env: bench.envLabel,
      method: plan.method,
      model: model.label,
      simulated: model.simulated,
      embedder: plan.embedder.label,
      seed: plan.seed,
      epochs: plan.epochs,
      batchSize: plan.batchSize,
      concurrency: plan.concurrency,
      dataset: { sources: loaded.sources, split: loaded.splitLabel, train: loaded.train.length, valid: loaded.valid.length },
      trainTaskIds: loaded.train.map((t) => t.id),
      validTaskIds: loaded.valid.map((t) => t.id),
      evaluator,
      startedAt: new Date(now()).toISOString(),
    });
  } else {
    files.removeStrayTempFiles();
  }
  files.openOutcomes({ keepUpToEpoch: ckpt ? doneEpoch : -1 });
  // Entries of checkpointed epochs are stale (a kill between checkpoint and journal reset).
  const journal = new Journal(files.path(JOURNAL_FILE), (e) => plan.resume && (!ckpt || e.epoch > doneEpoch));
  if (resuming) files.noteResume(new Date(now()).toISOString(), doneEpoch, journal.size);
  log.info({ event: 'run_start', runDir: plan.runDir, resumeFrom: doneEpoch, journaled: journal.size, train: loaded.train.length, valid: loaded.valid.length }, 'run start');

  // Key embeddings never change: embed every task key once.
  const allTasks = [...loaded.train, ...loaded.valid];
  const keyEmbedding = new Map<string, Float32Array>();
  if (usesMemory) {
    const vectors = await plan.embedder.embed(allTasks.map((t) => t.key), plan.signal);
    allTasks.forEach((t, i) => keyEmbedding.set(t.id, vectors[i] as Float32Array));
  }

  const progress = new Progress(plan.progress);
  const train: IndexedTask<T>[] = loaded.train.map((task, index) => ({ task, index }));
  const valid: IndexedTask<T>[] = loaded.valid.map((task, index) => ({ task, index }));
  const aborted = (): boolean => plan.signal?.aborted ?? false;

  const retrieveAll = (items: IndexedTask<T>[], rng: Rng): Selection[] =>
    items.map(({ task }) =>
      usesMemory
        ? engine.retrieve(keyEmbedding.get(task.id) as Float32Array, rng)
        : { selected: [], pool: 0, phaseAKeys: [], explored: false },
    );

  const injected = (sel: Selection): InjectedMemory[] =>
    sel.selected.map((c) => {
      const rec = engine.get(c.id);
      if (!rec) throw new Error(`memory ${c.id} selected but not stored`);
      const taskId = typeof rec.meta.taskId === 'string' ? rec.meta.taskId : undefined;
      return { id: rec.id, key: rec.key, success: rec.success, taskId, content: rec.content, q: c.q, sim: c.sim };
    });

  /** Never throws: a crashing episode is an 'error' outcome. Also measures wall time. */
  const runEpisode = async (task: T, epoch: number, phase: Phase, memories: InjectedMemory[]): Promise<Outcome & { ms: number }> => {
    const started = performance.now();
    let outcome: Outcome;
    // Count this episode's replies served from the response cache (outcome rows mark them).
    let cacheHits = 0;
    const counted = (m: ChatModel): ChatModel => ({
      label: m.label,
      simulated: m.simulated,
      chat: async (req, signal) => {
        const res = await m.chat(req, signal);
        if (res.cached) cacheHits++;
        return res;
      },
    });
    try {
      outcome = await bench.episode(task, { model: counted(model), judge: judge && counted(judge), memories, epoch, phase, signal: plan.signal ?? new AbortController().signal, log });
    } catch (err) {
      log.error({ event: 'episode_error', task: task.id, epoch, phase, err: errorMessage(err) }, 'episode crashed');
      outcome = { status: 'error', success: false, steps: 0, error: `episode crashed: ${errorMessage(err)}`, trajectory: '', usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } };
    }
    if (cacheHits > 0) outcome = { ...outcome, extra: { ...outcome.extra, cacheHits } };
    return { ...outcome, ms: Math.round(performance.now() - started) };
  };

  const makeRow = (it: IndexedTask<T>, epoch: number, phase: Phase, sel: Selection, o: Outcome & { ms: number }, memoryId?: string): OutcomeRow => ({
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
    ...selectionFields(sel),
    promptTokens: o.usage.promptTokens,
    completionTokens: o.usage.completionTokens,
    totalTokens: o.usage.totalTokens,
    latencyMs: o.ms,
    memoryId,
    extra: o.extra,
  });

  /** Every later call would fail the same way (bad key, unknown model): stop, resumable, instead of recording errors. */
  const stopIfFatal = (): void => {
    const fatal = model.fatal ?? judge?.fatal;
    if (!fatal) return;
    progress.stop();
    files.close();
    journal.close();
    if (fatal instanceof ReplayMissError) throw new UserError(fatal.message);
    throw new UserError(`${fatal.message}; fix the key, endpoint or model name and rerun with --resume ${plan.runDir}`);
  };

  /**
   * One episode, exactly once across kills: taken from the journal when this very attempt
   * (same task, same selection) already finished, else run and journaled. An episode cut
   * short by Ctrl-C or a fatal provider error is not journaled: it runs again on resume.
   */
  const once = async (it: IndexedTask<T>, epoch: number, phase: OutcomePhase, sel: Selection, run: () => Promise<EpisodeRecord>): Promise<EpisodeRecord> => {
    const saved = journal.episode(phase, epoch, it.index);
    if (saved && saved.taskId === it.task.id && JSON.stringify(selectionFields(sel)) === JSON.stringify(selectionFields(saved.row))) {
      ledger.restore(addUsage(ledger.snapshot(), saved.usage));
      progress.tick(saved.row.success);
      return { row: saved.row, result: saved.result && restoreResult(saved.result, it.task.id) };
    }
    if (saved) log.warn({ event: 'journal_mismatch', task: it.task.id, epoch, phase }, 'journaled episode retrieved differently now (changed settings?): running it again');
    const key = attemptKey(phase, epoch, it.task.id);
    attemptUsage.set(key, new UsageLedger());
    try {
      const rec = await run();
      if (!aborted() && !(model.fatal ?? judge?.fatal)) {
        const usage = (attemptUsage.get(key) as UsageLedger).snapshot();
        await journal.append({ kind: 'episode', phase, epoch, taskIndex: it.index, taskId: it.task.id, row: rec.row, ...(rec.result ? { result: storeResult(rec.result) } : {}), usage });
        crashPoint('journaled');
      }
      return rec;
    } finally {
      attemptUsage.delete(key);
    }
  };

  /** The key embedding is not journaled: it is the task's, embedded again at every start. */
  const restoreResult = (r: StoredResult, taskId: string): EpisodeResult => {
    const { newMemory, ...rest } = r;
    return newMemory ? { ...rest, newMemory: { ...newMemory, keyEmbedding: keyEmbedding.get(taskId) as Float32Array } } : rest;
  };

  /** A validation pass: reads memory, never writes it. Epoch 0 = before training. */
  const validate = async (epoch: number): Promise<void> => {
    if (valid.length === 0) return;
    const rng = Rng.derive(plan.seed, 'retrieve', 'valid', epoch);
    const sels = retrieveAll(valid, rng);
    progress.start(`valid e${epoch}`, valid.length);
    const records = await mapPool(valid, plan.concurrency, async (it, i) => {
      const sel = sels[i] as Selection;
      return once(it, epoch, 'valid', sel, async () => {
        const o = await runEpisode(it.task, epoch, 'valid', injected(sel));
        progress.tick(o.success);
        return { row: makeRow(it, epoch, 'valid', sel, o) };
      });
    });
    progress.stop();
    stopIfFatal();
    if (aborted()) return;
    files.appendRows(records.map((r) => r.row));
  };

  const writesMemory = plan.method !== 'none' && plan.method !== 'passk';
  const writer = new MemoryWriter({
    strategy: plan.method === 'rag' ? 'trajectory' : plan.buildStrategy,
    updateStrategy: plan.memoryParams.updateStrategy,
    model,
    promptDir: plan.promptDir,
  });
  /** reflection mode: the task's previous attempt as the only "memory"; other modes: the engine's selection. */
  const selectionFor = (it: IndexedTask<T>, sel: Selection): { sel: Selection; memories: InjectedMemory[] } => {
    if (plan.method !== 'reflection') return { sel, memories: injected(sel) };
    const prev = attempts.get(it.task.id);
    if (!prev) return { sel, memories: [] };
    const c = { id: prev.id, key: prev.key, sim: 1, q: 0, score: 0, simZ: 0, qZ: 0 };
    return { sel: { selected: [c], pool: 1, phaseAKeys: [], explored: false }, memories: [prev] };
  };

  /** One training episode and the memory it writes (committed later, at the barrier). */
  const trainEpisode = async (it: IndexedTask<T>, epoch: number, sel: Selection, memories: InjectedMemory[]): Promise<EpisodeRecord> => {
    const o = await runEpisode(it.task, epoch, 'train', memories);
    progress.tick(o.success);
    // A harness error is not experience: it neither writes memory nor moves Q.
    if (o.status === 'error' || o.status === 'skipped') return { row: makeRow(it, epoch, 'train', sel, o) };
    const injectedIds = sel.selected.map((c) => c.id);
    if (!writesMemory) return { row: makeRow(it, epoch, 'train', sel, o), result: { injectedIds, success: o.success } };
    const memoryId = `mem-e${epoch}-t${it.index}`;
    let built;
    try {
      built = await writer.write({
        task: it.task.key,
        trajectory: o.trajectory,
        success: o.success,
        tags: { benchmark: bench.name, taskId: it.task.id, epoch, phase: 'train' },
        signal: plan.signal,
      });
    } catch (err) {
      // Only a cancelled run gets here (the writer falls back on model errors); the batch is dropped.
      if (aborted()) return { row: makeRow(it, epoch, 'train', sel, o) };
      throw err;
    }
    return {
      row: makeRow(it, epoch, 'train', sel, o, memoryId),
      result: {
        injectedIds,
        success: o.success,
        newMemory: {
          id: memoryId,
          key: it.task.key,
          keyEmbedding: keyEmbedding.get(it.task.id) as Float32Array,
          phaseAKeys: sel.phaseAKeys,
          content: built.content,
          success: o.success,
          meta: { taskId: it.task.id, epoch, phase: 'train', status: o.status, ...(built.llmError ? { writerError: built.llmError } : {}) },
        },
      },
    };
  };

  const trainEpoch = async (epoch: number): Promise<boolean> => {
    const rng = Rng.derive(plan.seed, 'retrieve', 'train', epoch);
    // passk / reflection: one more attempt for each task not solved in an earlier epoch.
    const solved = retriesOnly ? files.solvedTaskIds('train') : new Set<string>();
    const todo = train.filter((it) => !solved.has(it.task.id));
    progress.start(`train e${epoch}`, todo.length);
    for (const [b, batch] of chunk(todo, plan.batchSize).entries()) {
      if (aborted()) break;
      const sels = retrieveAll(batch, rng);
      const records = await mapPool(batch, plan.concurrency, async (it, i): Promise<EpisodeRecord> => {
        const { sel, memories } = selectionFor(it, sels[i] as Selection);
        return once(it, epoch, 'train', sel, () => trainEpisode(it, epoch, sel, memories));
      });
      stopIfFatal();
      if (aborted()) break; // not committed; its finished episodes wait in the journal
      // A replayed barrier keeps its first commit time, so memory timestamps match too.
      const recordedAt = journal.barrierAt(epoch, b);
      const at = recordedAt ?? now();
      const results = records.flatMap((r) => (r.result ? [r.result] : []));
      if (usesMemory) engine.commit(results, at);
      if (plan.method === 'reflection') {
        for (const [i, r] of records.entries()) {
          const nm = r.result?.newMemory;
          const it = batch[i] as IndexedTask<T>;
          if (nm) attempts.set(it.task.id, { id: nm.id, key: nm.key, success: nm.success, taskId: it.task.id, content: nm.content, q: 0, sim: 1 });
        }
      }
      files.appendRows(records.map((r) => r.row));
      crashPoint('barrier');
      if (recordedAt === undefined) await journal.append({ kind: 'barrier', epoch, batch: b, at });
    }
    progress.stop();
    return !aborted();
  };

  let epochsCompleted = doneEpoch;
  let validatedBeforeTraining = valZeroDone;
  if (plan.runValidation && plan.validateBeforeTraining && doneEpoch === 0 && !valZeroDone) {
    await validate(0);
    validatedBeforeTraining = !aborted();
  }
  for (let epoch = doneEpoch + 1; epoch <= plan.epochs && !aborted(); epoch++) {
    const ok = await trainEpoch(epoch);
    if (!ok) break;
    if (plan.runValidation) await validate(epoch);
    if (aborted()) break;
    // Derived files first: a kill before the checkpoint replays this epoch and rewrites them.
    const metrics = files.writeEpochOutputs(loaded.train.map((t) => t.id), loaded.valid.map((t) => t.id), bench.validSetLabel);
    files.sync();
    crashPoint('epoch-outputs');
    files.writeCheckpoint({
      version: 1,
      epochCompleted: epoch,
      validatedBeforeTraining,
      memory: engine.snapshot(),
      ledger: ledger.snapshot(),
      ...(attempts.size ? { attempts: Object.fromEntries(attempts) } : {}),
      savedAt: new Date(now()).toISOString(),
    });
    crashPoint('checkpoint');
    journal.reset();
    epochsCompleted = epoch;
    const tr = metrics.train.epochs.at(-1);
    log.info({ event: 'epoch_end', epoch, acc: tr?.acc, csr: tr?.csr, memories: engine.size }, 'epoch end');
    const va = metrics.valid?.epochs.at(-1);
    plan.onEpoch?.({ epoch, epochs: plan.epochs, acc: tr?.acc ?? null, csr: tr?.csr ?? null, validAcc: va?.acc ?? null, memories: engine.size });
  }

  const interrupted = aborted() || epochsCompleted < plan.epochs;
  crashPoint('end');
  const summary = files.writeSummary({
    status: interrupted ? 'interrupted' : 'complete',
    epochsCompleted,
    epochsPlanned: plan.epochs,
    model: model.label,
    simulated: model.simulated,
    method: plan.method,
    usage: ledger.snapshot(),
    memory: engine.stats(),
    trainTaskIds: loaded.train.map((t) => t.id),
    validTaskIds: loaded.valid.map((t) => t.id),
  });
  files.writeMemoryDump(engine.records());
  files.close();
  if (interrupted) journal.close();
  else journal.remove();
  log.info({ event: 'run_end', epochsCompleted, interrupted }, 'run end');
  return { runDir: plan.runDir, epochsCompleted, interrupted, summary };
}

/**
 * Crash-safety tests only: MEMRL_CRASH_AT=<point>:<n> kills this process (SIGKILL, as
 * `kill -9` would) the n-th time it passes <point>, to hit the narrow windows on purpose.
 */
const crashAt = /^([a-z-]+):(\d+)$/.exec(process.env.MEMRL_CRASH_AT ?? '');
let crashCountdown = crashAt ? Number(crashAt[2]) : 0;
function crashPoint(point: string): void {
  if (crashAt?.[1] === point && --crashCountdown === 0) process.kill(process.pid, 'SIGKILL');
}

function attemptKey(phase: string, epoch: number, taskId: string): string {
  return `${phase}|${epoch}|${taskId}`;
}

/** The row fields that come from the retrieval: equal ones mean the same attempt. */
function selectionFields(x: Selection | OutcomeRow): Pick<OutcomeRow, 'retrievedIds' | 'retrievedQ' | 'retrievedSim' | 'explored' | 'pool'> {
  if ('selected' in x) {
    return { retrievedIds: x.selected.map((c) => c.id), retrievedQ: x.selected.map((c) => c.q), retrievedSim: x.selected.map((c) => c.sim), explored: x.explored, pool: x.pool };
  }
  return { retrievedIds: x.retrievedIds, retrievedQ: x.retrievedQ, retrievedSim: x.retrievedSim, explored: x.explored, pool: x.pool };
}

function storeResult(r: EpisodeResult): StoredResult {
  if (!r.newMemory) return { injectedIds: r.injectedIds, success: r.success };
  const { keyEmbedding: _k, ...newMemory } = r.newMemory;
  return { injectedIds: r.injectedIds, success: r.success, newMemory };
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
