/**
 * Command-line flags as a config layer: each flag writes one key of the tree, so
 * the printed config shows the value actually used and the schema checks flag
 * values with the same rules (and messages) as file values.
 */
import type { Benchmark } from './schema.js';
import type { RunFlags } from './types.js';
import type { KeyPath } from './yaml-source.js';

export const FLAG_TARGETS: readonly { flag: keyof RunFlags; option: string; path: KeyPath }[] = [
  { flag: 'epochs', option: '--epochs', path: ['experiment', 'num_sections'] },
  { flag: 'batchSize', option: '--batch-size', path: ['experiment', 'batch_size'] },
  { flag: 'seed', option: '--seed', path: ['experiment', 'random_seed'] },
  { flag: 'outputDir', option: '--output-dir', path: ['experiment', 'output_dir'] },
  { flag: 'temperature', option: '--temperature', path: ['llm', 'temperature'] },
  { flag: 'maxTokens', option: '--max-tokens', path: ['llm', 'max_tokens'] },
  { flag: 'retrieveK', option: '--retrieve-k', path: ['memory', 'k_retrieve'] },
  { flag: 'retrieveThreshold', option: '--retrieve-threshold', path: ['rl_config', 'sim_threshold'] },
  { flag: 'method', option: '--method', path: ['memrl', 'method'] },
  { flag: 'concurrency', option: '--concurrency', path: ['memrl', 'concurrency'] },
  { flag: 'limit', option: '--limit', path: ['memrl', 'limit'] },
  { flag: 'evaluator', option: '--evaluator', path: ['memrl', 'evaluator', 'backend'] },
  { flag: 'dockerHost', option: '--docker-host', path: ['memrl', 'evaluator', 'docker', 'host'] },
  { flag: 'bcbMode', option: '--bcb-mode', path: ['memrl', 'evaluator', 'bcb_mode'] },
  { flag: 'evalTimeout', option: '--eval-timeout', path: ['memrl', 'evaluator', 'eval_timeout'] },
  { flag: 'untrustedHardTimeout', option: '--untrusted-hard-timeout', path: ['memrl', 'evaluator', 'hard_timeout'] },
  { flag: 'subset', option: '--subset', path: ['memrl', 'bcb', 'subset'] },
  { flag: 'split', option: '--split', path: ['memrl', 'bcb', 'split'] },
  { flag: 'dataPath', option: '--data-path', path: ['memrl', 'bcb', 'data_path'] },
  { flag: 'splitFile', option: '--split-file', path: ['memrl', 'bcb', 'split_file'] },
  { flag: 'trainRatio', option: '--train-ratio', path: ['memrl', 'bcb', 'train_ratio'] },
  { flag: 'memoryBudget', option: '--memory-budget', path: ['memrl', 'bcb', 'memory_budget'] },
  { flag: 'train', option: '--train', path: ['memrl', 'hle', 'train_path'] },
  { flag: 'valid', option: '--valid', path: ['memrl', 'hle', 'valid_path'] },
  { flag: 'numTrain', option: '--num-train', path: ['memrl', 'hle', 'num_train'] },
  { flag: 'numValid', option: '--num-valid', path: ['memrl', 'hle', 'num_valid'] },
  { flag: 'judgeModel', option: '--judge-model', path: ['memrl', 'hle', 'judge', 'model'] },
  { flag: 'categories', option: '--categories', path: ['experiment', 'hle_categories'] },
  { flag: 'categoryRatio', option: '--category-ratio', path: ['experiment', 'hle_category_ratio'] },
  { flag: 'datasetRatio', option: '--dataset-ratio', path: ['experiment', 'dataset_ratio'] },
  { flag: 'alfworldEnv', option: '--env', path: ['memrl', 'alfworld', 'env'] },
  { flag: 'alfworldSplit', option: '--split', path: ['memrl', 'alfworld', 'valid_split'] },
  { flag: 'gameFile', option: '--game-file', path: ['memrl', 'alfworld', 'game_file'] },
  { flag: 'envConfig', option: '--env-config', path: ['environment', 'alfworld_config_path'] },
  { flag: 'trainValidSplit', option: '--train-valid-split', path: ['experiment', 'train_valid_split'] },
  { flag: 'llbTask', option: '--task', path: ['experiment', 'task'] },
  { flag: 'llbSplitFile', option: '--split-file', path: ['experiment', 'split_file'] },
  { flag: 'llbValidFile', option: '--valid-file', path: ['experiment', 'valid_file'] },
  { flag: 'maxSteps', option: '--max-steps', path: ['experiment', 'max_steps'] },
  { flag: 'cache', option: '--cache', path: ['memrl', 'cache_dir'] },
  { flag: 'budgetUsd', option: '--budget-usd', path: ['memrl', 'budget', 'usd'] },
  { flag: 'budgetTokens', option: '--budget-tokens', path: ['memrl', 'budget', 'tokens'] },
  { flag: 'prices', option: '--prices', path: ['memrl', 'prices'] },
];

export interface FlagOverlay {
  data: Record<string, unknown>;
  /** The option that set `path` (or a key under it), if any. */
  optionFor(path: KeyPath): string | undefined;
}

export function flagOverlay(flags: RunFlags, benchmark: Benchmark): FlagOverlay {
  const data: Record<string, unknown> = {};
  const owners: { path: string; option: string }[] = [];
  const set = (path: KeyPath, value: unknown, option: string) => {
    let node = data;
    for (const key of path.slice(0, -1)) node = (node[String(key)] ??= {}) as Record<string, unknown>;
    node[String(path[path.length - 1])] = value;
    owners.push({ path: path.join('.'), option });
  };
  for (const { flag, option, path } of FLAG_TARGETS) {
    if (flags[flag] !== undefined) set(path, flags[flag], option);
  }
  // Flags whose key differs per benchmark.
  if (flags.runValidation !== undefined) {
    const option = flags.runValidation ? '--run-validation' : '--no-run-validation';
    if (benchmark === 'bcb') set(['experiment', 'bcb_run_validation'], flags.runValidation, option);
  }
  if (flags.resume !== undefined) {
    set(['experiment', 'ckpt_resume_enabled'], true, '--resume');
    set(['experiment', 'ckpt_resume_path'], flags.resume, '--resume');
  }
  return {
    data,
    optionFor: (path) => {
      const dottedPath = path.join('.');
      return owners.find((o) => dottedPath === o.path || dottedPath.startsWith(`${o.path}.`))?.option;
    },
  };
}
