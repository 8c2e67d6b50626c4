/**
 * Humanity's Last Exam's configuration: its memrl.hle section (data files, caps, the
 * judge), the reference's defaults for it (rl_hle_config.yaml), its flags, its settings.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { int, num } from '../../config/coerce.js';
import { resolveEndpoint } from '../../config/credentials.js';
import { decimal, positiveInt, ratio, type FlagDef } from '../../config/flags.js';
import { sectionOf, sharedKeysOf, type MemrlConfig } from '../../config/schema.js';
import type { ConfigLayer, LlmSettings, SettingsContext } from '../../config/types.js';
import { UserError } from '../../util/errors.js';
import { defaultHleTrainPath } from './data-files.js';

/** The reference's judge sampling (HLERunner._hle_judge passes these fixed values). */
export const JUDGE_DEFAULTS = { temperature: 0, maxTokens: 4096 } as const;

export const hleSection = z
  .object({
    train_path: z
      .string()
      .nullable()
      .default(null)
      .describe('HLE: Parquet file of questions (cais/hle schema: id, question, answer, answer_type, category, image); null = the pulled release (memrl data pull hle; gated), else with the sim model the fixture memrl ships. CLI: --train.'),
    valid_path: z
      .string()
      .nullable()
      .default(null)
      .describe('HLE: separate validation Parquet file; when set, the train file is used whole and experiment.train_valid_split is ignored. CLI: --valid.'),
    num_train: int((n) => n.min(1))
      .nullable()
      .default(null)
      .describe('HLE: cap on training questions: the first N, so the first categories as in the reference (one of each category in turn with hle.round-robin=memrl); null = all. CLI: --num-train.'),
    num_valid: int((n) => n.min(1)).nullable().default(null).describe('HLE: cap on validation questions, taken like num_train; null = all. CLI: --num-valid.'),
    judge: z
      .object({
        provider: z.enum(['openai', 'sim']).nullable().default(null).describe('HLE judge: openai or sim; null = the same provider as llm.'),
        api_key: z.string().nullable().default(null).describe('HLE judge API key; null = llm.api_key. Placeholders and ${VAR} work as for llm.api_key.'),
        base_url: z.string().nullable().default(null).describe('HLE judge endpoint; null = llm.base_url.'),
        api_version: z.string().nullable().default(null).describe('HLE judge API version (Azure); null = llm.api_version.'),
        model: z.string().min(1).default('gpt-4o-2024-08-06').describe('HLE judge model (reference: gpt-4o-2024-08-06). CLI: --judge-model.'),
        temperature: num(z.number().min(0).max(2)).default(JUDGE_DEFAULTS.temperature).describe('HLE judge sampling temperature (reference: 0).'),
        max_tokens: int((n) => n.positive()).nullable().default(JUDGE_DEFAULTS.maxTokens).describe('HLE judge maximum completion tokens (reference: 4096); null = the endpoint default.'),
      })
      .strict()
      .default({}),
  })
  .strict();

type HleSection = z.output<typeof hleSection>;

/** rl_hle_config.yaml (the HLE runner itself fixes the initial Q at 1.0 / 0.0). */
export const hleDefaults: ConfigLayer = {
  llm: { model: 'gemini-3-pro', temperature: 0.6, max_tokens: 65536 },
  embedding: { max_text_len: 4096 },
  memory: {
    k_retrieve: 5,
    add_similarity_threshold: 0.9,
    sim_norm_mean: 0.1856827586889267,
    sim_norm_std: 0.09407906234264374,
  },
  experiment: {
    experiment_name: 'hle_memrl',
    enable_value_driven: true,
    num_sections: 10,
    batch_size: 32,
    dataset_ratio: 1.0,
    train_valid_split: 1.0,
  },
  rl_config: { epsilon: 0, topk: 3, q_min_threshold: -10, sim_threshold: 0.5, tau: 0.25 },
};

/**
 * `--profile paper` for HLE: rl_hle_config.yaml's solver (gemini-3-pro at temperature 0.6,
 * 65536 tokens), the reference's gpt-4o judge at temperature 0, 10 epochs over every
 * question with no validation split (the paper reports training CSR and last accuracy).
 */
export const hlePaperProfile: ConfigLayer = {
  llm: { model: 'gemini-3-pro', temperature: 0.6, max_tokens: 65536 },
  embedding: { max_text_len: 4096 },
  experiment: { num_sections: 10, batch_size: 32, dataset_ratio: 1.0, train_valid_split: 1.0 },
  memrl: { hle: { judge: { model: 'gpt-4o-2024-08-06', temperature: JUDGE_DEFAULTS.temperature, max_tokens: JUDGE_DEFAULTS.maxTokens } } },
};

/** The reference's hle runner flags (it spells them in snake_case). */
export const hleFlags: readonly FlagDef[] = [
  {
    flags: '--train <path>',
    description: 'HLE questions as Parquet (cais/hle schema; snappy or zstd) (default: memrl.hle.train_path, else the pulled release (memrl data pull hle), else with --model sim the fixture memrl ships)',
    path: ['memrl', 'hle', 'train_path'],
  },
  {
    flags: '--valid <path>',
    description: 'separate validation Parquet file; the train file is then used whole (default: memrl.hle.valid_path, else a per-category split of --train by experiment.train_valid_split)',
    path: ['memrl', 'hle', 'valid_path'],
  },
  {
    flags: '--categories <names...>',
    description:
      'keep only these categories, e.g. --categories Math Physics "Computer Science/AI" (commas also separate) (default: the eight HLE categories as in the reference; experiment.hle_categories, else all, with --fidelity-switch hle.category-defaults=memrl)',
    transform: (v) => (v as string[]).flatMap((c) => c.split(',')).map((c) => c.trim()).filter(Boolean),
    path: ['experiment', 'hle_categories'],
  },
  {
    flags: '--category-ratio <x>',
    description: 'seeded sample of this fraction of each category (default: 1 as in the reference; experiment.hle_category_ratio, else 1, with --fidelity-switch hle.category-defaults=memrl)',
    parse: ratio,
    snake: '--category_ratio',
    path: ['experiment', 'hle_category_ratio'],
  },
  {
    flags: '--dataset-ratio <x>',
    description: 'fraction of the (filtered) data used, sampled per category (default: experiment.dataset_ratio, else 1)',
    parse: ratio,
    snake: '--dataset_ratio',
    path: ['experiment', 'dataset_ratio'],
  },
  {
    flags: '--train-valid-split <x>',
    description: 'per-category train fraction; the rest is validation (default: experiment.train_valid_split, else 1 = no validation)',
    parse: decimal((n) => n >= 0 && n <= 1, 'a number between 0 and 1'),
    snake: '--train_valid_split',
    path: ['experiment', 'train_valid_split'],
  },
  { flags: '--num-train <n>', description: 'cap on training questions: the first N, category after category (round-robin with hle.round-robin=memrl) (default: memrl.hle.num_train, else all)', parse: positiveInt, snake: '--num_train', path: ['memrl', 'hle', 'num_train'] },
  { flags: '--num-valid <n>', description: 'cap on validation questions, taken like --num-train (default: memrl.hle.num_valid, else all)', parse: positiveInt, snake: '--num_valid', path: ['memrl', 'hle', 'num_valid'] },
  {
    flags: '--judge-model <name>',
    description: 'model of the judge that grades answers (default: memrl.hle.judge.model, else gpt-4o-2024-08-06; sim when the provider is sim)',
    snake: '--judge_model',
    path: ['memrl', 'hle', 'judge', 'model'],
  },
];

/** The judge is a chat model of its own, configured like `llm`. */
export type HleJudgeSettings = Pick<LlmSettings, 'provider' | 'model' | 'apiKey' | 'baseUrl' | 'apiVersion' | 'temperature' | 'maxTokens'>;

export interface HleSettings {
  /** Absolute path of the questions Parquet file: given, pulled, or (sim only) the fixture; null when there is none. */
  trainPath: string | null;
  /** Absolute path of a separate validation file, or null (split the train file). */
  validPath: string | null;
  /** Category names to keep; null = all. */
  categories: string[] | null;
  /** Per-category sampling ratio (experiment.hle_category_ratio); 1 = all. */
  categoryRatio: number;
  /**
   * Whether --categories / --category-ratio set them. The reference reads them only
   * from its command line (switch hle.category-defaults): its CLI defaults always win over the YAML.
   */
  fromFlags: { categories: boolean; categoryRatio: boolean };
  /** experiment.dataset_ratio. */
  datasetRatio: number;
  /** experiment.train_valid_split: per-category train fraction. */
  trainValidSplit: number;
  numTrain: number | null;
  numValid: number | null;
  judge: HleJudgeSettings;
  /** The agent's client settings the judge shares (timeout, retries, when to stop on failures, rate limit per endpoint, the simulator's seed). */
  client: Pick<LlmSettings, 'timeoutMs' | 'maxRetries' | 'stopAfterFailures' | 'rateLimit' | 'simSeed'>;
}

/** The reference's experiment keys only HLE reads (after bon, as in its MempConfig). */
export const HLE_EXPERIMENT_KEYS = {
  hle_categories: z.array(z.string()).nullable().default(null).describe('HLE: keep only these categories; null = all.'),
  hle_category_ratio: num(z.number().gt(0).max(1)).nullable().default(null).describe('HLE: per-category sampling ratio; null = 1.'),
  train_valid_split: num(z.number().min(0).max(1)).default(0.8).describe('HLE: fraction of each category used for training.'),
};

/**
 * Data files, filters and the judge endpoint. The judge defaults to the chat model's
 * provider and endpoint (so a sim run has a sim judge), with its own model
 * (gpt-4o-2024-08-06) and temperature 0 as in the reference.
 */
export function resolveHleSettings(cfg: MemrlConfig, ctx: SettingsContext): HleSettings {
  const hle = sectionOf<HleSection>(cfg, 'hle');
  const exp = sharedKeysOf(cfg, 'experiment', HLE_EXPERIMENT_KEYS);
  const j = hle.judge;
  const provider = j.provider ?? cfg.llm.provider;
  const endpoint = resolveEndpoint('memrl.hle.judge', j.api_key ?? cfg.llm.api_key, j.base_url ?? cfg.llm.base_url, ctx.env);
  if (provider === 'openai') for (const n of endpoint.notes) ctx.note(n);
  if (provider === 'openai' && !ctx.inspect && endpoint.apiKey === null) {
    throw new UserError(
      `${ctx.where(['memrl', 'hle', 'judge', 'api_key'])}: the HLE judge has no API key (placeholder and OPENAI_API_KEY is not set); export OPENAI_API_KEY, set memrl.hle.judge.api_key (or llm.api_key), or use memrl.hle.judge.provider sim to run offline`,
      'missing_api_key',
    );
  }
  return {
    trainPath: hle.train_path ? resolve(ctx.cwd, hle.train_path) : defaultHleTrainPath(cfg.llm.provider === 'sim'),
    validPath: hle.valid_path ? resolve(ctx.cwd, hle.valid_path) : null,
    categories: exp.hle_categories,
    categoryRatio: exp.hle_category_ratio ?? 1,
    fromFlags: {
      categories: ctx.setBy(['experiment', 'hle_categories']) !== undefined,
      categoryRatio: ctx.setBy(['experiment', 'hle_category_ratio']) !== undefined,
    },
    datasetRatio: cfg.experiment.dataset_ratio,
    trainValidSplit: exp.train_valid_split,
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
    client: { timeoutMs: ctx.llm.timeoutMs, maxRetries: ctx.llm.maxRetries, stopAfterFailures: ctx.llm.stopAfterFailures, rateLimit: ctx.llm.rateLimit, simSeed: ctx.llm.simSeed },
  };
}

/** The judge as a full model setting: its own endpoint and sampling, the agent's client limits. */
export function hleJudge(s: HleSettings): LlmSettings {
  return { ...s.judge, ...s.client };
}
