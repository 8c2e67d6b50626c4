/**
 * `startRun(options, io)`: a run composed from the registries, the way `memrl run
 * <benchmark>` does it and any program can. It resolves the config (defaults <
 * benchmark defaults < YAML < flags), picks the run folder (new, or the one resumed),
 * builds the models, embedder, benchmark, memory method and reporters, and hands them
 * to the runner. The handle it returns can stop the run (Ctrl-C does) and tells how it
 * ended; the caller decides what to print and which exit code that is.
 *
 * Its steps live in start-run/: resolve-run (config, folder, pack, resume and replay
 * checks), preflight-run (writable folders, endpoints), run-spend (prices, meter,
 * budget stop), plugin-faults, worker-episodes (--queue), run-reporters and
 * run-composition (run.json's facts).
 */
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { sectionOf } from '../config/schema.js';
import type { Benchmark } from '../core/benchmark.js';
import type { ReporterMap } from '../core/reporter.js';
import { asWorkOfRun } from '../env/container/labels.js';
import { budgetStopLine, type SpendMeter } from '../llm/budget.js';
import { closeCacheLayers, type CacheLayers } from '../llm/cache.js';
import type { RolePrices } from '../llm/cost.js';
import { UsageLedger } from '../llm/ledger.js';
import type { SimPlayer } from '../llm/sim/model.js';
import type { EpisodeDispatcher } from '../runner/remote-episodes.js';
import { RunFolder } from '../runner/run-folder.js';
import type { RunPlan } from '../runner/run-plan.js';
import { runBenchmark } from '../runner/run.js';
import { packNamespace } from '../util/template.js';
import { FallbackLines } from './fallback-lines.js';
import { recordObserved } from './observed.js';
import { datasetsOf, recordingData } from './run-data.js';
import { RUN_LOG_FILE, RunLog } from './run-log.js';
import { cachedChatModel, runEmbedder } from './run-models.js';
import { PluginFaults } from './start-run/plugin-faults.js';
import { preflightRun } from './start-run/preflight-run.js';
import { resolveRun } from './start-run/resolve-run.js';
import { runComposition } from './start-run/run-composition.js';
import { runReporters } from './start-run/run-reporters.js';
import { openSpend } from './start-run/run-spend.js';
import type { ResolvedRun, RunEnd, RunHandle, RunIo, RunOptions } from './start-run/types.js';
import { workerEpisodes } from './start-run/worker-episodes.js';

export type { RunEnd, RunHandle, RunIo, RunOptions } from './start-run/types.js';

export async function startRun(options: RunOptions, io: RunIo): Promise<RunHandle> {
  const run = await resolveRun(options, io);
  // Where this run will write must be writable, and its endpoints answer: checked before anything is written.
  const cacheLayers = await preflightRun(run);
  const abort = new AbortController();
  const ended: RunEnd = { result: null, budget: null };
  const spend = openSpend(run, io, options.sharedBudget, (hit) => {
    ended.budget = hit;
    abort.abort();
  });
  const handle = (done: Promise<RunEnd>): RunHandle => ({ benchmark: run.bench.name, runDir: run.runDir, config: run.cfg, stop: () => abort.abort(), done });
  const spentAlready = spend.meter.reached();
  if (spentAlready) {
    io.err(`${budgetStopLine(spentAlready, run.bench.name, run.runDir)}\n`);
    return handle(Promise.resolve({ result: null, budget: spentAlready }));
  }
  const built = await buildRun(run, options, io, { cacheLayers, abort, ...spend });
  return handle(asWorkOfRun(run.runName, () => playRun(run, built, ended)));
}

/** What buildRun makes for the runner, and what the run's end must close or check. */
interface BuiltRun {
  plan: RunPlan;
  benchmark: Benchmark;
  ledger: UsageLedger;
  meter: SpendMeter;
  cacheLayers: CacheLayers;
  faults: PluginFaults;
  episodes: EpisodeDispatcher | undefined;
  episodesBegan: () => boolean;
}

/** The log, the benchmark (watched for plug-in faults, recording its data), the models, the dispatcher, the reporters: the runner's plan. */
async function buildRun(run: ResolvedRun, options: RunOptions, io: RunIo, made: { cacheLayers: CacheLayers; abort: AbortController; prices: RolePrices; meter: SpendMeter }): Promise<BuiltRun> {
  const { bench, cfg, method, runDir, runName } = run;
  const { cacheLayers, abort, prices, meter } = made;
  const fallbacks = new FallbackLines();
  const runLog = new RunLog(cfg.run.logDir, `${bench.name}-${runName}.jsonl`, (line) => fallbacks.see(line));
  const log = pino({ level: cfg.run.logLevel, base: { run: runName } }, runLog);
  const logFile = runLog.path ?? join(runDir, RUN_LOG_FILE);

  // Containers started for this run carry its id (memrl cleanup --run <id>).
  const created = await asWorkOfRun(runName, () => bench.create(cfg.bench, cfg));
  const faults = new PluginFaults({ log, origin: options.registry.origins.get(bench.name), cwd: run.cwd, verbose: options.flags.verbose === true, err: (t) => io.err(t), stop: () => abort.abort() });
  faults.observe(created);
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
  const episodes = queued && workerEpisodes(queued, cacheLayers, faults);
  const { reporters, episodesBegan } = runReporters(run, io, { runLog, logFile, embedderLabel: embedder.label, queueLabel: queued?.label, dataLines, fallbacks }, options.reporters);

  // A hung endpoint is said on the console after the first timed-out attempt, not after all of them.
  const notice = (line: string): void => io.err(io.tty ? `\n${line}` : line);
  const chat = (llm: ResolvedRun['cfg']['llm']) => (player: SimPlayer) => cachedChatModel(llm, bench.name, player, cacheLayers, options.rateGates, notice);
  const plan: RunPlan = {
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
    models: { agent: chat(cfg.llm), ...(cfg.judge ? { judge: chat(cfg.judge) } : {}), embedder, ledger },
    folder: { dir: runDir, resume: cfg.run.resume !== null, manifest: runComposition(run, options, logFile) },
    stops: { signal: abort.signal, maxErrorRate: cfg.run.maxErrorRate, afterFailures: cfg.llm.stopAfterFailures },
    episodes: { ...(options.episodeSlots ? { slots: options.episodeSlots } : {}), ...(episodes ? { dispatcher: episodes } : {}) },
    outputs: { reporters, ...(bench.tagFamily ? { tagFamily: bench.tagFamily } : {}) },
    log,
  };
  return { plan, benchmark, ledger, meter, cacheLayers, faults, episodes, episodesBegan };
}

/** The run itself; whatever ends it, the spend is saved and everything opened is closed. */
async function playRun(run: ResolvedRun, built: BuiltRun, ended: RunEnd): Promise<RunEnd> {
  const { faults } = built;
  try {
    ended.result = await runBenchmark(built.plan);
    recordObserved(run.runDir, built.ledger.snapshot());
    if (faults.violated) throw faults.violated;
    return ended;
  } catch (err) {
    if (faults.violated) throw faults.violated;
    // A budget stop that cut a step the runner cannot interrupt cleanly (e.g. the start-up embeddings): still resumable.
    if (!ended.budget) {
      if (!run.cfg.run.resume && !built.episodesBegan()) discardUnstartedRun(run.runDir);
      throw err;
    }
    return { ...ended, budgetCut: err instanceof Error ? err.message : String(err) };
  } finally {
    built.meter.flush();
    await built.episodes?.close();
    closeCacheLayers(built.cacheLayers);
    await built.benchmark.close?.();
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
