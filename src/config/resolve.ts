/**
 * From the validated config tree to the settings the runner uses: the method,
 * the memory engine's parameters, run/BCB/evaluator settings and endpoints.
 * Every rule that is not a plain copy is documented where it is applied.
 */
import { existsSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import type { MemoryMethod, MemoryParams } from '../memory/types.js';
import { UserError } from '../util/errors.js';
import { sharedDataDir } from '../util/paths.js';
import { resolveEndpoint } from './credentials.js';
import type { Env } from './interpolate.js';
import { keyNotes } from './key-notes.js';
import type { Benchmark, MemrlConfig, Method } from './schema.js';
import type { AlfworldSettings, BcbSettings, HleSettings, LlbSettings, ResolvedConfig, RunFlags, RunSettings } from './types.js';
import type { KeyPath } from './yaml-source.js';

export interface ResolveContext {
  benchmark: Benchmark;
  source: string;
  flags: RunFlags;
  env: Env;
  cwd: string;
  /** true: report missing credentials as notes instead of failing (memrl config). */
  inspect: boolean;
  /** The user's file after interpolation (to list inert keys it sets). */
  fileData: unknown;
  /** Message prefix for a key: file:line, or the flag that set it. */
  where(path: KeyPath): string;
  /** Notes gathered while loading (e.g. unset variables while inspecting). */
  notes: string[];
}

export function resolveConfig(cfg: MemrlConfig, ctx: ResolveContext): ResolvedConfig {
  const notes = [...ctx.notes];
  const { method, reason } = deriveMethod(cfg, ctx.flags);
  const seed = cfg.experiment.random_seed ?? 42;

  const llmEndpoint = resolveEndpoint('llm', cfg.llm.api_key, cfg.llm.base_url, ctx.env);
  const embEndpoint = resolveEndpoint('embedding', cfg.embedding.api_key, cfg.embedding.base_url, ctx.env);
  const llmReal = cfg.llm.provider === 'openai';
  const embReal = cfg.embedding.provider === 'openai';
  if (llmReal) notes.push(...llmEndpoint.notes);
  if (embReal) notes.push(...embEndpoint.notes);
  if (ctx.benchmark === 'llb' && cfg.experiment.task === 'kg') {
    throw new UserError(`${ctx.where(['experiment', 'task'])}: \`experiment.task: kg\` is not available; LifelongAgentBench data here covers db and os`);
  }
  const ev = cfg.memrl.evaluator;
  if (ev.hard_timeout < ev.eval_timeout) {
    throw new UserError(
      `${ctx.where(['memrl', 'evaluator', ctx.flags.evalTimeout !== undefined ? 'eval_timeout' : 'hard_timeout'])}: hard timeout (${ev.hard_timeout} s) is below the evaluation timeout (${ev.eval_timeout} s); raise --untrusted-hard-timeout / memrl.evaluator.hard_timeout`,
    );
  }

  if (!ctx.inspect) {
    for (const [section, real, endpoint] of [
      ['llm', llmReal, llmEndpoint],
      ['embedding', embReal, embEndpoint],
    ] as const) {
      if (real && endpoint.apiKey === null) {
        throw new UserError(
          `${ctx.where([section, 'api_key'])}: \`${section}.api_key\` is a placeholder and OPENAI_API_KEY is not set; export OPENAI_API_KEY, or write the key (or \${VAR}) in the config, or use provider ${section === 'llm' ? 'sim' : 'local'} to run offline`,
        );
      }
    }
  }

  const run = runSettings(cfg, ctx, seed);
  const memory = memoryParams(cfg, ctx.benchmark, method);
  const present = keyNotes(ctx.fileData, ctx.benchmark);
  if (cfg.llm.provider === 'sim') notes.push('llm.provider is sim: an offline simulator for pipeline checks; its numbers are never results');

  return {
    benchmark: ctx.benchmark,
    source: ctx.source,
    method,
    methodReason: reason,
    llm: {
      provider: cfg.llm.provider,
      model: cfg.llm.provider === 'sim' ? 'sim' : cfg.llm.model,
      apiKey: llmReal ? llmEndpoint.apiKey : null,
      baseUrl: llmEndpoint.baseUrl,
      apiVersion: cfg.llm.api_version,
      temperature: cfg.llm.temperature,
      maxTokens: cfg.llm.max_tokens,
      timeoutMs: cfg.memrl.llm.timeout_ms,
      maxRetries: cfg.memrl.llm.max_retries,
      simSeed: cfg.memrl.sim.seed ?? seed,
    },
    embedding: {
      provider: cfg.embedding.provider,
      model: cfg.embedding.provider === 'local' ? 'local-ngram' : cfg.embedding.model,
      apiKey: embReal ? embEndpoint.apiKey : null,
      baseUrl: embEndpoint.baseUrl,
      apiVersion: cfg.embedding.api_version,
      maxTextLen: cfg.embedding.max_text_len,
      // The local embedder needs a size; OpenAI's default is the model's native one.
      dim: cfg.memrl.embedding.dim ?? (cfg.embedding.provider === 'local' ? 512 : null),
    },
    memory,
    // rag is defined as "store the raw trajectory, retrieve by similarity".
    buildStrategy: method === 'rag' ? 'trajectory' : cfg.memory.build_strategy,
    run,
    evaluator: {
      backend: ev.backend,
      bcbMode: ev.bcb_mode,
      evalTimeoutS: ev.eval_timeout,
      hardTimeoutS: ev.hard_timeout,
      docker: {
        host: ev.docker.host,
        images: { bcb: ev.docker.images.bcb, llbDb: ev.docker.images.llb_db, llbOs: ev.docker.images.llb_os, alfworld: ev.docker.images.alfworld },
        memoryMb: ev.docker.memory_mb,
        pids: ev.docker.pids,
        pull: ev.docker.pull,
      },
    },
    bcb: bcbSettings(cfg, ctx),
    hle: hleSettings(cfg, ctx, notes),
    alfworld: alfworldSettings(cfg, ctx),
    llb: llbSettings(cfg, ctx),
    config: cfg,
    notes,
    inertKeys: present.inert,
    unreadKeys: present.unusedHere,
  };
}

/**
 * The method, in this order: --method; memrl.method; experiment.baseline_mode
 * passk/reflection; "value-driven off" (algorithm memp, or enable_value_driven
 * false) → memp, i.e. plain similarity retrieval without Q learning (rag instead
 * when build_strategy is trajectory, which is what rag stores); otherwise memrl.
 */
export function deriveMethod(cfg: MemrlConfig, flags: RunFlags): { method: Method; reason: string } {
  if (flags.method) return { method: flags.method, reason: '--method' };
  if (cfg.memrl.method) return { method: cfg.memrl.method, reason: 'memrl.method' };
  const baseline = cfg.experiment.baseline_mode;
  if (baseline === 'passk' || baseline === 'reflection') {
    return { method: baseline, reason: `experiment.baseline_mode is ${baseline}` };
  }
  const off =
    cfg.experiment.algorithm === 'memp'
      ? 'experiment.algorithm is memp'
      : !cfg.experiment.enable_value_driven
        ? 'experiment.enable_value_driven is false'
        : null;
  if (off) {
    return cfg.memory.build_strategy === 'trajectory'
      ? { method: 'rag', reason: `${off} and memory.build_strategy is trajectory` }
      : { method: 'memp', reason: off };
  }
  return { method: 'memrl', reason: 'experiment.algorithm rl with enable_value_driven true' };
}

function memoryParams(cfg: MemrlConfig, benchmark: Benchmark, method: Method): MemoryParams {
  const rl = cfg.rl_config;
  const mem = cfg.memory;
  const exp = cfg.experiment;
  const isLlb = benchmark === 'llb';
  // reflection and passk are runner modes: the memory engine is off.
  const engineMethod: MemoryMethod = method === 'reflection' || method === 'passk' ? 'none' : method;
  // The HLE runner ignores q_init_* and writes 1.0 after a success, 0.0 after a failure.
  const hle = benchmark === 'hle';
  return {
    method: engineMethod,
    k1: mem.k_retrieve,
    simThreshold: rl.sim_threshold,
    k2: rl.topk,
    epsilon: rl.epsilon,
    alpha: rl.alpha,
    successReward: rl.success_reward,
    failureReward: rl.failure_reward,
    qInitPos: hle ? 1 : rl.q_init_pos,
    qInitNeg: hle ? 0 : rl.q_init_neg,
    // LLB: experiment.llb_q_floor overrides rl_config.q_floor. Elsewhere rl_config.q_floor
    // applies when set (the reference only honoured it through LLB; a set key should work).
    qFloor: isLlb && exp.llb_q_floor !== null ? exp.llb_q_floor : rl.q_floor,
    qMinThreshold: rl.q_min_threshold,
    recencyBoost: rl.recency_boost,
    weightSim: rl.weight_sim,
    weightQ: rl.weight_q,
    simNormMean: mem.sim_norm_mean,
    simNormStd: mem.sim_norm_std,
    zScore: isLlb ? exp.llb_use_z_score_normalization : true,
    dedupByTaskId: isLlb ? exp.llb_dedup_by_task_id : false,
    addSimilarityThreshold: mem.add_similarity_threshold,
    updateStrategy: mem.update_strategy,
  };
}

const LOG_LEVELS: Record<string, RunSettings['logLevel']> = {
  DEBUG: 'debug',
  INFO: 'info',
  WARNING: 'warn',
  WARN: 'warn',
  ERROR: 'error',
  CRITICAL: 'fatal',
};

function runSettings(cfg: MemrlConfig, ctx: ResolveContext, seed: number): RunSettings {
  const exp = cfg.experiment;
  // Validation: BCB runs it only when asked (reference: bcb_run_validation); LLB every
  // valid_interval epochs (0 = never); HLE and ALFWorld after every epoch.
  let runValidation: boolean;
  let validInterval = 1;
  if (ctx.benchmark === 'bcb') {
    runValidation = exp.bcb_run_validation;
  } else if (ctx.benchmark === 'llb') {
    runValidation = ctx.flags.runValidation ?? exp.valid_interval > 0;
    validInterval = Math.max(1, exp.valid_interval);
  } else {
    runValidation = ctx.flags.runValidation ?? true;
  }

  let resumeDir: string | null = null;
  if (exp.ckpt_resume_enabled) {
    if (!exp.ckpt_resume_path) {
      throw new UserError(
        `${ctx.where(['experiment', 'ckpt_resume_enabled'])}: \`experiment.ckpt_resume_enabled\` is true but \`experiment.ckpt_resume_path\` is empty; give the run directory to resume (or use --resume <run-dir>)`,
      );
    }
    resumeDir = resolve(ctx.cwd, exp.ckpt_resume_path);
  }

  return {
    experimentName: exp.experiment_name,
    epochs: exp.num_sections,
    batchSize: exp.batch_size,
    concurrency: cfg.memrl.concurrency,
    seed,
    outputDir: resolve(ctx.cwd, exp.output_dir),
    limit: cfg.memrl.limit,
    runValidation,
    validInterval,
    valBeforeTrain: runValidation && exp.val_before_train,
    resume: resumeDir,
    resumeEpoch: exp.ckpt_resume_epoch || null,
    maxSteps: exp.max_steps,
    logLevel: LOG_LEVELS[exp.log_level] ?? 'info',
    promptDir: cfg.memrl.prompt_dir ? resolve(ctx.cwd, cfg.memrl.prompt_dir) : null,
    cacheDir: cfg.memrl.cache_dir ? resolve(ctx.cwd, cfg.memrl.cache_dir) : null,
    budgetUsd: cfg.memrl.budget.usd,
    budgetTokens: cfg.memrl.budget.tokens,
    pricesFile: cfg.memrl.prices ? resolve(ctx.cwd, cfg.memrl.prices) : null,
  };
}

const PAPER_SPLITS = { full: 'full_seed123.json', hard: 'hard_seed42.json' } as const;
const NO_SPLIT_FILE = new Set(['', 'none']);

/**
 * BCB split file: an explicit one wins ("" or "none" = seeded split); otherwise
 * setting train_ratio asks for the seeded split; otherwise the paper's split file
 * for the subset, when the shared data has it. (The reference silently ignores
 * --train_ratio whenever its default split file exists; we do not.)
 */
function bcbSettings(cfg: MemrlConfig, ctx: ResolveContext): BcbSettings {
  const bcb = cfg.memrl.bcb;
  let splitFile: string | null;
  if (bcb.split_file !== null) {
    splitFile = NO_SPLIT_FILE.has(bcb.split_file.trim().toLowerCase()) ? null : resolve(ctx.cwd, bcb.split_file);
  } else if (bcb.train_ratio !== null) {
    splitFile = null;
  } else {
    const candidate = join(sharedDataDir(), 'bigcodebench', 'splits', PAPER_SPLITS[bcb.subset]);
    splitFile = existsSync(candidate) ? candidate : null;
  }
  return {
    subset: bcb.subset,
    split: bcb.split,
    dataPath: bcb.data_path ? resolve(ctx.cwd, bcb.data_path) : null,
    splitFile,
    trainRatio: bcb.train_ratio ?? 0.7,
    memoryBudget: bcb.memory_budget,
  };
}

/**
 * HLE: data files, filters and the judge endpoint. The judge defaults to the
 * chat model's provider and endpoint (so a sim run has a sim judge), with its own
 * model (gpt-4o-2024-08-06) and temperature 0 as in the reference.
 */
function hleSettings(cfg: MemrlConfig, ctx: ResolveContext, notes: string[]): HleSettings {
  const hle = cfg.memrl.hle;
  const j = hle.judge;
  const provider = j.provider ?? cfg.llm.provider;
  const endpoint = resolveEndpoint('memrl.hle.judge', j.api_key ?? cfg.llm.api_key, j.base_url ?? cfg.llm.base_url, ctx.env);
  const active = ctx.benchmark === 'hle' && provider === 'openai';
  if (active) notes.push(...endpoint.notes.filter((n) => !notes.includes(n)));
  if (active && !ctx.inspect && endpoint.apiKey === null) {
    throw new UserError(
      `${ctx.where(['memrl', 'hle', 'judge', 'api_key'])}: the HLE judge has no API key (placeholder and OPENAI_API_KEY is not set); export OPENAI_API_KEY, set memrl.hle.judge.api_key (or llm.api_key), or use memrl.hle.judge.provider sim to run offline`,
    );
  }
  return {
    trainPath: hle.train_path ? resolve(ctx.cwd, hle.train_path) : null,
    validPath: hle.valid_path ? resolve(ctx.cwd, hle.valid_path) : null,
    categories: cfg.experiment.hle_categories,
    categoryRatio: cfg.experiment.hle_category_ratio ?? 1,
    datasetRatio: cfg.experiment.dataset_ratio,
    trainValidSplit: cfg.experiment.train_valid_split,
    numTrain: hle.num_train,
    numValid: hle.num_valid,
    judge: {
      provider,
      model: provider === 'sim' ? 'sim' : j.model,
      apiKey: provider === 'openai' ? endpoint.apiKey : null,
      baseUrl: endpoint.baseUrl,
      apiVersion: j.api_version ?? cfg.llm.api_version,
      temperature: j.temperature,
      maxTokens: j.max_tokens,
    },
  };
}

/**
 * ALFWorld: which environment (an explicit key or --env wins; otherwise the
 * offline stand-in for the built-in quickstart and the real package for a config
 * file), the env YAML passed through to ALFWorld, and the few-shot examples file
 * (the reference's relative path falls back to the shared data).
 */
function alfworldSettings(cfg: MemrlConfig, ctx: ResolveContext): AlfworldSettings {
  const a = cfg.memrl.alfworld;
  const quickstart = ctx.source.startsWith('built-in quickstart');
  const env = a.env ?? (quickstart ? 'standin' : 'alfworld');
  const envReason = ctx.flags.alfworldEnv ? '--env' : a.env ? 'memrl.alfworld.env' : quickstart ? 'the built-in quickstart runs offline' : 'a config file runs the real ALFWorld unless memrl.alfworld.env is standin';
  const fewShot = resolve(ctx.cwd, cfg.experiment.few_shot_path);
  const shared = join(sharedDataDir(), 'alfworld', 'alfworld_examples.json');
  const gpt: AlfworldSettings['gamesPerType'] = {};
  for (const k of ['train', 'valid_seen', 'valid_unseen'] as const) {
    const v = a.games_per_type[k];
    if (v !== null) gpt[k] = v;
  }
  return {
    env,
    envReason,
    validSplit: a.valid_split,
    envConfigPath: resolve(ctx.cwd, cfg.environment.alfworld_config_path),
    envType: cfg.environment.alfworld_env_type,
    fewShotPath: existsSync(fewShot) ? fewShot : shared,
    gameFile: a.game_file,
    gamesPerType: gpt,
    datasetRatio: cfg.experiment.dataset_ratio,
    python: a.python,
    bridgeTimeoutS: a.bridge_timeout,
  };
}

const LLB_SHARED = {
  db: { train: 'db_train.json', valid: 'db_val.json' },
  os: { train: 'os_interaction_train.json', valid: 'os_interaction_val.json' },
} as const;

/**
 * LLB data files: experiment.split_file / valid_file (relative to the working
 * directory; a relative path that does not exist there falls back to the file of
 * the same name in the shared data dir, so the reference's `./data/...` paths work),
 * else the shared train / val files of experiment.task.
 */
function llbSettings(cfg: MemrlConfig, ctx: ResolveContext): LlbSettings {
  const exp = cfg.experiment;
  const task = exp.task === 'os' ? 'os' : 'db';
  const dir = join(sharedDataDir(), 'llb');
  const pick = (given: string | null, fallback: string): string => {
    if (given === null || given.trim() === '') return join(dir, fallback);
    const local = resolve(ctx.cwd, given);
    if (existsSync(local) || isAbsolute(given)) return local;
    const shared = join(dir, basename(given));
    return existsSync(shared) ? shared : local;
  };
  return { task, splitFile: pick(exp.split_file, LLB_SHARED[task].train), validFile: pick(exp.valid_file, LLB_SHARED[task].valid) };
}
