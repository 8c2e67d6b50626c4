/**
 * A benchmark's own keys in the reference's shared sections (sharedKeys) and its words
 * in the help of keys it shares (keys.help): the schema takes them from the module, a
 * plug-in's like a built-in's, and a module that gets them wrong fails in one line.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configSchema, explainText, loadConfig } from '../../src/app/config.js';
import { builtinRegistry, findBenchmark, withPlugins } from '../../src/app/registry.js';
import { bool } from '../../src/config/coerce.js';
import { schemaLeaves, descriptionOf } from '../../src/config/schema-walk.js';
import { sharedKeysOf, type SharedKeys } from '../../src/config/schema.js';
import type { BenchmarkModule } from '../../src/core/benchmark.js';

const EXTRA = { extra_steps: z.number().int().default(3).describe('Toy: extra steps.') };

function withToy(sharedKeys: readonly SharedKeys[], help: Record<string, string> = {}) {
  const toy: BenchmarkModule = { ...findBenchmark(builtinRegistry(), 'hle'), name: 'toy', displayName: 'Toy', sharedKeys, keys: { help }, paper: undefined };
  return withPlugins(builtinRegistry(), [{ origin: 'toy.ts', benchmarks: [toy], methods: [] }]);
}

const leaves = (registry: ReturnType<typeof withToy>) => schemaLeaves(configSchema(registry)).map((l) => l.path);

describe('shared keys from benchmark modules', () => {
  it('the built-ins put their reference keys where the reference has them', () => {
    const keys = leaves(builtinRegistry());
    const after = (key: string) => keys[keys.indexOf(key) + 1];
    expect(after('experiment.mode')).toBe('experiment.trace_jsonl_path');
    expect(after('experiment.trace_sample_filter')).toBe('experiment.llb_use_z_score_normalization');
    expect(after('experiment.dataset_ratio')).toBe('experiment.few_shot_path');
    expect(after('experiment.bon')).toBe('experiment.hle_categories');
    expect(after('memrl.evaluator.backend')).toBe('memrl.evaluator.bcb_mode');
    expect(keys.filter((k) => k.startsWith('environment.'))).toEqual(['environment.alfworld_config_path', 'environment.alfworld_env_type']);
  });

  it("a plug-in's keys join a section after their anchor, are validated, and are read back typed", () => {
    const registry = withToy([{ section: 'experiment', after: 'mode', keys: EXTRA }]);
    const keys = leaves(registry);
    expect(keys[keys.indexOf('experiment.mode') + 1]).toBe('experiment.extra_steps');
    const cfg = loadConfig(undefined, {}, 'toy', { registry, data: { label: 'x.yaml', tree: { experiment: { extra_steps: 5 } } }, inspect: true });
    expect(sharedKeysOf(cfg.config, 'experiment', EXTRA).extra_steps).toBe(5);
    expect(() => loadConfig(undefined, {}, 'toy', { registry, data: { label: 'x.yaml', tree: { experiment: { extra_steps: 'many' } } }, inspect: true })).toThrow(/extra_steps/);
  });

  it('keys added to memrl.evaluator come out camelCased in the evaluator settings, after backend', () => {
    const registry = withToy([{ section: 'memrl.evaluator', after: 'backend', keys: { toy_strict: bool().default(true).describe('Toy: strict checks.') } }]);
    const cfg = loadConfig(undefined, {}, 'toy', { registry, inspect: true });
    expect(Object.keys(cfg.evaluator).slice(0, 3)).toEqual(['backend', 'bcbMode', 'toyStrict']);
    expect(cfg.evaluator.toyStrict).toBe(true);
  });

  it('a bad anchor or a key that is taken is one line naming the benchmark', () => {
    expect(() => configSchema(withToy([{ section: 'experiment', after: 'no_such_key', keys: EXTRA }]))).toThrow(/^benchmark toy: sharedKeys: experiment has no key no_such_key to put its keys after$/);
    expect(() => configSchema(withToy([{ section: 'experiment', keys: { mode: z.string() } }]))).toThrow(/^benchmark toy: sharedKeys: experiment\.mode is already a key$/);
  });

  it("a shared key's help says what each module says of it, in registry order", () => {
    const desc = (registry: ReturnType<typeof withToy>, key: string) => descriptionOf(schemaLeaves(configSchema(registry)).find((l) => l.path === key)!.schema);
    expect(desc(builtinRegistry(), 'experiment.max_steps')).toBe('LLB, ALFWorld: maximum turns per episode.');
    expect(desc(builtinRegistry(), 'memory.sim_norm_mean')).toBe('Fixed mean used to z-score cosine similarity in Phase B (per benchmark: BCB 0.31, HLE 0.18568, ALF 0.5187).');
    const toy = withToy([], { 'experiment.max_steps': 'Toy', 'memrl.run_validation': 'Toy: never' });
    expect(desc(toy, 'experiment.max_steps')).toBe('LLB, ALFWorld, Toy: maximum turns per episode.');
    expect(explainText('toy', toy)).toContain('BCB: experiment.bcb_run_validation; LLB: when experiment.valid_file is set; Toy: never; others: on;');
  });
});
