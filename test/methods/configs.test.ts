/** The shipped configs: each benchmark's is ready for every method of the paper's tables; the two BCB baseline files equal bcb.yaml with --method. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/app/config.js';
import { sectionOf } from '../../src/config/schema.js';
import { asset } from '../../src/util/paths.js';
import { builtinRegistry } from '../../src/app/registry.js';

const ENV = { OPENAI_API_KEY: 'sk-real' };
const load = (file: string, flags: Record<string, unknown> = {}, bench = 'bcb') => loadConfig(asset('configs', file), flags, bench, { env: ENV });
const METHODS = builtinRegistry().methods.map((m) => m.name);

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

  it.each(['selfrag', 'mem0'])('bcb-%s.yaml runs what configs/bcb.yaml --method %s runs', (method) => {
    const own = load(`bcb-${method}.yaml`);
    const viaFlag = load('bcb.yaml', { method });
    const same = (c: typeof own) => ({ method: c.method, llm: c.llm, embedding: c.embedding, memory: c.memory, bench: c.bench, evaluator: c.evaluator, section: sectionOf(c.config, method), epochs: c.run.epochs, validation: c.run.runValidation, seed: c.run.seed });
    expect(same(own)).toEqual(same(viaFlag));
  });
});

describe("each benchmark's config, ready for every method of the paper's tables", () => {
  const benches = [
    ['bcb', 'bcb.yaml', 0.5],
    ['hle', 'hle.yaml', 0.25],
    ['llb', 'llb.yaml', 0.5],
    ['alfworld', 'alfworld.yaml', 0.5],
  ] as const;
  it.each(benches)('%s: every method resolves; the baselines take the reference\'s similarity floor', (bench, file, floor) => {
    for (const method of METHODS) {
      const cfg = load(file, { method }, bench);
      expect(cfg.method).toBe(method);
      if (method === 'selfrag' || method === 'mem0') expect(cfg.memory.baselineThreshold).toBe(floor);
    }
  });

  it('hle.yaml runs the paper\'s solver: gemini-3-pro at 0.6 and 65536 tokens', () => {
    expect(load('hle.yaml', {}, 'hle').llm).toMatchObject({ model: 'gemini-3-pro', temperature: 0.6, maxTokens: 65536 });
  });
});

