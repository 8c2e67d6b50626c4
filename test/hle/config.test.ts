import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addRunOptions, normalizeSnakeCaseArgs, runFlagsFromOptions } from '../../src/cli/run-flags.js';

const addRunHleOptions = (cmd: Command): Command => addRunOptions(cmd, 'hle');
const runHleFlagsFromOptions = (opts: Record<string, unknown>) => runFlagsFromOptions(opts, 'hle');
import { loadConfig } from '../../src/app/config.js';
import { asset } from '../../src/util/paths.js';
import { REFERENCE_DIR } from '../config/helpers.js';

const ENV = { OPENAI_API_KEY: 'sk-test-0000' };

function parse(argv: string[]) {
  const cmd = addRunHleOptions(new Command('hle').exitOverride());
  cmd.parse(normalizeSnakeCaseArgs(argv), { from: 'user' });
  return runHleFlagsFromOptions(cmd.opts());
}

describe('HLE config', () => {
  it('rl_hle_config.yaml resolves unchanged, with the reference judge by default', () => {
    const cfg = loadConfig(join(REFERENCE_DIR, 'rl_hle_config.yaml'), { train: 'x.parquet' }, 'hle', { env: ENV, cwd: '/data' });
    expect(cfg.memory).toMatchObject({ k1: 5, k2: 3, epsilon: 0, qMinThreshold: -10, qInitPos: 1, qInitNeg: 0 });
    expect(cfg.run).toMatchObject({ epochs: 10, batchSize: 32 });
    expect(cfg.bench).toMatchObject({ trainPath: '/data/x.parquet', trainValidSplit: 1, datasetRatio: 1, categoryRatio: 1, categories: null });
    expect(cfg.bench.judge).toMatchObject({ provider: 'openai', model: 'gpt-4o-2024-08-06', temperature: 0, apiKey: 'sk-test-0000' });
  });

  it('configs/hle.yaml resolves with a real model and judge', () => {
    const cfg = loadConfig(asset('configs', 'hle.yaml'), {}, 'hle', { env: ENV });
    expect(cfg.llm).toMatchObject({ provider: 'openai', temperature: 0.6 });
    expect(cfg.bench.judge).toMatchObject({ model: 'gpt-4o-2024-08-06', temperature: 0, apiKey: 'sk-test-0000' });
  });

  it('the quickstart gives a sim judge', () => {
    const cfg = loadConfig(undefined, {}, 'hle', { env: {} });
    expect(cfg.bench.judge.provider).toBe('sim');
  });

  it('takes kebab and snake_case flags into the reference keys', () => {
    const flags = parse(['--train', 'a.parquet', '--categories', 'Math', 'Computer Science/AI,Physics', '--category_ratio', '0.2', '--num_train', '5', '--num-valid', '3', '--judge_model', 'j-1', '--train_valid_split', '0.8']);
    expect(flags).toEqual({ train: 'a.parquet', categories: ['Math', 'Computer Science/AI', 'Physics'], categoryRatio: 0.2, numTrain: 5, numValid: 3, judgeModel: 'j-1', trainValidSplit: 0.8 });
    const cfg = loadConfig(undefined, flags, 'hle', { env: {}, cwd: '/w' });
    expect(cfg.config.experiment).toMatchObject({ hle_categories: ['Math', 'Computer Science/AI', 'Physics'], hle_category_ratio: 0.2, train_valid_split: 0.8 });
    expect(cfg.bench).toMatchObject({ trainPath: '/w/a.parquet', numTrain: 5, numValid: 3, categoryRatio: 0.2 });
    expect(cfg.config.memrl).toMatchObject({ hle: { judge: { model: 'j-1' } } });
  });

  it('a real judge without a key is a one-line error naming the key', () => {
    expect(() =>
      loadConfig(join(REFERENCE_DIR, 'rl_hle_config.yaml'), {}, 'hle', { env: {} }),
    ).toThrow(/api_key/);
  });
});
