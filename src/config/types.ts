/** What the rest of memrl consumes: parsed CLI flags in, ResolvedConfig out. */
import type { BuildStrategy, MemoryParams } from '../memory/types.js';
import type { Benchmark, MemrlConfig, Method } from './schema.js';

/** Command-line overrides (camelCase, already type-checked by the CLI). Unset = not given. */
export interface RunFlags {
  config?: string;
  subset?: 'full' | 'hard';
  split?: 'instruct' | 'complete';
  epochs?: number;
  splitFile?: string;
  dataPath?: string;
  retrieveThreshold?: number;
  retrieveK?: number;
  memoryBudget?: number;
  evalTimeout?: number;
  untrustedHardTimeout?: number;
  outputDir?: string;
  temperature?: number;
  maxTokens?: number;
  trainRatio?: number;
  seed?: number;
  method?: Method;
  concurrency?: number;
  limit?: number;
  runValidation?: boolean;
  resume?: string;
  evaluator?: 'local' | 'docker';
  dockerHost?: string;
  bcbMode?: 'reference' | 'calibrated';
  batchSize?: number;
  /** HLE: Parquet file(s), filters and the judge model. */
  train?: string;
  valid?: string;
  categories?: string[];
  categoryRatio?: number;
  datasetRatio?: number;
  trainValidSplit?: number;
  numTrain?: number;
  numValid?: number;
  judgeModel?: string;
  /** ALFWorld: environment, validation split, single game, env YAML. */
  alfworldEnv?: 'standin' | 'alfworld';
  alfworldSplit?: 'valid_seen' | 'valid_unseen';
  gameFile?: string;
  envConfig?: string;
  /** LLB: task family, train / validation data files, turns per episode. */
  llbTask?: 'db' | 'os';
  llbSplitFile?: string;
  llbValidFile?: string;
  maxSteps?: number;
  /** Shared response cache directory (--cache, memrl.cache_dir); named after the flag, as commander names it. */
  cache?: string;
  /** Spending limits (memrl.budget.usd / tokens) and the price table (memrl.prices). */
  budgetUsd?: number;
  budgetTokens?: number;
  prices?: string;
  /** Re-run a recorded run from its cache, offline (not a config key). */
  replay?: string;
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
  /** Absolute prompt override directory, or null for the built-in templates. */
  promptDir: string | null;
  /** Absolute shared response-cache directory (memrl.cache_dir, --cache), or null. */
  cacheDir: string | null;
  /** Stop once billed calls reach this (memrl.budget, --budget-usd / --budget-tokens); null = no limit. */
  budgetUsd: number | null;
  budgetTokens: number | null;
  /** Absolute user price table merged over the built-in one (memrl.prices, --prices), or null. */
  pricesFile: string | null;
}

export interface EvaluatorSettings {
  backend: 'local' | 'docker';
  bcbMode: 'reference' | 'calibrated';
  evalTimeoutS: number;
  hardTimeoutS: number;
  docker: DockerSettings;
}

/** The container backend (memrl.evaluator.docker). */
export interface DockerSettings {
  /** Engine address, or null for DOCKER_HOST / the usual sockets. */
  host: string | null;
  images: { bcb: string; llbDb: string; llbOs: string; alfworld: string };
  memoryMb: number;
  pids: number;
  pull: 'missing' | 'never';
}

export interface BcbSettings {
  subset: 'full' | 'hard';
  split: 'instruct' | 'complete';
  /** Absolute path, or null for the shared BigCodeBench data. */
  dataPath: string | null;
  /** Absolute split JSON, or null for a seeded split with trainRatio. */
  splitFile: string | null;
  trainRatio: number;
  /** Character budget of the injected memory context; null = unlimited. */
  memoryBudget: number | null;
}

/** The judge is a chat model of its own, configured like `llm`. */
export type HleJudgeSettings = Pick<LlmSettings, 'provider' | 'model' | 'apiKey' | 'baseUrl' | 'apiVersion' | 'temperature' | 'maxTokens'>;

export interface HleSettings {
  /** Absolute path of the questions Parquet file, or null when not given. */
  trainPath: string | null;
  /** Absolute path of a separate validation file, or null (split the train file). */
  validPath: string | null;
  /** Category names to keep; null = all. */
  categories: string[] | null;
  /** Per-category sampling ratio (experiment.hle_category_ratio); 1 = all. */
  categoryRatio: number;
  /** experiment.dataset_ratio. */
  datasetRatio: number;
  /** experiment.train_valid_split: per-category train fraction. */
  trainValidSplit: number;
  numTrain: number | null;
  numValid: number | null;
  judge: HleJudgeSettings;
}

export interface AlfworldSettings {
  env: 'standin' | 'alfworld';
  /** Why this env (a key, a flag, or the quickstart default). */
  envReason: string;
  validSplit: 'valid_seen' | 'valid_unseen';
  /** Absolute path of ALFWorld's environment YAML (environment.alfworld_config_path). */
  envConfigPath: string;
  envType: string;
  /** Absolute path of the few-shot examples file. */
  fewShotPath: string;
  gameFile: string | null;
  gamesPerType: { train?: number; valid_seen?: number; valid_unseen?: number };
  datasetRatio: number;
  python: string;
  bridgeTimeoutS: number;
}

export interface LlbSettings {
  task: 'db' | 'os';
  /** Absolute path of the training data file (experiment.split_file, else the shared train file of `task`). */
  splitFile: string;
  /** Absolute path of the validation data file (experiment.valid_file, else the shared val file of `task`). */
  validFile: string;
}

export interface ResolvedConfig {
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
  bcb: BcbSettings;
  hle: HleSettings;
  alfworld: AlfworldSettings;
  llb: LlbSettings;
  /** The full validated tree (defaults < benchmark defaults < YAML < flags). Holds secrets: redact before printing. */
  config: MemrlConfig;
  /** Human notes about the resolution (placeholders replaced, simulator in use, ...). */
  notes: string[];
  /** Inert keys the file sets (accepted, no effect), with the reason. */
  inertKeys: { key: string; reason: string }[];
  /** Keys the file sets that this benchmark does not read. */
  unreadKeys: string[];
}
