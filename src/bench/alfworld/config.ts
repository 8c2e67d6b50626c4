/**
 * ALFWorld's configuration: its memrl.alfworld section, the reference's defaults for
 * it (rl_alf_config.yaml), its flags and its settings.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { int, num } from '../../config/coerce.js';
import { ratio, type FlagDef } from '../../config/flags.js';
import { sectionOf, sharedKeysOf, type MemrlConfig } from '../../config/schema.js';
import type { ConfigLayer, SettingsContext } from '../../config/types.js';
import { defaultFewShotPath } from './data-files.js';

/** The real ALFWorld image (memrl.evaluator.docker.images.alfworld's default) and the small stand-in image. */
export const REAL_ALFWORLD_IMAGE = 'memrl/alfworld:latest';
export const STANDIN_IMAGE = 'memrl/alfworld-standin:latest';

export const alfworldSection = z
  .object({
    env: z
      .enum(['standin', 'alfworld'])
      .nullable()
      .default(null)
      .describe(
        'ALFWorld: standin = the offline household stand-in (labelled household-standin, never ALFWorld); alfworld = the real package through the bridge. null = standin for the built-in quickstart, alfworld for a config file. CLI: --env.',
      ),
    valid_split: z.enum(['valid_seen', 'valid_unseen']).default('valid_seen').describe('ALFWorld: validation games (valid_seen = in distribution, as the paper). CLI: --split.'),
    game_file: z.string().nullable().default(null).describe('ALFWorld: play only this game file (a debugging aid); null = the whole train split. CLI: --game-file.'),
    games_per_type: z
      .object({
        train: int((n) => n.min(0)).nullable().default(null),
        valid_seen: int((n) => n.min(0)).nullable().default(null),
        valid_unseen: int((n) => n.min(0)).nullable().default(null),
      })
      .strict()
      .default({})
      .describe('Stand-in only: games generated per task type per split; null = 20 / 4 / 4.'),
    python: z.string().min(1).default('python3').describe('ALFWorld: Python interpreter that runs the bridge (the one with alfworld installed).'),
    bridge_timeout: num(z.number().positive())
      .default(120)
      .describe('ALFWorld: seconds a bridge request may take before the bridge is killed, restarted and the episode recorded as an error.'),
  })
  .strict();

type AlfworldSection = z.output<typeof alfworldSection>;

/** rl_alf_config.yaml */
export const alfworldDefaults: ConfigLayer = {
  llm: { model: 'gpt-5-mini', temperature: 0, max_tokens: 4096 },
  embedding: { max_text_len: 4096 },
  memory: { k_retrieve: 5, add_similarity_threshold: 0.9, sim_norm_mean: 0.5187, sim_norm_std: 0.1203 },
  experiment: {
    experiment_name: 'alfworld_memrl',
    enable_value_driven: true,
    num_sections: 10,
    batch_size: 32,
    max_steps: 30,
    dataset_ratio: 1.0,
  },
  rl_config: { epsilon: 0, topk: 3, q_min_threshold: -10, q_init_pos: 0, q_init_neg: 0, sim_threshold: 0.5 },
};

/**
 * `--profile paper` for ALFWorld: rl_alf_config.yaml's model and limits, the real
 * environment (never the stand-in), 10 epochs of batches of 32 over the same games, at
 * most 30 actions; validation as the reference's runner does it (valid_seen before
 * training). The paper's numbers are the training epochs' last accuracy and CSR.
 */
export const alfworldPaperProfile: ConfigLayer = {
  llm: { model: 'gpt-5-mini', temperature: 0, max_tokens: 4096 },
  embedding: { max_text_len: 4096 },
  experiment: { num_sections: 10, batch_size: 32, max_steps: 30, dataset_ratio: 1.0 },
  memrl: { alfworld: { env: 'alfworld', valid_split: 'valid_seen' } },
};

export const alfworldFlags: readonly FlagDef[] = [
  {
    flags: '--env <name>',
    description:
      'standin = the offline household stand-in (runs say env: household-standin, never ALFWorld); alfworld = the real package via the Python bridge (default: memrl.alfworld.env, else standin without --config and alfworld with one)',
    choices: ['standin', 'alfworld'],
    path: ['memrl', 'alfworld', 'env'],
  },
  { flags: '--split <name>', description: 'validation games (default: memrl.alfworld.valid_split, else valid_seen)', choices: ['valid_seen', 'valid_unseen'], path: ['memrl', 'alfworld', 'valid_split'] },
  {
    flags: '--game-file <path>',
    description: 'play only this game file, for debugging (default: memrl.alfworld.game_file, else the whole train split)',
    snake: '--game_file',
    path: ['memrl', 'alfworld', 'game_file'],
  },
  {
    flags: '--env-config <yaml>',
    description: "ALFWorld's environment YAML, passed through to the package (default: environment.alfworld_config_path)",
    snake: '--env_config',
    path: ['environment', 'alfworld_config_path'],
  },
  {
    flags: '--dataset-ratio <x>',
    description: 'seeded fraction of the train games used (default: experiment.dataset_ratio, else 1)',
    parse: ratio,
    snake: '--dataset_ratio',
    path: ['experiment', 'dataset_ratio'],
  },
];

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

/** The reference's experiment key only ALFWorld reads (after dataset_ratio, as in its MempConfig). */
export const ALFWORLD_EXPERIMENT_KEYS = {
  few_shot_path: z.string().default('data/alfworld/alfworld_examples.json').describe('ALFWorld: few-shot examples file.'),
};

/** The reference's environment section, all ALFWorld's. */
export const ALFWORLD_ENVIRONMENT_KEYS = {
  alfworld_config_path: z.string().default('configs/base_config.yaml').describe('ALFWorld: path of the alfworld base config.'),
  alfworld_env_type: z.string().default('AlfredTWEnv').describe('ALFWorld: environment class (AlfredTWEnv = text).'),
};

/**
 * Which environment (an explicit key or --env wins; otherwise the offline stand-in
 * for the built-in quickstart and the real package for a config file), the env YAML
 * passed through to ALFWorld, and the few-shot examples file (the reference's
 * relative path falls back to the pulled release, and for the stand-in to memrl's own).
 */
export function resolveAlfworldSettings(cfg: MemrlConfig, ctx: SettingsContext): AlfworldSettings {
  const a = sectionOf<AlfworldSection>(cfg, 'alfworld');
  const env = a.env ?? (ctx.quickstart ? 'standin' : 'alfworld');
  const envReason = ctx.setBy(['memrl', 'alfworld', 'env'])
    ? '--env'
    : a.env
      ? 'memrl.alfworld.env'
      : ctx.quickstart
        ? 'the built-in quickstart runs offline'
        : 'a config file runs the real ALFWorld unless memrl.alfworld.env is standin';
  const fewShot = resolve(ctx.cwd, sharedKeysOf(cfg, 'experiment', ALFWORLD_EXPERIMENT_KEYS).few_shot_path);
  const environment = sharedKeysOf(cfg, 'environment', ALFWORLD_ENVIRONMENT_KEYS);
  const gpt: AlfworldSettings['gamesPerType'] = {};
  for (const k of ['train', 'valid_seen', 'valid_unseen'] as const) {
    const v = a.games_per_type[k];
    if (v !== null) gpt[k] = v;
  }
  return {
    env,
    envReason,
    validSplit: a.valid_split,
    envConfigPath: resolve(ctx.cwd, environment.alfworld_config_path),
    envType: environment.alfworld_env_type,
    fewShotPath: existsSync(fewShot) ? fewShot : defaultFewShotPath(env === 'standin'),
    gameFile: a.game_file,
    gamesPerType: gpt,
    datasetRatio: cfg.experiment.dataset_ratio,
    python: a.python,
    bridgeTimeoutS: a.bridge_timeout,
  };
}
