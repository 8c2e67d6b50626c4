/**
 * From the validated config tree to the settings the runner uses: the method,
 * the memory engine's parameters, run and evaluator settings (evaluator-settings.ts),
 * the models' endpoints (model-settings.ts), and the benchmark's own settings (its
 * config part's resolve()). Every rule that is not a plain copy is documented where it
 * is applied.
 */
import { resolve } from 'node:path';
import type { MemoryParams } from '../memory/types.js';
import { MEMORY_SWITCHES } from '../memory/fidelity-switches.js';
import { UserError } from '../util/errors.js';
import { makeFidelity, type Fidelity, type FidelitySwitch } from '../util/fidelity.js';
import { evaluatorSettings, refuseShortHardTimeout } from './evaluator-settings.js';
import type { FlagValues } from './flags.js';
import type { Env } from './interpolate.js';
import { closest } from './issues.js';
import { keyNotes, leafPaths } from './key-notes.js';
import { embeddingSettings, llmSettings, modelEndpoints, refuseMissingKeys } from './model-settings.js';
import { profileGaps, type ProfileLayers } from './profile.js';
import type { MemrlConfig, Method } from './schema.js';
import type { BenchmarkConfigPart, ConfigRegistry, ConfigTree, LlmSettings, MethodConfigPart, ResolvedConfig, ResolvedProfile, RunSettings } from './types.js';
import type { KeyPath } from './yaml-source.js';

export interface ResolveContext {
  registry: ConfigRegistry;
  part: BenchmarkConfigPart;
  source: string;
  /** No --config: the built-in quickstart. */
  quickstart: boolean;
  flags: FlagValues;
  env: Env;
  cwd: string;
  /** true: report missing credentials as notes instead of failing (memrl config). */
  inspect: boolean;
  /** The user's file after interpolation (to list inert keys it sets). */
  fileData: unknown;
  /** Message prefix for a key: file:line, or the flag that set it. */
  where(path: KeyPath): string;
  /** The flag that set `path`, if one did. */
  setBy(path: KeyPath): string | undefined;
  /** Notes gathered while loading (e.g. unset variables while inspecting). */
  notes: string[];
  /** The run profile's layers, when one applies. */
  profile?: ProfileLayers | null;
}

export function resolveConfig(cfg: MemrlConfig, ctx: ResolveContext): ResolvedConfig {
  const notes = [...ctx.notes];
  const part = ctx.part;
  const { method, reason } = deriveMethod(cfg, ctx.flags);
  const seed = cfg.experiment.random_seed ?? 42;
  const endpoints = modelEndpoints(cfg, ctx.env);
  notes.push(...endpoints.notes);
  refuseShortHardTimeout(cfg.memrl.evaluator, ctx);
  if (!ctx.inspect) refuseMissingKeys(endpoints, ctx);

  const run = runSettings(cfg, ctx, seed);
  const fidelity = resolveFidelity(cfg, ctx);
  const memory = memoryParams(cfg, ctx, method, fidelity);
  const present = keyNotes(ctx.fileData, part.name, ctx.registry.benchmarks);
  if (cfg.llm.provider === 'sim') notes.push('llm.provider is sim: an offline simulator for pipeline checks; its numbers are never results');
  const llm = llmSettings(cfg, endpoints, seed);
  const bench = benchSettings(cfg, ctx, llm, seed, notes);
  const methodPart = ctx.registry.methods.find((m) => m.name === method);
  refuseUnusedThreshold(method, methodPart, cfg, memory, ctx);

  const profile = ctx.profile ? { name: ctx.profile.name, unmatched: profileGaps(ctx.profile, cfg, ctx.where, ctx.cwd) } : null;
  if (profile) notes.push(...profileNotes(profile));

  return {
    fidelity,
    profile,
    benchmark: part.name,
    source: ctx.source,
    method,
    methodReason: reason,
    llm,
    embedding: embeddingSettings(cfg, endpoints),
    memory,
    // A method may fix what its memories hold (rag: the raw trajectory).
    buildStrategy: methodPart?.buildStrategy ?? cfg.memory.build_strategy,
    run,
    evaluator: evaluatorSettings(cfg.memrl.evaluator, ctx.registry),
    bench,
    judge: part.judge?.(bench) ?? null,
    config: cfg,
    fileKeys: ctx.quickstart ? [] : leafPaths(ctx.fileData),
    notes,
    inertKeys: present.inert,
    unreadKeys: present.unusedHere,
  };
}

/** The benchmark's own settings (its config part's resolve()); its notes join the run's, each once. */
function benchSettings(cfg: MemrlConfig, ctx: ResolveContext, llm: LlmSettings, seed: number, notes: string[]): unknown {
  return ctx.part.resolve(cfg, {
    benchmark: ctx.part.name,
    source: ctx.source,
    quickstart: ctx.quickstart,
    env: ctx.env,
    cwd: ctx.cwd,
    inspect: ctx.inspect,
    llm,
    seed,
    where: ctx.where,
    setBy: ctx.setBy,
    note: (text) => {
      if (!notes.includes(text)) notes.push(text);
    },
  });
}

/**
 * The method, in this order: --method; memrl.method; experiment.baseline_mode
 * passk/reflection; "value-driven off" (algorithm memp, or enable_value_driven
 * false) → memp, i.e. plain similarity retrieval without Q learning (rag instead
 * when build_strategy is trajectory, which is what rag stores); otherwise memrl.
 */
export function deriveMethod(cfg: MemrlConfig, flags: FlagValues): { method: Method; reason: string } {
  if (typeof flags.method === 'string') return { method: flags.method, reason: '--method' };
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

function memoryParams(cfg: MemrlConfig, ctx: ResolveContext, method: Method, fidelity: Fidelity): MemoryParams {
  const rl = cfg.rl_config;
  const mem = cfg.memory;
  const params: MemoryParams = {
    // The method decides the engine's behaviour; runner-only baselines (reflection, passk) leave it off.
    method: ctx.registry.methods.find((m) => m.name === method)?.engine ?? 'none',
    k1: mem.k_retrieve,
    simThreshold: rl.sim_threshold,
    k2: rl.topk,
    epsilon: rl.epsilon,
    alpha: rl.alpha,
    successReward: rl.success_reward,
    failureReward: rl.failure_reward,
    qInitPos: rl.q_init_pos,
    qInitNeg: rl.q_init_neg,
    // rl_config.q_floor applies when set (the reference only honoured it through LLB; a set key should work).
    qFloor: rl.q_floor,
    qMinThreshold: rl.q_min_threshold,
    recencyBoost: rl.recency_boost,
    weightSim: rl.weight_sim,
    weightQ: rl.weight_q,
    simNormMean: mem.sim_norm_mean,
    simNormStd: mem.sim_norm_std,
    zScore: true,
    dedupByTaskId: false,
    addSimilarityThreshold: mem.add_similarity_threshold,
    updateStrategy: mem.update_strategy,
    baselineThreshold: rl.sim_threshold,
  };
  // Benchmark-specific rules (LLB's z-score/floor/dedup keys, HLE's fixed initial Q).
  return ctx.part.memoryParams ? ctx.part.memoryParams(params, cfg, fidelity) : params;
}

/** Every switch memrl knows: the writer's, then each registered benchmark's and method's. */
export function allFidelitySwitches(registry: ConfigRegistry): FidelitySwitch[] {
  return [...MEMORY_SWITCHES, ...registry.benchmarks.flatMap((b) => b.fidelitySwitches ?? []), ...registry.methods.flatMap((m) => m.fidelitySwitches ?? [])];
}

function resolveFidelity(cfg: MemrlConfig, ctx: ResolveContext): Fidelity {
  const switches = allFidelitySwitches(ctx.registry);
  const known = new Set(switches.map((s) => s.id));
  for (const id of Object.keys(cfg.memrl.fidelity_switches)) {
    if (!known.has(id)) {
      const hint = closest(id, [...known]);
      throw new UserError(
        `${ctx.where(['memrl', 'fidelity_switches', id])}: unknown fidelity switch '${id}'${hint ? ` (did you mean '${hint}'?)` : ''}; docs/fidelity.md and \`memrl config --explain\` list them`,
      );
    }
  }
  return makeFidelity(cfg.memrl.fidelity, switches, cfg.memrl.fidelity_switches);
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
  // Validation: memrl.run_validation (--run-validation) when set, else the benchmark's
  // rule (BCB: only when asked; LLB: every valid_interval epochs; others: every epoch).
  const runValidation = cfg.memrl.run_validation ?? ctx.part.runValidation?.(cfg) ?? true;
  // An explicit memrl.run_validation: true (--run-validation) validates after every epoch when the
  // benchmark's interval would never validate after one (LLB's and ALFWorld's valid_interval: 0).
  const partInterval = ctx.part.validInterval?.(cfg) ?? 1;
  const validInterval = cfg.memrl.run_validation === true && partInterval <= 0 ? 1 : partInterval;

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
    prompts: cfg.memrl.prompts ? resolve(ctx.cwd, cfg.memrl.prompts) : null,
    cacheDir: cfg.memrl.cache_dir ? resolve(ctx.cwd, cfg.memrl.cache_dir) : null,
    budgetUsd: cfg.memrl.budget.usd,
    budgetTokens: cfg.memrl.budget.tokens,
    pricesFile: cfg.memrl.prices ? resolve(ctx.cwd, cfg.memrl.prices) : null,
    maxErrorRate: cfg.memrl.max_error_rate,
    rewardNoise: cfg.memrl.reward_noise,
    logDir: cfg.memrl.log_dir ? resolve(ctx.cwd, cfg.memrl.log_dir) : null,
  };
}

/**
 * --retrieve-threshold sets the engine's Phase A threshold (rl_config.sim_threshold). A
 * method that does not retrieve through the engine ignores it, unless its own threshold
 * is unset and falls back to it (Self-RAG and Mem0 take the reference's baseline floor,
 * which is rl_config.sim_threshold except where a benchmark reads another key). A flag
 * that would be ignored is refused, naming the method's own key if it has one.
 */
function refuseUnusedThreshold(method: string, part: MethodConfigPart | undefined, cfg: MemrlConfig, memory: MemoryParams, ctx: ResolveContext): void {
  if (ctx.setBy(['rl_config', 'sim_threshold']) !== '--retrieve-threshold' || (part?.engine ?? 'none') !== 'none') return;
  const shape = (part?.configSection as { shape?: object } | undefined)?.shape;
  const hasOwn = shape !== undefined && 'threshold' in shape;
  const own = (cfg.memrl as ConfigTree)[method] as { threshold?: unknown } | undefined;
  if (hasOwn && (own?.threshold ?? null) === null && memory.baselineThreshold === cfg.rl_config.sim_threshold) return;
  const instead = hasOwn ? `set memrl.${method}.threshold in the config (the method's own minimum score) instead` : 'leave the flag out';
  throw new UserError(`--retrieve-threshold: method ${method} does not use rl_config.sim_threshold here (the similarity threshold of memrl, memp and rag retrieval), so the flag would be ignored; ${instead}`, 'flag_unused');
}

/** The banner's and `memrl config`'s lines about a run profile: what it is, then each thing not matched. */
export function profileNotes(profile: ResolvedProfile): string[] {
  const head = `profile ${profile.name}: the paper's setting for this benchmark (docs/reproduce.md)${profile.unmatched.length ? `; ${profile.unmatched.length} thing(s) not matched here` : ', all of it matched'}`;
  return [head, ...profile.unmatched.map((u) => `profile ${profile.name}: not matched: ${u}`)];
}
