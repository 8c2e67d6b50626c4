/**
 * BigCodeBench's configuration: its memrl.bcb section, the reference's defaults for
 * it (rl_bcb_config.yaml and run_bcb.py), its flags, and its settings.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { bool, int, num } from '../../config/coerce.js';
import { decimal, nonNegativeInt, type FlagDef } from '../../config/flags.js';
import { sectionOf, sharedKeysOf, type MemrlConfig } from '../../config/schema.js';
import type { ConfigLayer, EvaluatorSettings, SettingsContext } from '../../config/types.js';
import { locate, samplePath } from '../../data/locations.js';
import { bcbFile, BCB_SPLIT_FILES, BCB_TASKS_FILE } from './data-files.js';

/** The BCB test image (memrl.evaluator.docker.images.bcb's default). */
export const BCB_IMAGE = 'memrl/bcb:latest';

export const bcbSection = z
  .object({
    subset: z.enum(['full', 'hard']).default('full').describe('BCB: full (1140 tasks, the reference\'s default) or hard (148). CLI: --subset.'),
    split: z.enum(['instruct', 'complete']).default('instruct').describe('BCB: which prompt the model sees. CLI: --split.'),
    data_path: z.string().nullable().default(null).describe('BCB: tasks JSONL(.gz); null = the pulled release (memrl data pull bcb), else the embedded sample. CLI: --data-path.'),
    split_file: z
      .string()
      .nullable()
      .default(null)
      .describe(
        'BCB: split JSON {train_ids, val_ids}. null = the paper\'s split for the subset (full_seed123 / hard_seed42) unless train_ratio is set; "" or "none" = seeded split. CLI: --split-file.',
      ),
    train_ratio: num(z.number().gt(0).lt(1))
      .nullable()
      .default(null)
      .describe('BCB: train fraction of the seeded split used when there is no split file; null = 0.7. Setting it selects the seeded split. CLI: --train-ratio.'),
    memory_budget: int((n) => n.min(0))
      .nullable()
      .default(2000)
      .describe('BCB: character budget of the injected memory context, shared by the injected memories (reference: 2000, which it calls memory_budget_tokens); null = no limit. CLI: --memory-budget.'),
  })
  .strict();

type BcbSection = z.output<typeof bcbSection>;

/** The reference's experiment key only BCB reads (after log_level, as in its MempConfig). */
export const BCB_EXPERIMENT_KEYS = {
  bcb_run_validation: bool().default(false).describe('BCB: also evaluate the held-out split after every epoch (read-only memory). CLI: --run-validation.'),
};

export type BcbMode = 'reference' | 'calibrated';

/** BCB's evaluator mode, in memrl.evaluator beside the evaluator's other settings (after backend). */
export const BCB_EVALUATOR_KEYS = {
  bcb_mode: z
    .enum(['reference', 'calibrated'])
    .default('reference')
    .describe("BCB: reference = run the solution as generated (MemRL reference); calibrated = prepend code_prompt like BigCodeBench's official evaluator. CLI: --bcb-mode."),
};

/** experiment.bcb_run_validation: validate when memrl.run_validation is null. */
export function bcbRunValidation(tree: MemrlConfig): boolean {
  return sharedKeysOf(tree, 'experiment', BCB_EXPERIMENT_KEYS).bcb_run_validation;
}

/** memrl.evaluator.bcb_mode, as resolved into the evaluator settings. */
export function bcbModeOf(evaluator: EvaluatorSettings): BcbMode {
  return evaluator.bcbMode as BcbMode;
}

/** rl_bcb_config.yaml + run_bcb.py (3 epochs by default; memory flushed every 25 tasks). */
export const bcbDefaults: ConfigLayer = {
  llm: { model: 'gpt-4o-mini', temperature: 0, max_tokens: 12800 },
  embedding: { max_text_len: 8196 },
  memory: { k_retrieve: 5, add_similarity_threshold: 0.9, sim_norm_mean: 0.31, sim_norm_std: 0.1 },
  experiment: {
    experiment_name: 'bcb_memrl',
    algorithm: 'rl',
    enable_value_driven: true,
    val_before_train: false,
    bcb_run_validation: false,
    num_sections: 3,
    batch_size: 25,
  },
  rl_config: { epsilon: 0.1, topk: 5, q_min_threshold: -0.8, q_init_pos: 0, q_init_neg: 0, sim_threshold: 0.5 },
};

/**
 * `--profile paper` for BCB: rl_bcb_config.yaml's model and limits, the reference README's
 * 10 epochs on the instruct prompts, the full subset with the paper's split, and
 * validation on its 342 held-out tasks after every epoch (the paper's 0.508). The runner's
 * test limits (eval 60 s, hard 120 s) give, under bcb.time-limit=reference, the
 * reference's effective 120 s per test run.
 */
export const bcbPaperProfile: ConfigLayer = {
  llm: { model: 'gpt-4o-mini', temperature: 0, max_tokens: 12800 },
  embedding: { max_text_len: 8196 },
  experiment: { num_sections: 10, bcb_run_validation: true },
  memrl: {
    bcb: { subset: 'full', split: 'instruct', split_file: null, train_ratio: null, memory_budget: 2000 },
    evaluator: { bcb_mode: 'reference', eval_timeout: 60, hard_timeout: 120 },
  },
};

/** run_bcb.py's flags, in its spelling. */
export const bcbFlags: readonly FlagDef[] = [
  { flags: '--subset <name>', description: 'BigCodeBench subset (default: memrl.bcb.subset, else full, as in the reference)', choices: ['full', 'hard'], path: ['memrl', 'bcb', 'subset'] },
  { flags: '--split <name>', description: 'prompt variant shown to the model (default: memrl.bcb.split, else instruct)', choices: ['instruct', 'complete'], path: ['memrl', 'bcb', 'split'] },
  {
    flags: '--split-file <path>',
    description: 'split JSON with train_ids/val_ids; "none" = seeded split (default: memrl.bcb.split_file, else the paper\'s split for the subset)',
    snake: '--split_file',
    path: ['memrl', 'bcb', 'split_file'],
  },
  { flags: '--data-path <path>', description: 'BigCodeBench tasks, .jsonl or .jsonl.gz (default: memrl.bcb.data_path, else the pulled release, else the embedded sample)', snake: '--data_path', path: ['memrl', 'bcb', 'data_path'] },
  {
    flags: '--memory-budget <chars>',
    description: 'characters of memory context per prompt, shared by the injected memories (default: memrl.bcb.memory_budget, else 2000)',
    parse: nonNegativeInt,
    // The reference's spelling (run_bcb.py --memory_budget_tokens); it counts characters despite the name.
    snake: '--memory_budget_tokens',
    path: ['memrl', 'bcb', 'memory_budget'],
  },
  {
    flags: '--eval-timeout <s>',
    description: 'test time budget per task in seconds; under the reference\'s limit (bcb.time-limit) only a value above 240 counts (default: memrl.evaluator.eval_timeout, else 60)',
    parse: decimal((n) => n > 0, 'a positive number of seconds'),
    snake: '--eval_timeout',
    path: ['memrl', 'evaluator', 'eval_timeout'],
  },
  {
    flags: '--untrusted-hard-timeout <s>',
    description: 'hard kill of a test run in seconds (default: memrl.evaluator.hard_timeout, else 120)',
    parse: decimal((n) => n > 0, 'a positive number of seconds'),
    snake: '--untrusted_hard_timeout',
    path: ['memrl', 'evaluator', 'hard_timeout'],
  },
  {
    flags: '--train-ratio <x>',
    description: 'train fraction of a seeded split; giving it selects the seeded split unless --split-file is given (default: 0.7)',
    parse: decimal((n) => n > 0 && n < 1, 'a number between 0 and 1 (exclusive)'),
    snake: '--train_ratio',
    path: ['memrl', 'bcb', 'train_ratio'],
  },
  {
    flags: '--bcb-mode <mode>',
    description: "reference = run solutions as generated (MemRL); calibrated = prepend code_prompt like BigCodeBench's evaluator (default: memrl.evaluator.bcb_mode, else reference)",
    choices: ['reference', 'calibrated'],
    path: ['memrl', 'evaluator', 'bcb_mode'],
  },
  {
    flags: '--fork-server',
    description: 'run each test in a child of a warm interpreter, in the sandbox or container (default: memrl.evaluator.fork_server, else on)',
    negatable: 'a fresh interpreter per test (slower, the same verdicts)',
    path: ['memrl', 'evaluator', 'fork_server'],
  },
];

export interface BcbSettings {
  subset: 'full' | 'hard';
  split: 'instruct' | 'complete';
  /** Absolute path, or null for the pulled release (or the embedded sample). */
  dataPath: string | null;
  /** Absolute split JSON, or null for a seeded split with trainRatio. */
  splitFile: string | null;
  trainRatio: number;
  /** Character budget of the injected memory context; null = unlimited. */
  memoryBudget: number | null;
}

const NO_SPLIT_FILE = new Set(['', 'none']);

/** The embedded sample's split, for a run that reads the embedded sample's tasks (docs/data.md). */
function sampleSplit(bcb: BcbSection): string | null {
  if (bcb.data_path !== null || bcb.subset !== 'full' || locate(bcbFile(BCB_TASKS_FILE))) return null;
  return samplePath(bcbFile(BCB_SPLIT_FILES.full));
}

/**
 * The split file: an explicit one wins ("" or "none" = seeded split); otherwise
 * setting train_ratio asks for the seeded split; otherwise the paper's split file for
 * the subset, when there is a copy (with the embedded sample's tasks, the sample's
 * split). (The reference silently ignores --train_ratio whenever its default split file
 * exists; we do not.)
 */
export function resolveBcbSettings(tree: MemrlConfig, ctx: SettingsContext): BcbSettings {
  const bcb = sectionOf<BcbSection>(tree, 'bcb');
  let splitFile: string | null;
  if (bcb.split_file !== null) {
    splitFile = NO_SPLIT_FILE.has(bcb.split_file.trim().toLowerCase()) ? null : resolve(ctx.cwd, bcb.split_file);
  } else if (bcb.train_ratio !== null) {
    splitFile = null;
  } else {
    splitFile = locate(bcbFile(BCB_SPLIT_FILES[bcb.subset]))?.path ?? sampleSplit(bcb) ?? null;
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
