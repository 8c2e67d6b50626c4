import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/app/config.js';
import { llbExperiment } from '../../src/bench/llb/config.js';
import type { Benchmark } from '../../src/config/schema.js';
import { REFERENCE_DIR, errorOf } from './helpers.js';

const ENV = { OPENAI_API_KEY: 'sk-test-0000' };
const load = (file: string, benchmark: Benchmark) => loadConfig(join(REFERENCE_DIR, file), {}, benchmark, { env: ENV });

describe('the reference YAML files load unchanged', () => {
  it('rl_bcb_config.yaml resolves to the paper\'s BCB settings', () => {
    const before = createHash('sha256').update(readFileSync(join(REFERENCE_DIR, 'rl_bcb_config.yaml'))).digest('hex');
    const cfg = load('rl_bcb_config.yaml', 'bcb');
    const after = createHash('sha256').update(readFileSync(join(REFERENCE_DIR, 'rl_bcb_config.yaml'))).digest('hex');
    expect(after).toBe(before);
    expect(cfg.method).toBe('memrl');
    expect(cfg.memory).toMatchObject({
      method: 'memrl',
      k1: 5,
      k2: 5,
      epsilon: 0.1,
      qMinThreshold: -0.8,
      simNormMean: 0.31,
      simNormStd: 0.1,
      simThreshold: 0.5,
      alpha: 0.3,
      qFloor: null,
      zScore: true,
      addSimilarityThreshold: 0.9,
    });
    // run_bcb.py: 3 epochs unless told otherwise, memory flushed every 25 tasks, no validation.
    expect(cfg.run).toMatchObject({ epochs: 3, batchSize: 25, runValidation: false, seed: 42 });
    expect(cfg.llm).toMatchObject({ provider: 'openai', model: 'gpt-4o-mini', temperature: 0, maxTokens: 12800, apiKey: 'sk-test-0000' });
    expect(cfg.embedding).toMatchObject({ model: 'text-embedding-3-large', maxTextLen: 8196 });
  });

  it('rl_llb_config.yaml resolves to the LLB settings (q init, floor, reward, z-score)', () => {
    const cfg = load('rl_llb_config.yaml', 'llb');
    expect(cfg.memory).toMatchObject({
      k1: 10,
      k2: 5,
      epsilon: 0.01,
      qInitPos: 0.5,
      qInitNeg: 0.5,
      failureReward: 0,
      successReward: 1,
      qFloor: 0,
      addSimilarityThreshold: 0.99,
      zScore: true,
      dedupByTaskId: false,
      qMinThreshold: -0.8,
    });
    expect(llbExperiment(cfg.config).task).toBe('os');
    expect(cfg.run).toMatchObject({ epochs: 20, batchSize: 5, maxSteps: 15, runValidation: false, valBeforeTrain: false });
    // BASEURL placeholder → OpenAI's URL; API placeholder → $OPENAI_API_KEY.
    expect(cfg.llm.baseUrl).toBe('https://api.openai.com/v1');
    expect(cfg.llm.apiKey).toBe('sk-test-0000');
  });

  it('rl_hle_config.yaml resolves to the HLE settings', () => {
    const cfg = load('rl_hle_config.yaml', 'hle');
    expect(cfg.memory).toMatchObject({
      k1: 5,
      k2: 3,
      epsilon: 0,
      qMinThreshold: -10,
      simNormMean: 0.1856827586889267,
      simNormStd: 0.09407906234264374,
      // the HLE runner writes Q 1.0 after a success and 0.0 after a failure
      qInitPos: 1,
      qInitNeg: 0,
    });
    expect(cfg.run).toMatchObject({ epochs: 10, batchSize: 32, runValidation: true });
    expect(cfg.llm.temperature).toBe(0.6);
    expect(cfg.unreadKeys).toContain('rl_config.q_init_pos');
  });

  it('rl_alf_config.yaml resolves to the ALFWorld settings (baseline_mode "none" is not a baseline)', () => {
    const cfg = load('rl_alf_config.yaml', 'alfworld');
    expect(cfg.method).toBe('memrl');
    expect(cfg.memory).toMatchObject({ k1: 5, k2: 3, epsilon: 0, qMinThreshold: -10, simNormMean: 0.5187, simNormStd: 0.1203 });
    expect(cfg.run).toMatchObject({ epochs: 10, batchSize: 32, maxSteps: 30 });
    expect(cfg.embedding.maxTextLen).toBe(4096);
  });

  it('lists the inert keys a reference file sets', () => {
    const keys = load('rl_bcb_config.yaml', 'bcb').inertKeys.map((k) => k.key);
    expect(load('rl_bcb_config.yaml', 'bcb').unreadKeys).toContain('rl_config.tau');
    for (const key of ['rl_config.novelty_threshold', 'rl_config.reward_merge_gain', 'memory.confidence_threshold', 'memory.mos_config_path', 'memory.user_id', 'experiment.bon']) {
      expect(keys).toContain(key);
    }
    expect(load('rl_llb_config.yaml', 'llb').inertKeys.map((k) => k.key)).toContain('experiment.test_interval');
  });

  it('refuses to run with a placeholder key and no OPENAI_API_KEY, naming the key and the fix', () => {
    const message = errorOf(() => loadConfig(join(REFERENCE_DIR, 'rl_bcb_config.yaml'), {}, 'bcb', { env: {} }));
    expect(message).toMatch(/rl_bcb_config\.yaml:\d+: `llm\.api_key` is a placeholder and OPENAI_API_KEY is not set/);
    // ...but can still be inspected.
    const inspected = loadConfig(join(REFERENCE_DIR, 'rl_bcb_config.yaml'), {}, 'bcb', { env: {}, inspect: true });
    expect(inspected.llm.apiKey).toBeNull();
  });
});
