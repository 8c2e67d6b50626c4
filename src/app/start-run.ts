/**
 * `startRun(options, io)`: a run composed from the registries, the way `memrl run
 * <benchmark>` does it and any program can. It resolves the config (defaults <
 * benchmark defaults < YAML < flags), picks the run folder (new, or the one resumed),
 * builds the models, embedder, benchmark, memory method and reporters, and hands them
 * to the runner. The handle it returns can stop the run (Ctrl-C does) and tells how it
 * ended; the caller decides what to print and which exit code that is.
 */
import { loadPack, type PackInfo } from './prompts/pack.js';
import { packNamespace } from '../util/template.js';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync, statSync } from 'node:fs';
import pino from 'pino';
import type { FlagValues } from '../config/flags.js';
import type { Env } from '../config/interpolate.js';
import { redactConfig, withoutUnusedEndpoints } from '../config/redact.js';
import { sectionOf } from '../config/schema.js';
import type { ResolvedConfig } from '../config/types.js';
import type { BenchmarkModule } from '../core/benchmark.js';
import type { MethodModule } from '../core/method.js';
import type { ReporterMap } from '../core/reporter.js';
import { spendFile, type RunComposition, type RunJson } from '../core/run-files/index.js';
import { asWorkOfRun } from '../env/container/labels.js';
import { budgetStopLine, SpendMeter, unpricedForBudget, type BudgetHit } from '../llm/budget.js';
import { closeCacheLayers, runCacheLayers } from '../llm/cache.js';
import { UsageLedger } from '../llm/ledger.js';
import { loadPriceTable, pricesForRun } from '../llm/prices.js';
import { fileReporters, ProgressReporter } from '../runner/reporters/index.js';
import { RunFolder } from '../runner/run-folder.js';
import { runBenchmark, type RunResult } from '../runner/run.js';
import { MemrlError, UserError } from '../util/errors.js';
import { ContractViolation, observePlugin } from './plugin-guard/index.js';
import type { Slots } from '../util/slots.js';
import type { EpisodeDispatcher, EpisodeResult } from '../runner/remote-episodes.js';
import type { RateGateFactory } from '../llm/rate-gate.js';
import type { SimPlayer } from '../llm/sim/model.js';
import { gitCommit, memrlVersion } from '../util/version.js';
import { loadConfig } from './config.js';
import { ConsoleReporter } from './console-reporter.js';
import { FallbackLines } from './fallback-lines.js';
import { RUN_LOG_FILE, RunLog } from './run-log.js';
import { recordObserved } from './observed.js';
import { resumedConfig } from './resume.js';
import { findBenchmark, findMethod, type Registry } from './registry.js';
import { checkEndpoints, checkWritableFolder } from './preflight.js';
import { checkProfileModels } from './profile-check.js';
import { datasetOf, datasetsOf, pullMissing, recordingData } from './run-data.js';
import { cachedChatModel, modelLabelOf, runEmbedder } from './run-models.js';

export interface RunOptions {
  benchmark: string;
  /** Flag values as `memrl run <benchmark>` parses them (camelCase names; unset = absent). */
  flags: FlagValues;
  registry: Registry;
  env?: Env;
  cwd?: string;
  /** The command line, recorded in run.json. */
  command?: readonly string[];
  /** Replace or add reporters (e.g. drop the console in a test). */
  reporters?: (defaults: ReporterMap) => ReporterMap;
  /** Episode slots shared with other runs in this process (a sweep's one budget). */
  episodeSlots?: Slots;
  /** Where endpoint rate limits are kept (default: this process; `--queue`: Redis, shared with the workers). */
  rateGates?: RateGateFactory;
  /** A budget shared with other runs (a sweep's --budget-usd): what they spent counts against this run's limit; `meter` hands over this run's. */
  sharedBudget?: { othersUsd(): number; meter(meter: SpendMeter): void };
  /** Play the episodes elsewhere (`--queue`): opened once the run folder is known, closed when the run ends. */
  episodeQueue?: (run: { runDir: string; benchmark: string; config: ResolvedConfig['config'] }) => Promise<EpisodeDispatcher>;
}

export interface RunIo {
  /** Terminal lines (banner, notes, epoch lines, budget stops). */
  err(text: string): void;
  /** A terminal that can show a progress bar. */
  tty: boolean;
}

export interface RunEnd {
  result: RunResult | null;
  /** The budget limit that stopped the run, if one did (the run is resumable). */
  budget: BudgetHit | null;
  /** Why a budget stop cut a step the runner could not interrupt cleanly. */
  budgetCut?: string;
}

export interface RunHandle {
  readonly benchmark: string;
  readonly runDir: string;
  readonly config: ResolvedConfig;
  /** Stop after the running episodes; finished ones are kept and --resume continues. */
  stop(): void;
  readonly done: Promise<RunEnd>;
}

/** Slug for folder names: model names carry slashes and colons. */
function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60);
}

/**
 * A new run's folder name: start time, method, model, seed, and four random hex digits.
 * The suffix keeps names apart when runs start in the same second with the same method,
 * model and seed (a sweep's cells differing in another key, runs in a shell loop): the
 * name is also the run's container label (memrl cleanup --run) and its log file's name,
 * which must not reach another run. A name already in the output folder is not reused.
 */
function newRunDir(cfg: ResolvedConfig, benchName: string, modelLabel: string): string {
  const t = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  for (;;) {
    const dir = join(cfg.run.outputDir, benchName, `${t}-${cfg.method}-${slug(modelLabel)}-s${cfg.run.seed}-${randomBytes(2).toString('hex')}`);
    if (!existsSync(dir)) return dir;
  }
}

export async function startRun(options: RunOptions, io: RunIo): Promise<RunHandle> {
  const cwd = options.cwd ?? process.cwd();
  const bench: BenchmarkModule = findBenchmark(options.registry, options.benchmark);
  const configFile = typeof options.flags.config === 'string' ? options.flags.config : undefined;
  const configOpts = { registry: options.registry, refuseEmpty: true, ...(options.env ? { env: options.env } : {}), cwd };
  let given = loadConfig(configFile, options.flags, bench.name, configOpts);
  // --pull: the benchmark's missing files first; the config then resolves against them.
  const dataset = datasetOf(bench);
  if (dataset && given.config.memrl.data.auto_pull && (await pullMissing(dataset, io))) given = loadConfig(configFile, options.flags, bench.name, configOpts);
  // A resumed run is the recorded run again: its settings come from its run.json.
  const cfg = given.run.resume
    ? resumedConfig({ registry: options.registry, benchmark: bench.name, flags: options.flags, given, dir: given.run.resume, cwd, ...(options.env ? { env: options.env } : {}) })
    : given;
  const method: MethodModule = findMethod(options.registry, cfg.method);
  const modelLabel = modelLabelOf(cfg.llm);
  const runDir = cfg.run.resume ?? newRunDir(cfg, bench.name, modelLabel);
  // A prompt pack is checked before anything runs; a resumed run must see the same templates.
  const pack = cfg.run.prompts ? loadPack(cfg.run.prompts, options.registry) : null;
  if (cfg.run.resume && new RunFolder(runDir).hasManifest()) checkSamePrompts(new RunFolder(runDir).readManifest(), pack, runDir);

  // Every run records its replies in <runDir>/responses.jsonl; --replay reads another run's recording, offline.
  const replayArg = typeof options.flags.replay === 'string' ? options.flags.replay : undefined;
  const replayFrom = replayArg ? resolve(cwd, replayArg) : null;
  if (replayFrom) {
    const recorded = new RunFolder(replayFrom);
    if (!recorded.hasManifest()) throw new UserError(`--replay ${replayArg}: no run.json there; point --replay at a run folder under results/${bench.name}/`, 'not_a_run_folder');
    checkSameExperiment(recorded.readManifest(), bench.name, cfg, modelLabel, replayFrom, '--replay');
  }
  // Where this run will write must be writable: checked before anything is written.
  checkWritableFolder(runDir, cfg.run.resume ? '--resume' : 'the results folder (--output-dir)');
  if (cfg.run.logDir) checkWritableFolder(cfg.run.logDir, '--log-dir');
  if (cfg.run.cacheDir) checkWritableFolder(cfg.run.cacheDir, '--cache');
  const cacheLayers = runCacheLayers({ runDir, sharedDir: cfg.run.cacheDir, replayFrom });
  // A live run checks that its endpoints answer before anything is written (a replay calls none).
  if (!cacheLayers.offline) {
    await checkEndpoints([
      ...(cfg.llm.provider === 'openai' ? [{ key: 'llm.base_url', url: cfg.llm.baseUrl }] : []),
      ...(cfg.judge?.provider === 'openai' ? [{ key: 'the judge base_url', url: cfg.judge.baseUrl }] : []),
      ...(cfg.embedding.provider === 'openai' ? [{ key: 'embedding.base_url', url: cfg.embedding.baseUrl }] : []),
    ]);
    // A profile says which of its models the endpoints do not serve (run.json and the banner).
    await checkProfileModels(cfg);
  }

  // Budget: spend so far comes back from <runDir>/spend.json; reaching a limit stops the run like Ctrl-C.
  const prices = pricesForRun(loadPriceTable(cfg.run.pricesFile), {
    agent: { provider: cfg.llm.provider, model: cfg.llm.model },
    ...(cfg.judge ? { judge: { provider: cfg.judge.provider, model: cfg.judge.model } } : {}),
    embedding: { provider: cfg.embedding.provider, model: cfg.embedding.model },
  });
  const limits = { usd: cfg.run.budgetUsd, tokens: cfg.run.budgetTokens };
  const unpriced = unpricedForBudget(limits, prices);
  if (unpriced.length) throw new UserError(`--budget-usd cannot be enforced: ${unpriced.join('; ')}`, 'budget_unpriced');
  const abort = new AbortController();
  const ended: RunEnd = { result: null, budget: null };
  const meter = new SpendMeter(
    spendFile(runDir),
    prices,
    limits,
    (hit) => {
      ended.budget = hit;
      io.err(`\n${budgetStopLine(hit, bench.name, runDir)}\n`);
      abort.abort();
    },
    options.sharedBudget ? () => options.sharedBudget!.othersUsd() : undefined,
  );
  options.sharedBudget?.meter(meter);

  const handle = (done: Promise<RunEnd>): RunHandle => ({ benchmark: bench.name, runDir, config: cfg, stop: () => abort.abort(), done });
  const spentAlready = meter.reached();
  if (spentAlready) {
    io.err(`${budgetStopLine(spentAlready, bench.name, runDir)}\n`);
    return handle(Promise.resolve({ result: null, budget: spentAlready }));
  }

  const runName = runDir.split('/').at(-1) ?? 'run';
  const fallbacks = new FallbackLines();
  const runLog = new RunLog(cfg.run.logDir, `${bench.name}-${runName}.jsonl`, (line) => fallbacks.see(line));
  const log = pino({ level: cfg.run.logLevel, base: { run: runName } }, runLog);
  const logFile = runLog.path ?? join(runDir, RUN_LOG_FILE);

  // Containers started for this run carry its id (memrl cleanup --run <id>).
  const created = await asWorkOfRun(runName, () => bench.create(cfg.bench, cfg));
  // A plug-in that breaks its contract inside an episode stops the run (exit 2), not just the episode.
  let violated: MemrlError | undefined;
  observePlugin(created, {
    log,
    violation: (err) => {
      violated ??= err;
      abort.abort();
    },
    ...(options.flags.verbose === true ? { crashed: (err: unknown, where: string) => io.err(`plug-in ${where} threw: ${err instanceof Error ? err.stack : String(err)}\n`) } : {}),
  });
  // Its load() records which release each data file is, and a resume refuses other data.
  const dataLines: string[] = [];
  const resumed = cfg.run.resume && new RunFolder(runDir).hasManifest() ? new RunFolder(runDir).readManifest() : null;
  const benchmark = recordingData(created, {
    specs: datasetsOf(options.registry),
    ...(resumed ? { resume: { dir: runDir, sources: resumed.dataset.sources } } : {}),
    onDescribed: (lines) => dataLines.push(...lines),
  });
  const ledger = new UsageLedger({ prices, meter });
  const embedder = runEmbedder(cfg.embedding, cacheLayers, ledger);

  const queued = options.episodeQueue ? await options.episodeQueue({ runDir, benchmark: bench.name, config: cfg.config }) : undefined;
  // A plug-in's faults in an episode a worker played: its crashes' stacks in this run's log, a violation stops the run as here.
  const pluginFaultsOnWorker = (res: EpisodeResult): void => {
    for (const c of res.crashes ?? []) {
      log.error({ event: 'plugin_crashed', plugin: options.registry.origins.get(bench.name), where: c.where, stack: c.stack, worker: res.worker }, 'plug-in threw');
      if (options.flags.verbose === true) io.err(`plug-in ${c.where} threw on ${res.worker}: ${c.stack}\n`);
    }
    if (res.violation && !violated) {
      // The worker names the module by the absolute path it loaded; here it is named as given.
      const origin = options.registry.origins.get(bench.name);
      violated = new ContractViolation(origin ? res.violation.replace(`plugin ${resolve(cwd, origin)}: `, `plugin ${origin}: `) : res.violation);
      abort.abort();
    }
  };
  // Replies a worker got live go into this run's own recording, as if this process had made the calls.
  const episodes: EpisodeDispatcher | undefined = queued && {
    label: queued.label,
    play: async (req, signal) => {
      const res = await queued.play(req, signal);
      for (const e of res.replies) cacheLayers.record[0]?.put(e);
      pluginFaultsOnWorker(res);
      return res;
    },
    runOpened: (dir) => queued.runOpened?.(dir),
    close: () => queued.close(),
  };

  const defaults: ReporterMap = fileReporters(runDir);
  defaults.set('log', runLog);
  defaults.set('progress', new ProgressReporter(io.tty));
  defaults.set(
    'console',
    new ConsoleReporter((t) => io.err(t), {
      benchmark: bench.name,
      method: cfg.method,
      model: modelLabel,
      simulated: cfg.llm.provider === 'sim',
      embedder: embedder.label,
      epochs: cfg.run.epochs,
      runDir,
      logFile,
      notes: queued ? [...cfg.notes, `episodes are played by workers on ${queued.label}; memory and results stay here`] : cfg.notes,
      data: dataLines,
      validation: cfg.run.runValidation,
      fallbacks,
    }),
  );
  const reporters = options.reporters ? options.reporters(defaults) : defaults;
  // Whether an episode began: a new run that fails before (a failing embeddings endpoint while the method prepares) keeps no folder.
  let episodesBegan = false;
  reporters.set('start-watch', { onPhaseStart: () => void (episodesBegan = true) });

  // Facts for run.json beside what the runner records; redacted whole: the command line
  // (--base-url http://user:pass@…, --queue redis://:pass@…) as well as the config.
  const runManifest = (): RunComposition =>
    redactConfig({
    memrlVersion: memrlVersion(),
    gitCommit: gitCommit(),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    command: ['memrl', ...(options.command ?? [])],
    // Relative paths in the config are relative to it (a resume from elsewhere resolves them here).
    cwd,
    plugins: [...new Set([...options.registry.origins.values()].map((p) => resolve(cwd, p)))],
    configSource: cfg.source,
    methodReason: cfg.methodReason,
    config: redactConfig(withoutUnusedEndpoints(cfg.config)),
    memoryParams: cfg.memory,
    buildStrategy: cfg.buildStrategy,
    [bench.name]: bench.manifest ? bench.manifest(cfg.bench) : redactConfig(cfg.bench),
    fidelity: { profile: cfg.fidelity.profile, switches: cfg.fidelity.settings },
    // The run profile and what of it this run could not match (the runner adds blocked tasks).
    ...(cfg.profile ? { profile: { name: cfg.profile.name, unmatched: [...cfg.profile.unmatched] } } : {}),
    prompts: pack ?? { name: 'memrl', hash: null, source: "memrl's own templates", overrides: [] },
    benchmarkName: bench.displayName,
    methodName: method.displayName,
    logFile,
    cache: { recording: 'responses.jsonl', shared: cfg.run.cacheDir, replayOf: replayFrom },
    });

  // A hung endpoint is said on the console after the first timed-out attempt, not after all of them.
  const notice = (line: string): void => io.err(io.tty ? `\n${line}` : line);
  const run = async (): Promise<RunEnd> => {
    try {
      ended.result = await runBenchmark({
        benchmark,
        method: {
          module: method,
          settings: sectionOf(cfg.config, method.name),
          memoryParams: cfg.memory,
          buildStrategy: cfg.buildStrategy,
          ...(cfg.run.prompts ? { promptDir: packNamespace(cfg.run.prompts, 'memory') } : {}),
          fidelity: cfg.fidelity,
          rewardNoise: cfg.run.rewardNoise,
        },
        schedule: { epochs: cfg.run.epochs, batchSize: cfg.run.batchSize, concurrency: cfg.run.concurrency, seed: cfg.run.seed },
        validation: { run: cfg.run.runValidation, beforeTraining: cfg.run.valBeforeTrain, interval: cfg.run.validInterval },
        models: {
          agent: (player) => cachedChatModel(cfg.llm, bench.name, player, cacheLayers, options.rateGates, notice),
          ...(cfg.judge ? { judge: (player: SimPlayer) => cachedChatModel(cfg.judge!, bench.name, player, cacheLayers, options.rateGates, notice) } : {}),
          embedder,
          ledger,
        },
        folder: { dir: runDir, resume: cfg.run.resume !== null, manifest: runManifest() },
        stops: { signal: abort.signal, maxErrorRate: cfg.run.maxErrorRate, afterFailures: cfg.llm.stopAfterFailures },
        episodes: { ...(options.episodeSlots ? { slots: options.episodeSlots } : {}), ...(episodes ? { dispatcher: episodes } : {}) },
        outputs: { reporters, ...(bench.tagFamily ? { tagFamily: bench.tagFamily } : {}) },
        log,
      });
      recordObserved(runDir, ledger.snapshot());
      if (violated) throw violated;
      return ended;
    } catch (err) {
      if (violated) throw violated;
      // A budget stop that cut a step the runner cannot interrupt cleanly (e.g. the start-up embeddings): still resumable.
      if (!ended.budget) {
        if (!cfg.run.resume && !episodesBegan) discardUnstartedRun(runDir);
        throw err;
      }
      return { ...ended, budgetCut: err instanceof Error ? err.message : String(err) };
    } finally {
      meter.flush();
      await episodes?.close();
      closeCacheLayers(cacheLayers);
      await benchmark.close?.();
    }
  };
  return handle(asWorkOfRun(runName, run));
}

/** The templates a run was started with, by hash: editing a pack between attempts would mix two prompts in one run. */
function checkSamePrompts(manifest: RunJson, pack: PackInfo | null, dir: string): void {
  const recorded = manifest.prompts;
  if (recorded === undefined) return; // a run from before prompt packs (or not started by memrl run): memrl's own templates
  const was = recorded.hash ?? null;
  const now = pack?.hash ?? null;
  if (was !== now) {
    throw new UserError(
      `--resume ${dir}: the prompt pack ${pack ? `${pack.dir} ` : ''}is not the one the run started with (${recorded.name ?? 'memrl'}, ${was ? `sha256 ${was.slice(0, 12)}` : "memrl's own"}); restore its templates, or start a new run`,
      'resume_mismatch',
    );
  }
}

/** A resumed (or replayed) run must be the same experiment: refuse silently mixing settings. */
function checkSameExperiment(manifest: RunJson, name: string, cfg: ResolvedConfig, model: string, dir: string, flag = '--resume'): void {
  const want: Pick<RunJson, 'benchmark' | 'method' | 'model' | 'seed'> = { benchmark: name, method: cfg.method, model, seed: cfg.run.seed };
  for (const k of ['benchmark', 'method', 'model', 'seed'] as const) {
    if (manifest[k] !== want[k]) {
      throw new UserError(`${flag} ${dir}: the run used ${k}=${String(manifest[k])} but this command gives ${String(want[k])}; repeat the original command with ${flag}`, 'resume_mismatch');
    }
  }
}

/**
 * A new run that failed before its first episode (its method could not prepare: an
 * embeddings endpoint answering 500) holds nothing worth resuming: no rows, no paid
 * reply. Its folder would look like a run (run.json, a log) that `memrl table` and
 * `memrl view` list, so it goes; the error line names the cause and the URL.
 */
function discardUnstartedRun(runDir: string): void {
  const folder = new RunFolder(runDir);
  if (!folder.hasManifest()) return;
  const holds = (name: string): boolean => existsSync(folder.path(name)) && statSync(folder.path(name)).size > 0;
  if (holds('responses.jsonl') || holds('outcomes.jsonl') || holds('journal.jsonl') || existsSync(folder.path('checkpoint.json'))) return;
  rmSync(runDir, { recursive: true, force: true });
}
