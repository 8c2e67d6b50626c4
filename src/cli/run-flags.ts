/**
 * Flags of `memrl run bcb`: the reference's run_bcb.py flags plus memrl's own.
 *
 * No flag has a commander default: an unset flag must not override the YAML file
 * (precedence is defaults < YAML < flags), so each help line states the effective
 * default in words instead.
 *
 * The reference spells flags in snake_case (--split_file). Those spellings are
 * accepted too: as hidden aliases on the command (so they work however argv
 * reached commander), and normalizeSnakeCaseArgs() rewrites them in argv for
 * callers that prefer to normalise up front. Only known flags are rewritten.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { METHODS } from '../config/schema.js';
import type { RunFlags } from '../config/types.js';

export type { RunFlags } from '../config/types.js';

function integer(min: number, what: string) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!/^\s*[-+]?\d+\s*$/.test(raw) || !Number.isSafeInteger(value) || value < min) throw new InvalidArgumentError(`Expected ${what}.`);
    return value;
  };
}

function decimal(check: (n: number) => boolean, what: string) {
  return (raw: string): number => {
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value) || !check(value)) throw new InvalidArgumentError(`Expected ${what}.`);
    return value;
  };
}

const positiveInt = integer(1, 'a positive integer');
const nonNegativeInt = integer(0, 'an integer >= 0');

interface FlagSpec {
  /** kebab-case long flag with its argument, e.g. '--split-file <path>'. */
  flags: string;
  description: string;
  choices?: readonly string[];
  parse?: (raw: string) => unknown;
  /** snake_case spelling used by the reference's run_bcb.py, if different. */
  snake?: string;
}

const SPECS: readonly FlagSpec[] = [
  { flags: '--config <file>', description: 'YAML config, in the reference\'s format plus an optional memrl: section (default: the built-in quickstart: offline simulator)' },
  { flags: '--subset <name>', description: 'BigCodeBench subset (default: memrl.bcb.subset, else hard)', choices: ['full', 'hard'] },
  { flags: '--split <name>', description: 'prompt variant shown to the model (default: memrl.bcb.split, else instruct)', choices: ['instruct', 'complete'] },
  { flags: '--epochs <n>', description: 'number of epochs (default: experiment.num_sections, else 3)', parse: positiveInt },
  {
    flags: '--split-file <path>',
    description: 'split JSON with train_ids/val_ids; "none" = seeded split (default: memrl.bcb.split_file, else the paper\'s split for the subset)',
    snake: '--split_file',
  },
  { flags: '--data-path <path>', description: 'BigCodeBench tasks, .jsonl or .jsonl.gz (default: memrl.bcb.data_path, else the shared data)', snake: '--data_path' },
  {
    flags: '--retrieve-threshold <x>',
    description: 'Phase A cosine threshold (default: rl_config.sim_threshold, else 0.5)',
    parse: decimal((n) => n >= -1 && n <= 1, 'a number between -1 and 1'),
    snake: '--retrieve_threshold',
  },
  { flags: '--retrieve-k <n>', description: 'k1, keys kept by similarity recall; 0 disables retrieval (default: memory.k_retrieve, else 5)', parse: nonNegativeInt, snake: '--retrieve_k' },
  {
    flags: '--memory-budget <chars>',
    description: 'characters of memory context per prompt, shared by the injected memories (default: memrl.bcb.memory_budget, else 2000)',
    parse: nonNegativeInt,
    snake: '--memory_budget',
  },
  {
    flags: '--eval-timeout <s>',
    description: 'test time budget per task in seconds (default: memrl.evaluator.eval_timeout, else 60)',
    parse: decimal((n) => n > 0, 'a positive number of seconds'),
    snake: '--eval_timeout',
  },
  {
    flags: '--untrusted-hard-timeout <s>',
    description: 'hard kill of a test run in seconds (default: memrl.evaluator.hard_timeout, else 120)',
    parse: decimal((n) => n > 0, 'a positive number of seconds'),
    snake: '--untrusted_hard_timeout',
  },
  { flags: '--output-dir <dir>', description: 'root directory for run outputs (default: experiment.output_dir, else ./results)', snake: '--output_dir' },
  { flags: '--temperature <t>', description: 'sampling temperature, 0..2 (default: llm.temperature, else 0)', parse: decimal((n) => n >= 0 && n <= 2, 'a number between 0 and 2') },
  { flags: '--max-tokens <n>', description: 'maximum completion tokens per call (default: llm.max_tokens, else 12800)', parse: positiveInt, snake: '--max_tokens' },
  {
    flags: '--train-ratio <x>',
    description: 'train fraction of a seeded split; giving it selects the seeded split unless --split-file is given (default: 0.7)',
    parse: decimal((n) => n > 0 && n < 1, 'a number between 0 and 1 (exclusive)'),
    snake: '--train_ratio',
  },
  { flags: '--seed <n>', description: 'seed of every random choice (default: experiment.random_seed, else 42)', parse: nonNegativeInt },
  {
    flags: '--method <name>',
    description: 'memory method to run (default: memrl.method, else derived from experiment.algorithm, enable_value_driven and baseline_mode, normally memrl)',
    choices: METHODS,
  },
  { flags: '--concurrency <n>', description: 'episodes run at once inside a batch; results do not depend on it (default: memrl.concurrency, else 4)', parse: positiveInt },
  { flags: '--limit <n>', description: 'use only the first N training and N validation tasks (default: memrl.limit, else all)', parse: positiveInt },
  { flags: '--run-validation', description: 'also score the held-out split after every epoch (default: experiment.bcb_run_validation, else off)' },
  { flags: '--no-run-validation', description: 'train phase only, even if the config enables validation' },
  { flags: '--resume <run-dir>', description: 'continue an interrupted run from its last epoch snapshot (default: a new run)' },
  { flags: '--evaluator <backend>', description: 'where tests run: local = bubblewrap sandbox, docker = container (default: memrl.evaluator.backend, else local)', choices: ['local', 'docker'] },
  { flags: '--docker-host <url>', description: 'container engine for --evaluator docker, e.g. unix:///run/podman/podman.sock or tcp://host:2375 (default: memrl.evaluator.docker.host, else DOCKER_HOST, else the usual sockets)' },
  {
    flags: '--bcb-mode <mode>',
    description: 'reference = run solutions as generated (MemRL); calibrated = prepend code_prompt like BigCodeBench\'s evaluator (default: memrl.evaluator.bcb_mode, else reference)',
    choices: ['reference', 'calibrated'],
  },
  { flags: '--batch-size <n>', description: 'tasks per memory-commit batch (default: experiment.batch_size, else 25 for BCB)', parse: positiveInt },
  { flags: '--cache <dir>', description: 'shared response cache for chat and embeddings, read before and written after each call (default: memrl.cache_dir, else none)' },
  {
    flags: '--replay <run-dir>',
    description: 're-run a recorded run offline from <run-dir>/cache: zero network calls, a missing reply stops the run; give the original flags (default: a live run)',
  },
  {
    flags: '--budget-usd <x>',
    description: 'stop (resumably) once billed model calls cost this many US dollars, counted over every attempt of the run; resume with a larger value (default: memrl.budget.usd, else no limit)',
    parse: decimal((n) => n > 0, 'a positive number of US dollars'),
  },
  {
    flags: '--budget-tokens <n>',
    description: 'stop (resumably) once billed model calls used this many tokens (every role and embeddings; cache hits excluded), over every attempt (default: memrl.budget.tokens, else no limit)',
    parse: positiveInt,
  },
  { flags: '--prices <file>', description: 'price table (USD per 1M tokens per model) merged over the built-in src/llm/prices.yaml (default: memrl.prices, else the built-in table)' },
];

/** BCB flags that `memrl run hle` shares (same meaning, same config key). */
const SHARED_WITH_HLE = new Set([
  '--config', '--epochs', '--retrieve-threshold', '--retrieve-k', '--output-dir', '--temperature', '--max-tokens',
  '--seed', '--method', '--concurrency', '--limit', '--run-validation', '--no-run-validation', '--resume', '--batch-size',
  '--cache', '--replay', '--budget-usd', '--budget-tokens', '--prices',
]);

const ratio = decimal((n) => n > 0 && n <= 1, 'a number in (0, 1]');

/** `memrl run hle`'s own flags (the reference's hle runner spells them in snake_case). */
const HLE_SPECS: readonly FlagSpec[] = [
  { flags: '--train <path>', description: 'HLE questions as Parquet (cais/hle schema; snappy or zstd) (default: memrl.hle.train_path; required)' },
  {
    flags: '--valid <path>',
    description: 'separate validation Parquet file; the train file is then used whole (default: memrl.hle.valid_path, else a per-category split of --train by experiment.train_valid_split)',
  },
  {
    flags: '--categories <names...>',
    description: 'keep only these categories, e.g. --categories Math Physics "Computer Science/AI" (commas also separate) (default: experiment.hle_categories, else all)',
  },
  {
    flags: '--category-ratio <x>',
    description: 'seeded sample of this fraction of each category (default: experiment.hle_category_ratio, else 1)',
    parse: ratio,
    snake: '--category_ratio',
  },
  { flags: '--dataset-ratio <x>', description: 'fraction of the (filtered) data used, sampled per category (default: experiment.dataset_ratio, else 1)', parse: ratio, snake: '--dataset_ratio' },
  {
    flags: '--train-valid-split <x>',
    description: 'per-category train fraction; the rest is validation (default: experiment.train_valid_split, else 1 = no validation)',
    parse: decimal((n) => n >= 0 && n <= 1, 'a number between 0 and 1'),
    snake: '--train_valid_split',
  },
  { flags: '--num-train <n>', description: 'cap on training questions, taken round-robin across categories (default: memrl.hle.num_train, else all)', parse: positiveInt, snake: '--num_train' },
  { flags: '--num-valid <n>', description: 'cap on validation questions, round-robin across categories (default: memrl.hle.num_valid, else all)', parse: positiveInt, snake: '--num_valid' },
  { flags: '--judge-model <name>', description: 'model of the judge that grades answers (default: memrl.hle.judge.model, else gpt-4o-2024-08-06; sim when the provider is sim)', snake: '--judge_model' },
];

/** `memrl run alfworld`'s own flags. `--split` and `--env` are renamed in runAlfworldFlagsFromOptions. */
const ALFWORLD_SPECS: readonly FlagSpec[] = [
  {
    flags: '--env <name>',
    description: 'standin = the offline household stand-in (runs say env: household-standin, never ALFWorld); alfworld = the real package via the Python bridge (default: memrl.alfworld.env, else standin without --config and alfworld with one)',
    choices: ['standin', 'alfworld'],
  },
  { flags: '--split <name>', description: 'validation games (default: memrl.alfworld.valid_split, else valid_seen)', choices: ['valid_seen', 'valid_unseen'] },
  { flags: '--game-file <path>', description: 'play only this game file, for debugging (default: memrl.alfworld.game_file, else the whole train split)', snake: '--game_file' },
  { flags: '--env-config <yaml>', description: "ALFWorld's environment YAML, passed through to the package (default: environment.alfworld_config_path)", snake: '--env_config' },
  { flags: '--dataset-ratio <x>', description: 'seeded fraction of the train games used (default: experiment.dataset_ratio, else 1)', parse: ratio, snake: '--dataset_ratio' },
];

/** `memrl run llb`'s own flags. `--task`, `--split-file`, `--valid-file` are renamed in runLlbFlagsFromOptions. */
const LLB_SPECS: readonly FlagSpec[] = [
  { flags: '--task <name>', description: 'LifelongAgentBench task family: db (SQL on MariaDB) or os (shell in a sandbox) (default: experiment.task, else db)', choices: ['db', 'os'] },
  { flags: '--split-file <path>', description: 'training data: an LLB JSON file keyed by sample index (default: experiment.split_file, else the shared db_train.json / os_interaction_train.json)', snake: '--split_file' },
  { flags: '--valid-file <path>', description: 'validation data file (default: experiment.valid_file, else the shared db_val.json / os_interaction_val.json)', snake: '--valid_file' },
  { flags: '--max-steps <n>', description: 'rounds per episode (default: experiment.max_steps, else 15 for LLB)', parse: positiveInt, snake: '--max_steps' },
];

/** Run flags LLB takes beyond those shared with HLE: where its tasks run. */
const LLB_EVALUATOR_FLAGS = new Set(['--evaluator', '--docker-host']);

function llbSpecs(): FlagSpec[] {
  const shared = SPECS.filter((s) => SHARED_WITH_HLE.has(longName(s.flags)) || LLB_EVALUATOR_FLAGS.has(longName(s.flags))).map((s) =>
    longName(s.flags) === '--run-validation'
      ? { ...s, description: 'score the validation file every experiment.valid_interval epochs (default: on when valid_interval > 0)' }
      : longName(s.flags) === '--batch-size'
        ? { ...s, description: 'tasks per memory-commit batch (default: experiment.batch_size, else 5 for LLB)' }
        : longName(s.flags) === '--evaluator'
          ? { ...s, description: 'where tasks run: local = the host MariaDB (db) / the rootfs sandbox (os); docker = one server container per run (db) / one container per task (os), images from memrl.evaluator.docker.images (default: memrl.evaluator.backend, else local)' }
          : s,
  );
  return [...shared, ...LLB_SPECS];
}

/** Adds the `memrl run llb` flags: the shared run flags plus task family, data files and max steps. */
export function addRunLlbOptions(cmd: Command): Command {
  return addSpecs(cmd, llbSpecs());
}

/** RunFlags of `memrl run llb`. */
export function runLlbFlagsFromOptions(opts: Record<string, unknown>): RunFlags {
  const raw = flagsFrom(opts, llbSpecs()) as RunFlags & { task?: 'db' | 'os'; validFile?: string };
  const { task, splitFile, validFile, ...rest } = raw;
  const flags: RunFlags = rest;
  if (task !== undefined) flags.llbTask = task;
  if (splitFile !== undefined) flags.llbSplitFile = splitFile;
  if (validFile !== undefined) flags.llbValidFile = validFile;
  return flags;
}

/** Run flags ALFWorld takes beyond those shared with HLE: where its bridge runs. */
const ALFWORLD_EVALUATOR_FLAGS = new Set(['--evaluator', '--docker-host']);

function alfworldSpecs(): FlagSpec[] {
  const shared = SPECS.filter((s) => SHARED_WITH_HLE.has(longName(s.flags)) || ALFWORLD_EVALUATOR_FLAGS.has(longName(s.flags))).map((s) =>
    longName(s.flags) === '--run-validation'
      ? { ...s, description: 'score the validation games before training and after every epoch (default: on for ALFWorld)' }
      : longName(s.flags) === '--batch-size'
        ? { ...s, description: 'games per memory-commit batch (default: experiment.batch_size, else 32 for ALFWorld)' }
        : longName(s.flags) === '--evaluator'
          ? { ...s, description: 'where the Python bridge runs: local = a python3 child process, docker = one container per bridge from memrl.evaluator.docker.images.alfworld (default: memrl.evaluator.backend, else local)' }
          : s,
  );
  return [...shared, ...ALFWORLD_SPECS];
}

/** Adds the `memrl run alfworld` flags: the shared run flags plus environment, split and game selection. */
export function addRunAlfworldOptions(cmd: Command): Command {
  return addSpecs(cmd, alfworldSpecs());
}

/** RunFlags of `memrl run alfworld` (`--split` / `--env` mean ALFWorld's split and environment). */
export function runAlfworldFlagsFromOptions(opts: Record<string, unknown>): RunFlags {
  const raw = flagsFrom(opts, alfworldSpecs()) as RunFlags & { env?: 'standin' | 'alfworld'; split?: unknown };
  const { env, split, ...rest } = raw;
  const flags: RunFlags = rest;
  if (env !== undefined) flags.alfworldEnv = env;
  if (split !== undefined) flags.alfworldSplit = split as RunFlags['alfworldSplit'];
  return flags;
}

function hleSpecs(): FlagSpec[] {
  const shared = SPECS.filter((s) => SHARED_WITH_HLE.has(longName(s.flags))).map((s) =>
    longName(s.flags) === '--run-validation'
      ? { ...s, description: 'also score the validation split after every epoch (default: on for HLE when there is a validation split)' }
      : longName(s.flags) === '--batch-size'
        ? { ...s, description: 'tasks per memory-commit batch (default: experiment.batch_size, else 32 for HLE)' }
        : s,
  );
  return [...shared, ...HLE_SPECS];
}

function longName(flags: string): string {
  return flags.split(/\s+/)[0]!;
}

/** snake_case spelling → kebab-case flag, for the flags that have one. */
export const SNAKE_CASE_ALIASES: ReadonlyMap<string, string> = new Map(
  [...SPECS, ...HLE_SPECS, ...ALFWORLD_SPECS, ...LLB_SPECS].filter((s) => s.snake).map((s) => [s.snake!, longName(s.flags)]),
);

function buildOption(spec: FlagSpec, flags = spec.flags, hidden = false): Option {
  const option = new Option(flags, hidden ? `same as ${longName(spec.flags)}` : spec.description);
  if (spec.choices) option.choices(spec.choices);
  if (spec.parse) option.argParser(spec.parse);
  if (hidden) option.hideHelp();
  return option;
}

/** Adds the `memrl run bcb` flags (and their hidden snake_case aliases) to `cmd`. */
export function addRunBcbOptions(cmd: Command): Command {
  return addSpecs(cmd, SPECS);
}

/** Adds the `memrl run hle` flags: the shared run flags plus HLE's data, filter and judge flags. */
export function addRunHleOptions(cmd: Command): Command {
  return addSpecs(cmd, hleSpecs());
}

function addSpecs(cmd: Command, specs: readonly FlagSpec[]): Command {
  for (const spec of specs) {
    const shown = spec.snake ? { ...spec, description: `${spec.description} [also ${spec.snake}]` } : spec;
    cmd.addOption(buildOption(shown));
    if (spec.snake) cmd.addOption(buildOption(spec, spec.flags.replace(longName(spec.flags), spec.snake), true));
  }
  return cmd;
}

/**
 * Rewrites known snake_case flags (`--split_file x`, `--split_file=x`) to their
 * kebab-case form. Unknown flags and everything after `--` are left alone.
 */
export function normalizeSnakeCaseArgs(argv: readonly string[]): string[] {
  const out: string[] = [];
  let passthrough = false;
  for (const arg of argv) {
    if (passthrough || !arg.startsWith('--')) {
      out.push(arg);
      if (arg === '--') passthrough = true;
      continue;
    }
    if (arg === '--') {
      passthrough = true;
      out.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const kebab = SNAKE_CASE_ALIASES.get(name);
    out.push(kebab ? kebab + (eq === -1 ? '' : arg.slice(eq)) : arg);
  }
  return out;
}

// commander's attribute name for '--split_file' is 'split_file'; for '--split-file', 'splitFile'.
const snakeAttr = (snake: string) => snake.slice(2);
const camelAttr = (kebab: string) => kebab.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** RunFlags from `cmd.opts()`, folding the snake_case aliases in (the kebab spelling wins). */
export function runFlagsFromOptions(opts: Record<string, unknown>): RunFlags {
  return flagsFrom(opts, SPECS);
}

/** RunFlags of `memrl run hle`; `--categories` also accepts comma-separated names. */
export function runHleFlagsFromOptions(opts: Record<string, unknown>): RunFlags {
  const flags = flagsFrom(opts, hleSpecs());
  if (flags.categories) {
    flags.categories = flags.categories.flatMap((c) => c.split(',')).map((c) => c.trim()).filter(Boolean);
  }
  return flags;
}

function flagsFrom(opts: Record<string, unknown>, specs: readonly FlagSpec[]): RunFlags {
  const flags: Record<string, unknown> = {};
  for (const spec of specs) {
    const name = longName(spec.flags);
    if (name.startsWith('--no-')) continue;
    const attr = camelAttr(name);
    const value = opts[attr] ?? (spec.snake ? opts[snakeAttr(spec.snake)] : undefined);
    if (value !== undefined) flags[attr] = value;
  }
  return flags as RunFlags;
}
