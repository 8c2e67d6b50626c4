/**
 * LifelongAgentBench's configuration. It has no memrl.llb section: the reference keeps
 * its LLB settings in `experiment` (task, split_file, valid_file, the llb_* options),
 * so this module claims those keys, and adds the reference's defaults
 * (rl_llb_config.yaml), its flags and its settings.
 */
import { basename, isAbsolute, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { bool, num } from '../../config/coerce.js';
import { positiveInt, type FlagDef } from '../../config/flags.js';
import { sharedKeysOf, type MemrlConfig } from '../../config/schema.js';
import type { ConfigLayer, SettingsContext } from '../../config/types.js';
import type { MemoryParams } from '../../memory/types.js';
import { UserError } from '../../util/errors.js';
import type { Fidelity } from '../../util/fidelity.js';
import { isLlbFileName, llbFilePath } from './data-files.js';
import { LLB_SWITCHES, REFERENCE_SIM_NORM } from './switches.js';

/** The reference's experiment keys only LLB reads (after mode, as in its MempConfig). */
export const LLB_EXPERIMENT_KEYS = {
  trace_jsonl_path: z.string().nullable().default(null).describe('Inert: LLB JSONL tracing in the reference; memrl writes per-episode records anyway.'),
  trace_sample_filter: z.string().nullable().default(null).describe('Inert: see trace_jsonl_path.'),
  llb_use_z_score_normalization: bool().default(true).describe('LLB: false = score raw sim and q instead of z-scores.'),
  llb_q_floor: num().nullable().default(null).describe('LLB: Q floor; overrides rl_config.q_floor for LLB runs.'),
  llb_dedup_by_task_id: bool().default(false).describe('LLB: at most one selected memory per source task.'),
  task: z.enum(['db', 'os', 'kg']).default('db').describe('LLB: which task family (db = SQL, os = shell).'),
  split_file: z.string().default('').describe('LLB: training data file; empty = the shared data for `task`.'),
  valid_file: z.string().nullable().default(null).describe('LLB: validation data file; null = the shared data for `task`.'),
};

/** LLB's keys of the experiment section, as validated. */
export function llbExperiment(tree: MemrlConfig) {
  return sharedKeysOf(tree, 'experiment', LLB_EXPERIMENT_KEYS);
}

/** rl_llb_config.yaml */
export const llbDefaults: ConfigLayer = {
  llm: { model: 'gpt-4o-mini', temperature: 0, max_tokens: 10240 },
  embedding: { max_text_len: 8196 },
  memory: { k_retrieve: 10, add_similarity_threshold: 0.99, sim_norm_mean: 0.39, sim_norm_std: 0.14 },
  experiment: {
    experiment_name: 'llb_memrl',
    algorithm: 'rl',
    enable_value_driven: true,
    val_before_train: false,
    llb_use_z_score_normalization: true,
    llb_q_floor: 0,
    llb_dedup_by_task_id: false,
    task: 'os',
    num_sections: 20,
    batch_size: 5,
    max_steps: 15,
    valid_interval: 0,
    dataset_ratio: 1.0,
  },
  rl_config: {
    epsilon: 0.01,
    topk: 5,
    q_min_threshold: -0.8,
    q_init_pos: 0.5,
    q_init_neg: 0.5,
    success_reward: 1,
    failure_reward: 0,
    sim_threshold: 0.5,
  },
};

/**
 * `--profile paper` for LLB: rl_llb_config.yaml's model and limits, 20 epochs of
 * mini-batches of 5, at most 15 rounds, and the validation set scored after every epoch
 * (the paper's 0.746 is OS validation). The task family stays the user's (--task).
 */
export const llbPaperProfile: ConfigLayer = {
  llm: { model: 'gpt-4o-mini', temperature: 0, max_tokens: 10240 },
  embedding: { max_text_len: 8196 },
  experiment: { num_sections: 20, batch_size: 5, max_steps: 15, dataset_ratio: 1.0 },
  memrl: { run_validation: true },
};

export const llbFlags: readonly FlagDef[] = [
  { flags: '--task <name>', description: 'LifelongAgentBench task family: db (SQL on MariaDB) or os (shell in a sandbox) (default: experiment.task, else db)', choices: ['db', 'os'], path: ['experiment', 'task'] },
  {
    flags: '--split-file <path>',
    description: 'training data: an LLB JSON file keyed by sample index (default: experiment.split_file, else the pulled release\'s db_train.json / os_interaction_train.json)',
    snake: '--split_file',
    path: ['experiment', 'split_file'],
  },
  {
    flags: '--valid-file <path>',
    description: 'validation data file (default: experiment.valid_file, else the pulled release\'s db_val.json / os_interaction_val.json)',
    snake: '--valid_file',
    path: ['experiment', 'valid_file'],
  },
  { flags: '--max-steps <n>', description: 'rounds per episode (default: experiment.max_steps, else 15 for LLB)', parse: positiveInt, snake: '--max_steps', path: ['experiment', 'max_steps'] },
];

/** LLB-only reference keys. */
export const LLB_KEYS = [
  'experiment.task',
  'experiment.split_file',
  'experiment.valid_file',
  'experiment.valid_interval',
  'experiment.llb_use_z_score_normalization',
  'experiment.llb_q_floor',
  'experiment.llb_dedup_by_task_id',
  'experiment.max_steps',
  'experiment.dataset_ratio',
];

export interface LlbSettings {
  task: 'db' | 'os';
  /** Absolute path of the training data file (experiment.split_file, else the release's train file of `task`). */
  splitFile: string;
  /** Absolute path of the validation data file (experiment.valid_file, else the release's val file of `task`). */
  validFile: string;
  /**
   * experiment.dataset_ratio: below 1, the training tasks are Python's
   * random.sample(sorted keys, int(n · ratio)) under experiment.random_seed, in the
   * order drawn, the same every epoch (as run/run_llb.py passes it to LLBRunner as
   * train_set_ratio).
   */
  datasetRatio: number;
}

const LLB_SHARED = {
  db: { train: 'db_train.json', valid: 'db_val.json' },
  os: { train: 'os_interaction_train.json', valid: 'os_interaction_val.json' },
} as const;

/**
 * Data files: experiment.split_file / valid_file (relative to the working directory;
 * a relative path that does not exist there falls back to the release's file of the
 * same name, so the reference's `./data/...` paths work), else the release's train /
 * val files of experiment.task (memrl data pull llb).
 */
export function resolveLlbSettings(cfg: MemrlConfig, ctx: SettingsContext): LlbSettings {
  const exp = llbExperiment(cfg);
  if (exp.task === 'kg') {
    throw new UserError(`${ctx.where(['experiment', 'task'])}: \`experiment.task: kg\` is not available; LifelongAgentBench data here covers db and os`);
  }
  const task = exp.task === 'os' ? 'os' : 'db';
  const pick = (given: string | null, fallback: string): string => {
    if (given === null || given.trim() === '') return llbFilePath(fallback);
    const local = resolve(ctx.cwd, given);
    if (existsSync(local) || isAbsolute(given)) return local;
    // The reference's ./data/llb/<name>: the release's file of that name, wherever memrl keeps it.
    return isLlbFileName(basename(given)) && existsSync(llbFilePath(basename(given))) ? llbFilePath(basename(given)) : local;
  };
  return {
    task,
    splitFile: pick(exp.split_file, LLB_SHARED[task].train),
    validFile: pick(exp.valid_file, LLB_SHARED[task].valid),
    datasetRatio: cfg.experiment.dataset_ratio,
  };
}

/**
 * The reference's LLB options on the engine: raw or z-scored scores, its own Q floor,
 * one memory per source task; and the similarity normalisation it really runs with
 * (switch llb.sim-norm-from-yaml: the config's memory.sim_norm_mean / std).
 */
export function llbMemoryParams(params: MemoryParams, cfg: MemrlConfig, fidelity: Fidelity): MemoryParams {
  const exp = llbExperiment(cfg);
  const simNorm = fidelity.memrl(LLB_SWITCHES.simNormFromYaml) ? {} : { simNormMean: REFERENCE_SIM_NORM.mean, simNormStd: REFERENCE_SIM_NORM.std };
  return {
    ...params,
    ...simNorm,
    zScore: exp.llb_use_z_score_normalization,
    dedupByTaskId: exp.llb_dedup_by_task_id,
    // experiment.llb_q_floor overrides rl_config.q_floor.
    qFloor: exp.llb_q_floor !== null ? exp.llb_q_floor : params.qFloor,
  };
}
