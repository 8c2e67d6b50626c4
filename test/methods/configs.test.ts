/** The shipped configs of the two baselines: the paper's BCB setup with the method and its section. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/app/config.js';
import { sectionOf } from '../../src/config/schema.js';
import { asset } from '../../src/util/paths.js';

const load = (file: string) => loadConfig(asset('configs', file), {}, 'bcb', { env: { OPENAI_API_KEY: 'sk-real' } });

describe('configs for the baselines', () => {
  it('bcb-selfrag.yaml: Self-RAG, adaptive, top-k from memory.k_retrieve, on the paper\'s BCB setup', () => {
    const cfg = load('bcb-selfrag.yaml');
    expect(cfg.method).toBe('selfrag');
    expect(cfg.memory.k1).toBe(5);
    expect(sectionOf(cfg.config, 'selfrag')).toEqual({ top_k: null, retrieval_mode: 'adaptive', max_decision_retries: 2, fallback_on_error: true, threshold: null });
    expect(cfg.llm).toMatchObject({ provider: 'openai', model: 'gpt-4o-mini', temperature: 0 });
    expect(cfg.run).toMatchObject({ epochs: 10, runValidation: true });
    expect(cfg.bench).toMatchObject({ subset: 'full', split: 'instruct' });
  });

  it('bcb-mem0.yaml: Mem0 without inference, limit from memory.k_retrieve', () => {
    const cfg = load('bcb-mem0.yaml');
    expect(cfg.method).toBe('mem0');
    expect(sectionOf(cfg.config, 'mem0')).toEqual({ limit: null, threshold: null, infer: false });
    expect(cfg.embedding).toMatchObject({ provider: 'openai', model: 'text-embedding-3-large' });
  });
});
