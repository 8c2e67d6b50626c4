/**
 * Everything a run needs before its first batch, in the order it must happen: tasks
 * loaded, the models (metered, their usage counted per attempt), the memory method
 * (restored from the checkpoint on resume), the run folder (created only now, so a bad
 * start leaves nothing behind; or reopened), the journal, and the collaborators the
 * scheduler asks: attempts, the dispatcher, the episode records, the outcome matrix,
 * the stops.
 */
import type { LoadedTasks, TaskBase } from '../core/benchmark.js';
import type { MethodInstance, MethodModule } from '../core/method.js';
import type { RunInfo } from '../core/reporter.js';
import type { EvaluatorFacts } from '../core/run-files/index.js';
import { EndpointHealth } from '../llm/endpoint-health.js';
import { UsageLedger } from '../llm/ledger.js';
import { MeteredChatModel } from '../llm/metered.js';
import type { ChatModel } from '../llm/types.js';
import { BUILTIN_METHODS } from '../methods/registry.js';
import { UserError } from '../util/errors.js';
import { REFERENCE_FIDELITY } from '../util/fidelity.js';
import { AttemptUsage, Attempts } from './attempts.js';
import { blockedTasksNotice, profileWithBlocked } from './blocked-tasks.js';
import type { Dispatcher, IndexedTask } from './dispatcher.js';
import { EpisodeRecords } from './episode-records.js';
import { JOURNAL_FILE, Journal } from './journal.js';
import { LocalDispatcher } from './local-dispatcher.js';
import { MethodCalls } from './method-calls.js';
import { OutcomeMatrix } from './outcome-matrix.js';
import { RemoteDispatcher } from './remote-dispatcher.js';
import type { RunFolder } from './run-folder.js';
import type { RunPlan } from './run-plan.js';
import type { Emit } from './rows-later.js';
import { RunStops } from './stops.js';

/** A run ready for its first batch: what the scheduler asks, and the facts its end reports. */
export interface OpenRun<T extends TaskBase> {
  methodName: string;
  method: MethodInstance;
  /** The agent's model, for summary.json's label. */
  model: MeteredChatModel;
  ledger: UsageLedger;
  info: RunInfo;
  /** The evaluator as run.json describes it at the start. */
  evaluator: EvaluatorFacts;
  train: IndexedTask<T>[];
  valid: IndexedTask<T>[];
  matrix: OutcomeMatrix;
  attempts: Attempts;
  episodes: EpisodeRecords<T>;
  dispatcher: Dispatcher<T>;
  calls: MethodCalls;
  stops: RunStops;
  /** The last checkpointed epoch (0: none). */
  doneEpoch: number;
  validatedBeforeTraining: boolean;
}

/** The checkpoint a resume starts from (and whether it fell back to the one before a damaged one). */
type Restored = ReturnType<RunFolder['readCheckpoint']>;

interface Models {
  ledger: UsageLedger;
  usage: AttemptUsage;
  model: MeteredChatModel;
  judge: MeteredChatModel | undefined;
}

/** `opened.method` is set as soon as the method exists, so the caller can close it whatever happens next. */
export async function openRun<T extends TaskBase>(folder: RunFolder, plan: RunPlan<T>, emit: Emit, opened: { method?: MethodInstance }): Promise<OpenRun<T>> {
  const bench = plan.benchmark;
  const methodModule = typeof plan.method.module === 'string' ? builtinMethod(plan.method.module) : plan.method.module;
  const loaded = await bench.load();
  if (loaded.train.length === 0) throw new UserError(`${bench.name}: the train set is empty (check --limit, --subset and the split file)`, 'empty_train_set');
  const models = openModels(plan, loaded);

  // Resume: restore the learning state of the last completed epoch and drop rows past it;
  // the journal then replays the unfinished epoch up to where the run stopped.
  const ckpt = plan.folder.resume ? folder.readCheckpoint() : undefined;
  if (plan.folder.resume && !ckpt && !folder.hasManifest()) {
    throw new UserError(`--resume ${plan.folder.dir}: not a memrl run folder (no run.json)`);
  }
  // Checked before anything is said or run: every checkpointed epoch has its rows (rebuilt, or refused).
  const kept = plan.folder.resume && folder.hasManifest() ? folder.keptRows(ckpt?.epochCompleted ?? -1, loaded.train.map((t) => t.id)) : { rows: [] };
  emit('onTasksLoaded', { train: loaded.train.length, valid: loaded.valid.length, split: loaded.splitLabel });
  const calls = new MethodCalls();
  const method = await createMethod(methodModule, plan, calls.recording(models.model), ckpt);
  opened.method = method;
  if (ckpt) models.ledger.restore(ckpt.ledger);
  const doneEpoch = ckpt?.epochCompleted ?? 0;
  const { info, evaluator, matrix, journal } = await openFolder(folder, plan, emit, { loaded, methodName: methodModule.name, model: models.model, ckpt, kept });

  const dispatcher: Dispatcher<T> = plan.episodes?.dispatcher
    ? new RemoteDispatcher(plan.episodes.dispatcher, models.usage, { runDir: plan.folder.dir, signal: plan.stops?.signal, log: plan.log })
    : new LocalDispatcher(bench, { model: models.model, ...(models.judge ? { judge: models.judge } : {}) }, { concurrency: plan.schedule.concurrency, slots: plan.episodes?.slots, signal: plan.stops?.signal, log: plan.log });
  const stops = new RunStops(plan.stops?.signal, [models.model, models.judge], () => dispatcher.fatal, plan.folder.dir);
  const attempts = new Attempts(journal, models.usage, {
    onEpisode: (row) => emit('onEpisode', row),
    // Its row holds the method's calls of the first attempt; this retrieval's repeat them.
    onTakenOver: (key) => void calls.take(key.phase, key.epoch, key.taskId),
    journaling: () => !stops.stopping(),
    log: plan.log,
  });
  // run.json is final from here on: workers can open the run while the method prepares.
  dispatcher.runOpened(plan.folder.dir);
  await method.prepare?.([...loaded.train, ...loaded.valid], plan.stops?.signal);

  const episodes = new EpisodeRecords<T>({
    bench,
    method,
    dispatcher,
    attempts,
    calls,
    seed: plan.schedule.seed,
    rewardNoise: plan.method.rewardNoise ?? 0,
    signal: plan.stops?.signal,
    aborted: () => stops.aborted(),
    now: plan.now ?? Date.now,
  });
  const indexed = (tasks: T[]): IndexedTask<T>[] => tasks.map((task, index) => ({ task, index }));
  return {
    methodName: methodModule.name,
    method,
    model: models.model,
    ledger: models.ledger,
    info,
    evaluator,
    train: indexed(loaded.train),
    valid: indexed(loaded.valid),
    matrix,
    attempts,
    episodes,
    dispatcher,
    calls,
    stops,
    doneEpoch,
    validatedBeforeTraining: ckpt?.validatedBeforeTraining ?? false,
  };
}

/** The agent's (and judge's) model, metered into the run's ledger, their usage also counted per attempt. */
function openModels<T extends TaskBase>(plan: RunPlan<T>, loaded: LoadedTasks<T>): Models {
  const ledger = plan.models.ledger ?? new UsageLedger();
  const usage = new AttemptUsage(ledger);
  const player = plan.benchmark.simPlayer([...loaded.train, ...loaded.valid]);
  const health = (): EndpointHealth => new EndpointHealth(plan.stops?.afterFailures ?? 0);
  const model = new MeteredChatModel(usage.tap(plan.models.agent(player)), ledger, plan.log, health());
  const judge = plan.models.judge ? new MeteredChatModel(usage.tap(plan.models.judge(player)), ledger, plan.log, health()) : undefined;
  return { ledger, usage, model, judge };
}

/** The memory method, restored from the checkpoint on resume; `model` records its calls for the transcripts. */
async function createMethod<T extends TaskBase>(module: MethodModule, plan: RunPlan<T>, model: ChatModel, ckpt: Restored): Promise<MethodInstance> {
  const m = plan.method;
  return module.create({
    benchmark: plan.benchmark.name,
    settings: m.settings,
    params: m.memoryParams,
    buildStrategy: m.buildStrategy,
    model,
    embedder: plan.models.embedder,
    ...(m.promptDir ? { promptDir: m.promptDir } : {}),
    fidelity: m.fidelity ?? REFERENCE_FIDELITY,
    log: plan.log,
    ...(ckpt ? { restored: ckpt.memory } : {}),
  });
}

interface FolderFacts<T extends TaskBase> {
  loaded: LoadedTasks<T>;
  methodName: string;
  model: MeteredChatModel;
  ckpt: Restored;
  /** The rows a resume keeps, checked against run.json (and how they were rebuilt, if they were). */
  kept: ReturnType<RunFolder['keptRows']>;
}

interface OpenFolder {
  info: RunInfo;
  evaluator: EvaluatorFacts;
  matrix: OutcomeMatrix;
  journal: Journal;
}

/** The run folder created (a new run) or reopened (a resume), the reporters told, the journal open. */
async function openFolder<T extends TaskBase>(folder: RunFolder, plan: RunPlan<T>, emit: Emit, f: FolderFacts<T>): Promise<OpenFolder> {
  const { benchmark: bench, log } = plan;
  const now = plan.now ?? Date.now;
  const evaluator = await bench.describeEvaluator();
  const resuming = plan.folder.resume && folder.hasManifest();
  const trainTaskIds = f.loaded.train.map((t) => t.id);
  const validTaskIds = f.loaded.valid.map((t) => t.id);
  const blocked = blockedTasksNotice(evaluator, plan.validation.run ? [...trainTaskIds, ...validTaskIds] : trainTaskIds);
  if (!resuming) {
    // Only now, with tasks loaded, does the run folder come to exist: a bad start leaves nothing behind.
    const { seed, epochs, batchSize, concurrency } = plan.schedule;
    const { loaded } = f;
    folder.create({
      ...plan.folder.manifest,
      ...profileWithBlocked(plan.folder.manifest, blocked),
      benchmark: bench.name,
      env: bench.envLabel,
      method: f.methodName,
      model: f.model.label,
      simulated: f.model.simulated,
      embedder: plan.models.embedder.label,
      seed,
      epochs,
      batchSize,
      concurrency,
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
    runDir: plan.folder.dir,
    benchmark: bench.name,
    tagFamily: plan.outputs?.tagFamily ?? bench.name,
    ...(bench.validSetLabel ? { validSetLabel: bench.validSetLabel } : {}),
    trainTaskIds,
    validTaskIds,
  };
  const doneEpoch = f.ckpt?.epochCompleted ?? 0;
  const keptUpToEpoch = f.ckpt ? doneEpoch : -1;
  // The outcome matrix so far: the kept rows, then each committed batch (metrics and retries read it).
  const { kept } = f;
  const matrix = new OutcomeMatrix(kept.rows, { train: trainTaskIds, valid: validTaskIds });
  const notices = [...(f.ckpt?.recovered ? [f.ckpt.recovered] : []), ...(kept.rebuilt ? [kept.rebuilt] : []), ...(blocked ? [blocked] : [])];
  emit('onRunStart', { info, resuming, keptUpToEpoch, kept: matrix.rows, notices });
  if (f.ckpt?.recovered) log.warn({ event: 'checkpoint_recovered', detail: f.ckpt.recovered }, 'damaged checkpoint');
  if (kept.rebuilt) log.warn({ event: 'rows_rebuilt', detail: kept.rebuilt }, 'outcome rows rebuilt');
  // Entries of checkpointed epochs are stale (a kill between checkpoint and journal reset).
  const journal = new Journal(folder.path(JOURNAL_FILE), (e) => plan.folder.resume && (!f.ckpt || e.epoch > doneEpoch));
  if (resuming) folder.noteResume(new Date(now()).toISOString(), doneEpoch, journal.size);
  log.info({ event: 'run_start', runDir: plan.folder.dir, resumeFrom: doneEpoch, journaled: journal.size, train: f.loaded.train.length, valid: f.loaded.valid.length }, 'run start');
  return { info, evaluator, matrix, journal };
}

function builtinMethod(name: string): MethodModule {
  const m = BUILTIN_METHODS.find((x) => x.name === name);
  if (!m) throw new UserError(`unknown method \`${name}\`; built-in: ${BUILTIN_METHODS.map((x) => x.name).join(', ')}`, 'unknown_method');
  return m;
}
