import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { INERT_KEYS, leafPaths } from '../../src/config/key-notes.js';
import { loadConfig } from '../../src/app/config.js';
import { configSchema } from '../../src/app/config.js';

const ConfigSchema = configSchema();
import { schemaLeaves } from '../../src/config/schema-walk.js';
import { asset } from '../../src/util/paths.js';
import { errorOf } from './helpers.js';

const BCB = asset('configs', 'bcb.yaml');

describe('configs/bcb.yaml', () => {
  it('is the paper\'s BCB setup with a real model', () => {
    const cfg = loadConfig(BCB, {}, 'bcb', { env: { OPENAI_API_KEY: 'sk-real' } });
    expect(cfg.method).toBe('memrl');
    expect(cfg.llm).toMatchObject({ provider: 'openai', model: 'gpt-4o-mini', apiKey: 'sk-real', baseUrl: 'https://api.openai.com/v1', temperature: 0 });
    expect(cfg.embedding).toMatchObject({ provider: 'openai', model: 'text-embedding-3-large', apiKey: 'sk-real' });
    expect(cfg.memory).toMatchObject({ k1: 5, k2: 5, epsilon: 0.1, qMinThreshold: -0.8, simNormMean: 0.31, simNormStd: 0.1, alpha: 0.3 });
    expect(cfg.run).toMatchObject({ epochs: 10, runValidation: true, batchSize: 25 });
    expect(cfg.bench).toMatchObject({ subset: 'full', split: 'instruct', memoryBudget: 2000 });
    expect(cfg.bench.splitFile).toMatch(/full_seed123\.json$/);
    expect(cfg.evaluator).toMatchObject({ backend: 'local', bcbMode: 'reference', evalTimeoutS: 60, hardTimeoutS: 120 });
  });

  it('takes OPENAI_BASE_URL when set', () => {
    const cfg = loadConfig(BCB, {}, 'bcb', { env: { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } });
    expect(cfg.llm.baseUrl).toBe('http://127.0.0.1:9/v1');
  });

  it('says which variable is missing, at the line of llm.api_key', () => {
    const lines = readFileSync(BCB, 'utf8').split('\n');
    const llmAt = lines.findIndex((l) => l.startsWith('llm:'));
    const line = lines.findIndex((l, i) => i > llmAt && /^\s+api_key:/.test(l)) + 1;
    expect(errorOf(() => loadConfig(BCB, {}, 'bcb', { env: {} }))).toMatch(new RegExp(`bcb\\.yaml:${line}: \`llm\\.api_key\`: environment variable OPENAI_API_KEY is not set`));
  });

  it('outside its memrl: section uses only the reference\'s keys, so the reference can read it too', () => {
    const { memrl, ...reference } = parseYaml(readFileSync(BCB, 'utf8')) as Record<string, unknown>;
    expect(memrl).toBeDefined();
    const referenceKeys = new Set(schemaLeaves(ConfigSchema).map((leaf) => leaf.path).filter((path) => !path.startsWith('memrl.')));
    const used = leafPaths(reference);
    expect(used.length).toBeGreaterThan(30);
    for (const path of used) expect(referenceKeys.has(path), path).toBe(true);
  });
});

describe('configs/quickstart.yaml', () => {
  it('runs offline: simulator + local embedder, small, BCB defaults underneath', () => {
    const cfg = loadConfig(asset('configs', 'quickstart.yaml'), {}, 'bcb', { env: {} });
    expect(cfg.llm.provider).toBe('sim');
    expect(cfg.embedding.provider).toBe('local');
    expect(cfg.run.limit).toBeGreaterThan(0);
    expect(cfg.run.limit).toBeLessThanOrEqual(20);
    expect(cfg.memory).toMatchObject({ k1: 5, k2: 5, epsilon: 0.1 });
    expect(cfg.notes.join('\n')).toMatch(/simulator/);
  });
});

describe('INERT_KEYS', () => {
  it('names real keys only, each with a reason', () => {
    const keys = new Set(schemaLeaves(ConfigSchema).map((leaf) => leaf.path));
    for (const [key, reason] of Object.entries(INERT_KEYS)) {
      expect(keys.has(key), key).toBe(true);
      expect(reason.length).toBeGreaterThan(5);
    }
    for (const key of ['rl_config.novelty_threshold', 'rl_config.reward_merge_gain', 'memory.confidence_threshold', 'memory.mos_config_path', 'memory.user_id', 'experiment.bon', 'experiment.test_interval']) {
      expect(INERT_KEYS[key], key).toBeTruthy();
    }
  });
});
