/**
 * What a worker does with an episode request: it opens the run the request names the way
 * `--resume` would (settings from the run's run.json, secrets from this machine's
 * environment), builds the benchmark and its models once per run, and plays episodes
 * through the same function the run's own process uses. It never writes into the run
 * folder: the run's process stays its only writer, and gets back the outcome, the
 * usage to count and the replies to record.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { statSync } from 'node:fs';
import { basename, join } from 'node:path';
import pino, { type Logger } from 'pino';
import type { Benchmark, LoadedTasks, TaskBase } from '../core/benchmark.js';
import type { RunJson } from '../core/run-files/index.js';
import { CACHE_FILE, CachedChatModel, OfflineChatModel, ResponseStore, runCacheFile, type CacheEntry, type CacheLayers } from '../llm/cache.js';
import { UsageLedger } from '../llm/ledger.js';
import { MeteredChatModel } from '../llm/metered.js';
import { EndpointHealth } from '../llm/endpoint-health.js';
import type { ChatModel } from '../llm/types.js';
import type { LlmSettings } from '../config/types.js';
import type { RateGateFactory } from '../llm/rate-gate.js';
import { playEpisode } from '../runner/episode.js';
import type { EpisodeRequest, EpisodeResult, MeteredCall } from '../runner/remote-episodes.js';
import { RunFolder } from '../runner/run-folder.js';
import { asWorkOfRun } from '../env/container/labels.js';
import { UserError } from '../util/errors.js';
import { loadConfig } from './config.js';
import { observePlugin } from './plugin-guard/index.js';
import { withRecordedPlugins } from './plugins.js';
import { findBenchmark, type Registry } from './registry.js';
import { resumedConfig } from './resume.js';
import { chatCacheIdentity, liveChatModel, modelLabelOf } from './run-models.js';

export interface EpisodeHost {
  /** run.json's modification time when opened: a resumed run (which rewrites it) is opened again. */
  readonly openedAt: number | null;
  play(req: EpisodeRequest): Promise<EpisodeResult>;
  close(): Promise<void>;
}

export interface HostOptions {
  registry: Registry;
  /** How results name this worker. */
  worker: string;
  /** Where endpoint rate limits are kept (a worker: Redis, shared with the run and the other workers). */
  rateGates?: RateGateFactory;
  log?: Logger;
}

/** When run.json was last written; null when it is gone (opening the run then says why). */
export function runManifestTime(runDir: string): number | null {
  try {
    return statSync(join(runDir, 'run.json')).mtimeMs;
  } catch {
    return null;
  }
}

export async function openEpisodeHost(runDir: string, opts: HostOptions): Promise<EpisodeHost> {
  const folder = new RunFolder(runDir);
  if (!folder.hasManifest()) throw new UserError(`${runDir}: no run.json on ${opts.worker}; workers need the run folder at the same path (a shared filesystem, docs/scale.md)`, 'not_a_run_folder');
  const openedAt = runManifestTime(runDir);
  const manifest = folder.readManifest();
  const cwd = manifest.cwd ?? process.cwd();
  // The run's plug-ins (run.json records their paths), unless this worker loaded them already.
  const registry = await withRecordedPlugins(opts.registry, manifest.plugins ?? [], cwd);
  const bench = findBenchmark(registry, manifest.benchmark);
  const given = loadConfig(undefined, { resume: runDir }, bench.name, { registry, cwd });
  const cfg = resumedConfig({ registry, benchmark: bench.name, flags: { resume: runDir }, given, dir: runDir, cwd });
  const log = opts.log ?? pino({ level: 'warn', base: { worker: opts.worker } }, pino.destination(2));

  // Containers this worker starts for the run carry the run's id, as the coordinator's would.
  const runId = basename(runDir);
  const benchmark: Benchmark<TaskBase> = await asWorkOfRun(runId, () => bench.create(cfg.bench, cfg));
  let loaded: LoadedTasks<TaskBase>;
  try {
    loaded = await benchmark.load();
    sameData(manifest, loaded, runDir, opts.worker);
  } catch (err) {
    await benchmark.close?.();
    throw err;
  }
  const player = benchmark.simPlayer([...loaded.train, ...loaded.valid]);
  // A plug-in's faults, told to the episode they happen in: the run stops on a violation as it would locally.
  const faults = new AsyncLocalStorage<EpisodeFaults>();
  observePlugin(benchmark, {
    log,
    violation: (err) => {
      const f = faults.getStore();
      if (f) f.violation ??= err.message;
    },
    crashed: (err, where) => faults.getStore()?.crashes.push({ where, stack: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
  });

  // Replies the run already has (its recording as of now, the shared --cache, a replayed run's) answer first.
  const own = new ResponseStore(runCacheFile(runDir), { readOnly: true });
  const shared = cfg.run.cacheDir ? new ResponseStore(join(cfg.run.cacheDir, CACHE_FILE), { shared: true }) : undefined;
  const replayOf = manifest.cache?.replayOf ?? null;
  const replayed = replayOf ? new ResponseStore(runCacheFile(replayOf), { readOnly: true }) : undefined;
  const sources = [own, ...(shared ? [shared] : []), ...(replayed ? [replayed] : [])];
  const inner = (llm: LlmSettings): ChatModel => (replayOf ? new OfflineChatModel(modelLabelOf(llm), llm.provider === 'sim') : liveChatModel(llm, bench.name, player, opts.rateGates));
  const agentInner = inner(cfg.llm);
  const judgeInner = cfg.judge ? inner(cfg.judge) : undefined;
  // Over all the run's episodes this worker plays: an endpoint that answered one episode is not a wrong URL in the next.
  const agentHealth = new EndpointHealth(cfg.llm.stopAfterFailures);
  const judgeHealth = cfg.judge ? new EndpointHealth(cfg.judge.stopAfterFailures) : undefined;

  const play = async (req: EpisodeRequest): Promise<EpisodeResult> => {
    const list = req.phase === 'valid' ? loaded.valid : loaded.train;
    const task = list[req.taskIndex];
    if (!task || task.id !== req.taskId) {
      throw new UserError(`${runDir}: ${req.phase} task ${req.taskIndex} is ${task ? task.id : 'missing'} on ${opts.worker} but ${req.taskId} in the run; give the worker the run's data`, 'worker_data_differs');
    }
    const replies: CacheEntry[] = [];
    const layers: CacheLayers = { sources, record: [{ put: (e) => replies.push(e) }, ...(shared ? [shared] : [])], ...(replayOf ? { offline: { from: replayOf } } : {}) };
    const metered: MeteredCall[] = [];
    const ledger = new UsageLedger();
    const wrap = (m: ChatModel, llm: LlmSettings, health: EndpointHealth): MeteredChatModel => new MeteredChatModel(tap(new CachedChatModel(m, chatCacheIdentity(llm), layers), metered), ledger, log, health);
    const model = wrap(agentInner, cfg.llm, agentHealth);
    const judge = judgeInner && cfg.judge && judgeHealth ? wrap(judgeInner, cfg.judge, judgeHealth) : undefined;
    const seen: EpisodeFaults = { crashes: [] };
    const outcome = await faults.run(seen, () => asWorkOfRun(runId, () => playEpisode(benchmark, task, { model, ...(judge ? { judge } : {}) }, { epoch: req.epoch, phase: req.phase, memories: req.memories, log })));
    const fatal = model.fatal ?? judge?.fatal;
    return {
      outcome,
      metered,
      replies,
      worker: opts.worker,
      ...(fatal ? { fatal: fatal.message } : {}),
      ...(seen.violation ? { violation: seen.violation } : {}),
      ...(seen.crashes.length ? { crashes: seen.crashes } : {}),
    };
  };
  return {
    openedAt,
    play,
    close: async () => {
      shared?.close();
      await benchmark.close?.();
    },
  };
}

/** What a plug-in did wrong during one episode. */
interface EpisodeFaults {
  violation?: string;
  crashes: { where: string; stack: string }[];
}

/** Every call's usage, in the order made, for the run's ledger. */
function tap(m: ChatModel, into: MeteredCall[]): ChatModel {
  return {
    label: m.label,
    simulated: m.simulated,
    chat: async (req, signal) => {
      const res = await m.chat(req, signal);
      into.push({ role: req.tags.role, usage: res.usage, ...(res.cached ? { cached: true } : {}), ...(res.model ? { model: res.model } : {}), ...(res.systemFingerprint ? { systemFingerprint: res.systemFingerprint } : {}) });
      return res;
    },
  };
}

/** The worker's task files must be the ones the run read (same sha256), or its episodes would be other episodes. */
function sameData(manifest: RunJson, loaded: LoadedTasks<TaskBase>, runDir: string, worker: string): void {
  const recorded = manifest.dataset.sources.map((s) => s.sha256).sort();
  const here = loaded.sources.map((s) => s.sha256).sort();
  if (recorded.length > 0 && JSON.stringify(recorded) !== JSON.stringify(here)) {
    throw new UserError(`${runDir}: the task files on ${worker} differ from the run's (sha256 in run.json dataset.sources); give the worker the same data`, 'worker_data_differs');
  }
}
