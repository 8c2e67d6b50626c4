/**
 * `memrl run <benchmark>`: the flow shared by every benchmark. A benchmark plugs in
 * with a RunSpec (its flags and how to build it from the resolved config); this file
 * turns flags into a config, a run folder, models, an embedder and a runner plan.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import pino from 'pino';
import type { Benchmark, TaskBase } from '../bench/types.js';
import { loadConfig } from '../config/load.js';
import { redactConfig } from '../config/redact.js';
import type { ResolvedConfig, RunFlags } from '../config/types.js';
import { CachedEmbedder } from '../embed/cached.js';
import { DiskCachedEmbedder } from '../embed/cached-disk.js';
import { createEmbedder, createUncachedEmbedder, type EmbedderConfig } from '../embed/factory.js';
import type { Embedder } from '../embed/types.js';
import { budgetStopLine, SpendMeter, unpricedForBudget, type BudgetHit } from '../llm/budget.js';
import { CachedChatModel, OfflineChatModel, ReplayMissError, runCacheLayers, type ChatCacheIdentity } from '../llm/cache.js';
import { createChatModel } from '../llm/factory.js';
import { UsageLedger } from '../llm/ledger.js';
import { loadPriceTable, pricesForRun } from '../llm/prices.js';
import type { SimPlayer } from '../llm/sim/model.js';
import { ZERO_USAGE, type ChatModel } from '../llm/types.js';
import { runBenchmark, type RunMethod } from '../runner/run.js';
import { RunFiles } from '../runner/run-files.js';
import { setContainerRun } from '../container/labels.js';
import { UserError, errorMessage } from '../util/errors.js';
import { gitCommit, memrlVersion } from '../util/version.js';
import { recordObserved } from './run-observed.js';

/** Exit code of a run stopped by --budget-usd / --budget-tokens (resumable). */
export const BUDGET_EXIT_CODE = 3;

export type BenchmarkName = ResolvedConfig['benchmark'];

export interface RunSpec<T extends TaskBase = TaskBase> {
  name: BenchmarkName;
  description: string;
  /** The benchmark's flags (added to `memrl run <name>`). */
  addOptions(cmd: Command): void;
  flagsFromOptions(opts: Record<string, unknown>): RunFlags;
  create(cfg: ResolvedConfig): Benchmark<T>;
  /** A second model that scores answers (HLE's judge), if the benchmark has one. */
  createJudge?(cfg: ResolvedConfig, simPlayer: SimPlayer): ChatModel;
  /** What keys the judge's cached replies, and its label for an offline replay (required with createJudge). */
  judgeIdentity?(cfg: ResolvedConfig): { label: string; identity: ChatCacheIdentity };
  /** Methods this benchmark supports (default: all). */
  methods?: readonly RunMethod[];
  /** Extra facts for run.json. */
  manifest?(cfg: ResolvedConfig): Record<string, unknown>;
}

export function registerRunSubcommand<T extends TaskBase>(run: Command, spec: RunSpec<T>): void {
  const cmd = run.command(spec.name).description(spec.description);
  spec.addOptions(cmd);
  cmd.action(async (opts: Record<string, unknown>) => {
    await executeRun(spec, spec.flagsFromOptions(opts));
  });
}

/** Slug for folder names: model names carry slashes and colons. */
function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60);
}

function newRunId(cfg: ResolvedConfig, modelLabel: string): string {
  const t = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${t}-${cfg.method}-${slug(modelLabel)}-s${cfg.run.seed}`;
}

function fmt(x: number | null | undefined): string {
  return typeof x === 'number' ? x.toFixed(3) : '-';
}

export function modelLabelOf(cfg: ResolvedConfig): string {
  return cfg.llm.provider === 'sim' ? 'sim' : `openai:${cfg.llm.model}`;
}

/** The cache identity of the agent model (what, besides the request, keys its replies). */
export function chatCacheIdentity(cfg: ResolvedConfig): ChatCacheIdentity {
  return {
    provider: cfg.llm.provider,
    baseUrl: cfg.llm.provider === 'sim' ? '' : cfg.llm.baseUrl,
    apiVersion: cfg.llm.apiVersion ?? undefined,
    model: cfg.llm.provider === 'sim' ? 'sim' : cfg.llm.model,
    defaultTemperature: cfg.llm.temperature,
    defaultMaxTokens: cfg.llm.maxTokens ?? undefined,
    simSeed: cfg.llm.provider === 'sim' ? cfg.llm.simSeed : undefined,
  };
}

export function chatModelFor(cfg: ResolvedConfig, players: Record<string, SimPlayer>): ChatModel {
  return createChatModel({
    provider: cfg.llm.provider,
    model: cfg.llm.model,
    apiKey: cfg.llm.apiKey,
    baseURL: cfg.llm.baseUrl,
    apiVersion: cfg.llm.apiVersion,
    temperature: cfg.llm.temperature,
    maxTokens: cfg.llm.maxTokens ?? undefined,
    timeoutMs: cfg.llm.timeoutMs,
    maxRetries: cfg.llm.maxRetries,
    seed: cfg.llm.simSeed,
    simPlayers: players,
  });
}

export async function executeRun<T extends TaskBase>(spec: RunSpec<T>, flags: RunFlags): Promise<void> {
  const cfg = loadConfig(flags.config, flags, spec.name);
  const method = cfg.method as RunMethod;
  const allowed = spec.methods;
  if (allowed && !allowed.includes(method)) {
    throw new UserError(`--method ${method} is not available for ${spec.name} yet: use one of ${allowed.join(', ')}`);
  }
  const modelLabel = modelLabelOf(cfg);

  let runDir: string;
  if (cfg.run.resume) {
    runDir = cfg.run.resume;
    const files = new RunFiles(runDir, spec.name);
    if (!files.hasManifest()) throw new UserError(`--resume ${runDir}: no run.json there; point --resume at a run folder under results/${spec.name}/`);
    checkResumeMatches(files.readManifest(), spec.name, cfg, method, modelLabel, runDir);
  } else {
    runDir = join(cfg.run.outputDir, spec.name, newRunId(cfg, modelLabel));
  }

  // Every run records its replies in <runDir>/responses.jsonl; --replay reads another run's recording, offline.
  const replayFrom = flags.replay ? resolve(flags.replay) : null;
  if (replayFrom) {
    const recorded = new RunFiles(replayFrom, spec.name);
    if (!recorded.hasManifest()) throw new UserError(`--replay ${flags.replay}: no run.json there; point --replay at a run folder under results/${spec.name}/`);
    checkResumeMatches(recorded.readManifest(), spec.name, cfg, method, modelLabel, replayFrom, '--replay');
  }
  const cacheLayers = runCacheLayers({ runDir, sharedDir: cfg.run.cacheDir, replayFrom });
  const offline = cacheLayers.offline !== undefined;

  // Budget: spend so far comes back from <runDir>/spend.json; reaching a limit takes the Ctrl-C path.
  const prices = pricesForRun(loadPriceTable(cfg.run.pricesFile), {
    agent: { provider: cfg.llm.provider, model: cfg.llm.model },
    ...(spec.judgeIdentity ? { judge: spec.judgeIdentity(cfg).identity } : {}),
    embedding: { provider: cfg.embedding.provider, model: cfg.embedding.model },
  });
  const limits = { usd: cfg.run.budgetUsd, tokens: cfg.run.budgetTokens };
  const unpriced = unpricedForBudget(limits, prices);
  if (unpriced.length) throw new UserError(`--budget-usd cannot be enforced: ${unpriced.join('; ')}`);
  const abort = new AbortController();
  const budget: { hit: BudgetHit | null } = { hit: null };
  const meter = SpendMeter.forRun(runDir, prices, limits, (hit) => {
    budget.hit = hit;
    process.stderr.write(`\n${budgetStopLine(hit, spec.name, runDir)}\n`);
    abort.abort();
  });
  const spentAlready = meter.reached();
  if (spentAlready) {
    process.stderr.write(`${budgetStopLine(spentAlready, spec.name, runDir)}\n`);
    process.exitCode = BUDGET_EXIT_CODE;
    return;
  }

  const logDir = resolve('logs');
  mkdirSync(logDir, { recursive: true });
  const runName = runDir.split('/').at(-1) ?? 'run';
  const logFile = join(logDir, `${spec.name}-${runName}.jsonl`);
  const log = pino({ level: cfg.run.logLevel, base: { run: runName } }, pino.destination({ dest: logFile, sync: true }));

  // Containers started for this run carry its id (memrl cleanup --run <id>).
  setContainerRun(runName);
  const benchmark = spec.create(cfg);
  const ledger = new UsageLedger({ prices, meter });
  const embedderCfg: EmbedderConfig = {
    provider: cfg.embedding.provider,
    model: cfg.embedding.model,
    apiKey: cfg.embedding.apiKey,
    baseURL: cfg.embedding.baseUrl,
    apiVersion: cfg.embedding.apiVersion,
    maxTextLen: cfg.embedding.maxTextLen,
    dim: cfg.embedding.dim ?? undefined,
    dimensions: cfg.embedding.provider === 'openai' ? (cfg.embedding.dim ?? undefined) : undefined,
  };
  // The local embedder is offline and deterministic: only API embeddings go through the disk cache.
  const embedder =
    cfg.embedding.provider === 'openai'
      ? new CachedEmbedder(
          new DiskCachedEmbedder(
            offline ? offlineEmbedder(`openai:${cfg.embedding.model}`) : createUncachedEmbedder(embedderCfg, { onUsage: (u) => ledger.recordEmbedding(u) }),
            {
              provider: 'openai',
              baseUrl: cfg.embedding.baseUrl,
              apiVersion: cfg.embedding.apiVersion ?? undefined,
              model: cfg.embedding.model,
              dimensions: embedderCfg.dimensions,
              maxTextLen: cfg.embedding.maxTextLen,
            },
            cacheLayers,
            () => ledger.recordEmbedding(ZERO_USAGE, { cached: true }),
          ),
        )
      : createEmbedder(embedderCfg, { onUsage: (u) => ledger.recordEmbedding(u) });

  // Ctrl-C: finish cleanly (finished episodes are journaled; --resume continues). Twice: quit now.
  let interrupts = 0;
  const onSigint = (): void => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    process.stderr.write('\nmemrl: interrupted; stopping after the running episodes (Ctrl-C again to quit now)\n');
    abort.abort();
  };
  process.on('SIGINT', onSigint);

  const banner = (info: { train: number; valid: number; split: string }): void => {
    process.stderr.write(
      `memrl run ${spec.name}: method ${method}, model ${modelLabel}${cfg.llm.provider === 'sim' ? ' (offline simulator: pipeline check, not a result)' : ''}, ` +
        `embedder ${embedder.label}, ${cfg.run.epochs} epoch(s), ${info.train} train / ${info.valid} valid tasks (${info.split})\n` +
        `  run folder: ${runDir}\n  log: ${logFile}\n`,
    );
    for (const note of cfg.notes) process.stderr.write(`  note: ${note}\n`);
  };

  try {
    const result = await runBenchmark({
      benchmark,
      method,
      memoryParams: cfg.memory,
      buildStrategy: cfg.buildStrategy,
      epochs: cfg.run.epochs,
      batchSize: cfg.run.batchSize,
      concurrency: cfg.run.concurrency,
      seed: cfg.run.seed,
      runValidation: cfg.run.runValidation,
      validateBeforeTraining: cfg.run.valBeforeTrain,
      createModel: (player) =>
        new CachedChatModel(
          offline ? new OfflineChatModel(modelLabel, cfg.llm.provider === 'sim') : chatModelFor(cfg, { [spec.name]: player }),
          chatCacheIdentity(cfg),
          cacheLayers,
        ),
      ...(spec.createJudge
        ? {
            createJudgeModel: (player: SimPlayer) => {
              if (!spec.judgeIdentity) throw new Error(`${spec.name}: a RunSpec with createJudge needs judgeIdentity`);
              const { label, identity } = spec.judgeIdentity(cfg);
              const inner = offline ? new OfflineChatModel(label, identity.provider === 'sim') : spec.createJudge!(cfg, player);
              return new CachedChatModel(inner, identity, cacheLayers);
            },
          }
        : {}),
      embedder,
      ledger,
      promptDir: cfg.run.promptDir ?? undefined,
      runDir,
      resume: cfg.run.resume !== null,
      manifest: {
        memrlVersion: memrlVersion(),
        gitCommit: gitCommit(),
        node: process.version,
        platform: `${process.platform}-${process.arch}`,
        command: ['memrl', ...process.argv.slice(2)],
        configSource: cfg.source,
        methodReason: cfg.methodReason,
        config: redactConfig(cfg.config),
        memoryParams: cfg.memory,
        buildStrategy: cfg.buildStrategy,
        ...(spec.manifest ? spec.manifest(cfg) : {}),
        logFile,
        cache: { recording: 'responses.jsonl', shared: cfg.run.cacheDir, replayOf: replayFrom },
      },
      log,
      progress: process.stderr.isTTY === true,
      signal: abort.signal,
      onStart: banner,
      onEpoch: (e) =>
        process.stderr.write(
          `epoch ${e.epoch}/${e.epochs}: acc ${fmt(e.acc)}  CSR ${fmt(e.csr)}${e.validAcc !== null ? `  valid acc ${fmt(e.validAcc)}` : ''}  memories ${e.memories}\n`,
        ),
    });
    const s = result.summary as { train?: { last?: number | null; csr?: number | null }; valid?: { last?: number | null } };
    process.stderr.write(
      `${result.interrupted ? 'interrupted' : 'done'}: ${result.epochsCompleted}/${cfg.run.epochs} epoch(s); ` +
        `last acc ${fmt(s.train?.last)}, CSR ${fmt(s.train?.csr)}${s.valid ? `, valid acc ${fmt(s.valid.last)}` : ''}\n` +
        `results: ${runDir}${result.interrupted ? `\nresume with: memrl run ${spec.name} ... --resume ${runDir}${budget.hit ? ` ${budget.hit.flag} <more>` : ''}` : ''}\n`,
    );
    if (result.interrupted) process.exitCode = budget.hit ? BUDGET_EXIT_CODE : 130;
    recordObserved(runDir, spec.name, ledger.snapshot());
  } catch (err) {
    // A budget stop that cut a step the runner cannot interrupt cleanly (e.g. the start-up embeddings): still resumable.
    if (!budget.hit) throw err;
    process.stderr.write(`stopped by the budget (${errorMessage(err)}); resume with: memrl run ${spec.name} ... --resume ${runDir} ${budget.hit.flag} <more>\n`);
    process.exitCode = BUDGET_EXIT_CODE;
  } finally {
    process.off('SIGINT', onSigint);
    await benchmark.close?.();
  }
}

/** A resumed run must be the same experiment: refuse silently mixing settings. */
function checkResumeMatches(manifest: Record<string, unknown>, name: string, cfg: ResolvedConfig, method: RunMethod, model: string, dir: string, flag = '--resume'): void {
  const want: Record<string, unknown> = { benchmark: name, method, model, seed: cfg.run.seed };
  for (const [k, v] of Object.entries(want)) {
    if (manifest[k] !== undefined && manifest[k] !== v) {
      throw new UserError(`${flag} ${dir}: the run used ${k}=${String(manifest[k])} but this command gives ${String(v)}; repeat the original command with ${flag}`);
    }
  }
}

/** The inner embedder of a replay: the disk cache answers or fails first, so this is never reached. */
function offlineEmbedder(label: string): Embedder {
  return {
    label,
    embed: async () => {
      throw new ReplayMissError(`replay: ${label} embeddings would need a live call`, label);
    },
  };
}
