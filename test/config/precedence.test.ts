import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deriveMethod } from '../../src/config/resolve.js';
import { loadConfig } from '../../src/app/config.js';
import { configSchema } from '../../src/app/config.js';
import type { Benchmark } from '../../src/config/schema.js';
import type { FlagValues as RunFlags } from '../../src/config/flags.js';

const ConfigSchema = configSchema();
import { errorOf, tempYaml } from './helpers.js';

const ENV = { OPENAI_API_KEY: 'sk-test' };

function load<B extends Benchmark = 'bcb'>(text: string, flags: RunFlags = {}, benchmark: B = 'bcb' as B) {
  const { dir } = tempYaml(text, 'x.yaml');
  return loadConfig('x.yaml', flags, benchmark, { env: ENV, cwd: dir });
}

describe('precedence: schema defaults < benchmark defaults < YAML < flags', () => {
  it('a key missing from the file takes the benchmark\'s value, not the generic one', () => {
    const bcb = load('llm:\n  model: gpt-4o\n');
    // pydantic's generic defaults would be k_retrieve 1, sim_norm 0/0, enable_value_driven false.
    expect(bcb.memory).toMatchObject({ k1: 5, k2: 5, epsilon: 0.1, simNormMean: 0.31, simNormStd: 0.1 });
    expect(bcb.method).toBe('memrl');
    const llb = load('llm:\n  model: gpt-4o\n', {}, 'llb');
    expect(llb.memory).toMatchObject({ k1: 10, qInitPos: 0.5, failureReward: 0, qFloor: 0, addSimilarityThreshold: 0.99 });
  });

  it('the file overrides the benchmark defaults', () => {
    const cfg = load('memory:\n  k_retrieve: 7\nrl_config:\n  topk: 2\nexperiment:\n  num_sections: 6\n  batch_size: 10\n');
    expect(cfg.memory.k1).toBe(7);
    expect(cfg.memory.k2).toBe(2);
    expect(cfg.run.epochs).toBe(6);
    expect(cfg.run.batchSize).toBe(10);
  });

  it('flags override the file, and the printed tree shows the flag value', () => {
    const text = 'memory:\n  k_retrieve: 7\nexperiment:\n  num_sections: 6\n  random_seed: 1\nllm:\n  temperature: 0.2\n';
    const cfg = load(text, { retrieveK: 2, epochs: 4, seed: 9, temperature: 1.1, retrieveThreshold: 0.3, batchSize: 8, concurrency: 2, limit: 5 });
    expect(cfg.memory.k1).toBe(2);
    expect(cfg.memory.simThreshold).toBe(0.3);
    expect(cfg.run).toMatchObject({ epochs: 4, seed: 9, batchSize: 8, concurrency: 2, limit: 5 });
    expect(cfg.llm.temperature).toBe(1.1);
    expect(cfg.config.memory.k_retrieve).toBe(2);
    expect(cfg.config.experiment.num_sections).toBe(4);
  });

  it('a flag value the schema rejects is blamed on the flag', () => {
    expect(errorOf(() => load('', { maxTokens: 0 }))).toBe('--max-tokens: `llm.max_tokens` must be > 0, got 0');
    expect(errorOf(() => load('', { evalTimeout: 300 }))).toMatch(/^--eval-timeout: hard timeout \(120 s\) is below the evaluation timeout \(300 s\)/);
  });

  it('no file: the built-in quickstart (offline simulator, local embedder) over the benchmark defaults', () => {
    const cfg = loadConfig(undefined, {}, 'bcb', { env: {} });
    expect(cfg.source).toMatch(/quickstart/);
    expect(cfg.llm.provider).toBe('sim');
    expect(cfg.embedding.provider).toBe('local');
    expect(cfg.memory).toMatchObject({ k1: 5, k2: 5, epsilon: 0.1, qMinThreshold: -0.8, simNormMean: 0.31 });
    const hle = loadConfig(undefined, { epochs: 1 }, 'hle', { env: {} });
    expect(hle.memory).toMatchObject({ k2: 3, epsilon: 0, simNormMean: 0.1856827586889267 });
    expect(hle.run.epochs).toBe(1);
  });

  it('--run-validation / --no-run-validation override experiment.bcb_run_validation', () => {
    expect(load('experiment:\n  bcb_run_validation: false\n', { runValidation: true }).run.runValidation).toBe(true);
    expect(load('experiment:\n  bcb_run_validation: true\n', { runValidation: false }).run.runValidation).toBe(false);
    // val_before_train only matters when validation runs
    expect(load('experiment:\n  val_before_train: true\n').run.valBeforeTrain).toBe(false);
    expect(load('experiment:\n  val_before_train: true\n', { runValidation: true }).run.valBeforeTrain).toBe(true);
  });

  it('--resume and experiment.ckpt_resume_* both resume; enabled without a path is an error', () => {
    const { dir } = tempYaml('');
    expect(load('', { resume: 'results/run1' }).run.resume).toMatch(/results\/run1$/);
    expect(loadConfig(join(dir, 'config.yaml'), {}, 'bcb', { env: ENV, cwd: dir }).run.resume).toBeNull();
    expect(load('experiment:\n  ckpt_resume_enabled: true\n  ckpt_resume_path: runs/a\n  ckpt_resume_epoch: 3\n').run).toMatchObject({ resumeEpoch: 3 });
    expect(errorOf(() => load('experiment:\n  ckpt_resume_enabled: true\n'))).toMatch(/^x\.yaml:2: `experiment\.ckpt_resume_enabled` is true but/);
  });

  it('every benchmark defaults layer is itself a valid config', () => {
    for (const benchmark of ['bcb', 'hle', 'llb', 'alfworld'] as const) {
      expect(() => loadConfig(undefined, {}, benchmark, { env: {} })).not.toThrow();
    }
  });
});

describe('BCB split file', () => {
  it('defaults to the paper\'s split for the subset', () => {
    // The default subset is full, as in the reference's run_bcb.py.
    expect(load('').bench.splitFile).toMatch(/splits\/full_seed123\.json$/);
    expect(load('', { subset: 'hard' }).bench.splitFile).toMatch(/splits\/hard_seed42\.json$/);
  });

  it('--train-ratio selects the seeded split; --split-file wins; "none" forces the seeded split', () => {
    expect(load('', { trainRatio: 0.8 }).bench).toMatchObject({ splitFile: null, trainRatio: 0.8 });
    expect(load('', { trainRatio: 0.8, splitFile: 'my.json' }).bench.splitFile).toMatch(/\/my\.json$/);
    expect(load('memrl:\n  bcb:\n    split_file: none\n').bench.splitFile).toBeNull();
  });
});

describe('method derivation', () => {
  const base = ConfigSchema.parse({});
  const withExp = (experiment: Record<string, unknown>, memory: Record<string, unknown> = {}) =>
    ConfigSchema.parse({ experiment: { enable_value_driven: true, ...experiment }, memory });

  it('rl with value-driven on is memrl', () => {
    expect(deriveMethod(withExp({}), {}).method).toBe('memrl');
  });

  it('value-driven off is plain similarity retrieval (memp), or rag when memories are raw trajectories', () => {
    expect(deriveMethod(base, {})).toEqual({ method: 'memp', reason: 'experiment.enable_value_driven is false' });
    expect(deriveMethod(withExp({ algorithm: 'memp' }), {}).method).toBe('memp');
    expect(deriveMethod(withExp({ enable_value_driven: false }, { build_strategy: 'trajectory' }), {}).method).toBe('rag');
  });

  it('baseline_mode passk/reflection select those baselines; "none" does not', () => {
    expect(deriveMethod(withExp({ baseline_mode: 'passk' }), {}).method).toBe('passk');
    expect(deriveMethod(withExp({ baseline_mode: 'reflection' }), {}).method).toBe('reflection');
    expect(deriveMethod(withExp({ baseline_mode: 'none' }), {}).method).toBe('memrl');
  });

  it('memrl.method beats the derivation, --method beats both', () => {
    const cfg = ConfigSchema.parse({ experiment: { baseline_mode: 'passk' }, memrl: { method: 'rag' } });
    expect(deriveMethod(cfg, {}).method).toBe('rag');
    expect(deriveMethod(cfg, { method: 'none' })).toEqual({ method: 'none', reason: '--method' });
  });

  it('runner modes turn the memory engine off; rag stores raw trajectories', () => {
    expect(load('', { method: 'passk' }).memory.method).toBe('none');
    expect(load('', { method: 'reflection' }).memory.method).toBe('none');
    const rag = load('', { method: 'rag' });
    expect(rag.memory.method).toBe('rag');
    expect(rag.buildStrategy).toBe('trajectory');
  });
});
