/**
 * What the rest of memrl consumes: flag values and a YAML file in, ResolvedConfig out,
 * and what a benchmark or memory method contributes to that resolution (its config part).
 */
import type { BuildStrategy, MemoryMethod, MemoryParams } from '../memory/types.js';
import type { Fidelity } from '../util/fidelity.js';
import type { Env } from './interpolate.js';
import type { FlagDef, FlagValues } from './flags.js';
import type { Benchmark, ConfigPart, ImageSlot, MemrlConfig, Method, SharedKeys } from './schema.js';
import type { RunProfile } from './profile-names.js';
import type { ConfigTree, KeyPath } from './yaml-source.js';

export type { ConfigTree };

/** A run profile as resolved: its name, and each part of its setting this run does not match (one line each). */
export interface ResolvedProfile {
  name: RunProfile;
  unmatched: string[];
}

export interface LlmSettings {
  provider: 'openai' | 'sim';
  model: string;
  /** null only for provider sim, or when inspecting a config whose key is missing. */
  apiKey: string | null;
  baseUrl: string;
  apiVersion: string | null;
  temperature: number;
  /** null = the endpoint's default. */
  maxTokens: number | null;
  timeoutMs: number;
  maxRetries: number;
  /** Calls in a row that may fail after their retries before the run stops (memrl.llm.stop_after_failures); 0 = never. */
  stopAfterFailures: number;
  /** Requests per second to the endpoint (memrl.llm.rate_limit); null = unlimited. */
  rateLimit: number | null;
  /** Seed of the offline simulator (provider sim). */
  simSeed: number;
}

export interface EmbeddingSettings {
  provider: 'openai' | 'local';
  model: string;
  apiKey: string | null;
  baseUrl: string;
  apiVersion: string | null;
  /** Chunk texts longer than this (characters); 0 = never. */
  maxTextLen: number;
  /** local: vector size; openai: `dimensions` parameter, null = native. */
  dim: number | null;
}

export interface RunSettings {
  experimentName: string;
  epochs: number;
  batchSize: number;
  concurrency: number;
  seed: number;
  /** Absolute root directory for run outputs. */
  outputDir: string;
  /** First N train and first N validation tasks; null = all. */
  limit: number | null;
  runValidation: boolean;
  /** Validate every N epochs when runValidation (1 except LLB's valid_interval). */
  validInterval: number;
  /** Memory-free validation before epoch 1 (only when runValidation). */
  valBeforeTrain: boolean;
  /** Absolute run directory to resume, or null. */
  resume: string | null;
  /** Epoch snapshot to resume from; null = the latest. */
  resumeEpoch: number | null;
  /** Turn limit per episode (LLB, ALFWorld). */
  maxSteps: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'fatal';
  /** Absolute prompt pack folder (<namespace>/<file> templates), or null for memrl's own. */
  prompts: string | null;
  /** Absolute shared response-cache directory (memrl.cache_dir, --cache), or null. */
  cacheDir: string | null;
  /** Stop once billed calls reach this (memrl.budget, --budget-usd / --budget-tokens); null = no limit. */
  budgetUsd: number | null;
  budgetTokens: number | null;
  /** Absolute user price table merged over the built-in one (memrl.prices, --prices), or null. */
  pricesFile: string | null;
  /** Share of an epoch's episodes that may end in `error` before the run stops as failed (memrl.max_error_rate). */
  maxErrorRate: number;
  /** Probability of flipping the reward the memory learns from (memrl.reward_noise, --reward-noise); 0 = clean. */
  rewardNoise: number;
  /** Absolute folder for the run's log (memrl.log_dir, --log-dir), or null: log.jsonl in the run folder. */
  logDir: string | null;
}

export interface EvaluatorSettings {
  backend: 'local' | 'docker';
  evalTimeoutS: number;
  hardTimeoutS: number;
  /** Python tests in children of warm fork servers (local sandbox). */
  forkServer: boolean;
  docker: DockerSettings;
  /** Keys benchmarks add to memrl.evaluator (their sharedKeys), camelCased, after backend. */
  readonly [added: string]: unknown;
}

/** The container backend (memrl.evaluator.docker). */
export interface DockerSettings {
  /** Engine address, or null for DOCKER_HOST / the usual sockets. */
  host: string | null;
  /** Image per slot key of memrl.evaluator.docker.images (bcb, llb_db, llb_os, alfworld, and plug-ins'). */
  images: Record<string, string>;
  memoryMb: number;
  pids: number;
  pull: 'missing' | 'never';
}

export interface ResolvedConfig<S = unknown> {
  benchmark: Benchmark;
  /** The config file as named by the user, or 'built-in quickstart (<path>)'. */
  source: string;
  method: Method;
  /** Why this method, e.g. "experiment.enable_value_driven is false". */
  methodReason: string;
  llm: LlmSettings;
  embedding: EmbeddingSettings;
  /** Engine parameters; method is 'none' for the runner modes reflection and passk. */
  memory: MemoryParams;
  /** What new memories hold (method rag always stores raw trajectories). */
  buildStrategy: BuildStrategy;
  run: RunSettings;
  evaluator: EvaluatorSettings;
  /** The benchmark's own settings, as its module resolved them. */
  bench: S;
  /** A second model that scores answers (HLE's judge), if the benchmark has one. */
  judge: LlmSettings | null;
  /** The fidelity profile and every switch's setting (memrl.fidelity, memrl.fidelity_switches). */
  fidelity: Fidelity;
  /** The run profile (--profile, memrl.profile) and what of it this run does not match; null without one. */
  profile: ResolvedProfile | null;
  /** The full validated tree (defaults < benchmark defaults < YAML < flags). Holds secrets: redact before printing. */
  config: MemrlConfig;
  /** Leaf keys ("a.b.c") the user's file sets; none for the built-in quickstart. */
  fileKeys: string[];
  /** Human notes about the resolution (placeholders replaced, simulator in use, ...). */
  notes: string[];
  /** Inert keys the file sets (accepted, no effect), with the reason. */
  inertKeys: { key: string; reason: string }[];
  /** Keys the file sets that this benchmark does not read. */
  unreadKeys: string[];
}

/** Config values by dotted key (`memory.k_retrieve: 5`), as a sweep file or a variant sets them. */
export type ConfigAssignments = Record<string, unknown>;

/** A nested defaults layer in the config file's shape: { llm: {...}, experiment: {...} }. */
export type ConfigLayer = { [section: string]: ConfigTree };

/** What a benchmark's settings resolver may use besides the validated tree. */
export interface SettingsContext {
  benchmark: Benchmark;
  /** The config file as named, or 'built-in quickstart (...)'. */
  source: string;
  /** True when no --config was given (the built-in quickstart). */
  quickstart: boolean;
  env: Env;
  cwd: string;
  /** true: report missing credentials as notes instead of failing (memrl config). */
  inspect: boolean;
  /** The resolved agent model settings (a judge defaults to them). */
  llm: LlmSettings;
  seed: number;
  /** Message prefix for a key: file:line, or the flag that set it. */
  where(path: KeyPath): string;
  /** The flag that set `path`, if one did. */
  setBy(path: KeyPath): string | undefined;
  /** Adds a note shown by `memrl config` and the run banner. */
  note(text: string): void;
}

/**
 * What a benchmark contributes to configuration: its defaults, its flags and section,
 * the reference keys only it reads, and how its settings come out of the tree.
 * (The full benchmark contract, src/core/benchmark.ts, extends this.)
 */
export interface BenchmarkConfigPart<S = unknown> extends ConfigPart {
  /** Shown in tables, reports and help, e.g. 'BigCodeBench'. */
  displayName: string;
  /** Per-benchmark defaults over the schema's: the reference's YAML and runner values for it. */
  defaults?: ConfigLayer;
  /** Its layer of each run profile (`--profile paper`: the paper's setting for it), over its defaults and under the YAML file. */
  profiles?: Readonly<Partial<Record<RunProfile, ConfigLayer>>>;
  /** Its own flags, beyond the common run flags. */
  flags?: readonly FlagDef[];
  /** Takes --evaluator / --docker-host (it has a container backend). */
  evaluatorFlags?: boolean;
  /** Help text of common flags, reworded for this benchmark (placeholders {a.b} take its defaults). */
  flagHelp?: Readonly<Record<string, string>>;
  /**
   * Config keys only some benchmarks read: `reads` lists reference keys (exact, or a
   * `section.` prefix) this one reads and the others do not; `ignores` lists keys
   * everyone else reads but it does not. Its own memrl.<name> section is implied.
   */
  keys?: {
    reads?: readonly string[];
    ignores?: readonly string[];
    /**
     * Short words for its settings where they tell experiments apart in a results
     * table, by key, `{value}` standing for the value: { 'memrl.x.subset': '{value} subset' }.
     */
    labels?: Readonly<Record<string, string>>;
    /**
     * What the help of keys it shares with other benchmarks says of it (`memrl config
     * --explain`), by key: its name where the help lists who reads the key, its default
     * where it lists each one's ({ 'memory.sim_norm_mean': 'X 0.31' }), its rule.
     */
    help?: Readonly<Record<string, string>>;
  };
  /**
   * Keys of shared sections that only it reads (the reference's experiment and
   * environment sections have such keys), added where the reference has them.
   */
  sharedKeys?: readonly SharedKeys[];
  /** Container images it runs in (slots of memrl.evaluator.docker.images). */
  images?: readonly ImageSlot[];
  /** Its settings from the validated tree; throws a UserError naming the key at fault. */
  resolve(tree: MemrlConfig, ctx: SettingsContext): S;
  /** Benchmark-specific rules on the engine parameters (e.g. HLE's fixed initial Q). */
  memoryParams?(params: MemoryParams, tree: MemrlConfig, fidelity: Fidelity): MemoryParams;
  /** Whether validation runs when memrl.run_validation is null (default: yes). */
  runValidation?(tree: MemrlConfig): boolean;
  /** Validate every N epochs (default 1). */
  validInterval?(tree: MemrlConfig): number;
  /** Settings of a second, scoring model (a judge), if it has one. */
  judge?(settings: S): LlmSettings | null;
}

/** What a memory method contributes to configuration (src/core/method.ts extends this). */
export interface MethodConfigPart extends ConfigPart {
  displayName: string;
  /** The engine behaviour its memory parameters carry; 'none' (default): the engine is not used for retrieval. */
  engine?: MemoryMethod;
  /** A build strategy it always uses, whatever memory.build_strategy says (rag: trajectory). */
  buildStrategy?: BuildStrategy;
}

/** The registered benchmarks and methods, as configuration sees them. */
export interface ConfigRegistry {
  benchmarks: readonly BenchmarkConfigPart[];
  methods: readonly MethodConfigPart[];
}

export type { FlagValues };
