/**
 * LLB's config as the reference runs it (run/run_llb.py → LLBRunner): the similarity
 * normalisation it really uses, dataset_ratio as Python's random.sample, and when it
 * validates.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/app/config.js';
import { loadLlbTasks } from '../../src/bench/llb/benchmark.js';
import { defaultLlbFile } from '../../src/bench/llb/dataset.js';
import { PyRandom } from '../../src/util/python/random.js';
import { pyFloat } from '../../src/util/python/text.js';

const tmp = mkdtempSync(join(tmpdir(), 'memrl-llb-config-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
function yaml(text: string): string {
  const p = join(tmp, `c${n++}.yaml`);
  writeFileSync(p, `llm:\n  provider: sim\nembedding:\n  provider: local\n${text}`);
  return p;
}
const IN_CI = /^(1|true)$/i.test(process.env.CI ?? '');
const python = spawnSync('python3', ['-c', 'print(1)']).status === 0;

describe('llb.sim-norm-from-yaml', () => {
  it("reference: Phase B z-scores with the memory service's defaults, whatever the YAML says", () => {
    const cfg = loadConfig(yaml('memory:\n  sim_norm_mean: 0.39\n  sim_norm_std: 0.14\n'), {}, 'llb');
    expect(cfg.memory.simNormMean).toBe(0.1856827586889267);
    expect(cfg.memory.simNormStd).toBe(0.09407906234264374);
  });

  it("memrl (and the fixed profile): the YAML's memory.sim_norm_mean / std", () => {
    const cfg = loadConfig(yaml('memory:\n  sim_norm_mean: 0.39\n  sim_norm_std: 0.14\nmemrl:\n  fidelity_switches:\n    llb.sim-norm-from-yaml: memrl\n'), {}, 'llb');
    expect([cfg.memory.simNormMean, cfg.memory.simNormStd]).toEqual([0.39, 0.14]);
    const fixed = loadConfig(yaml('memory:\n  sim_norm_mean: 0.27\n  sim_norm_std: 0.11\nmemrl:\n  fidelity: fixed\n'), {}, 'llb');
    expect([fixed.memory.simNormMean, fixed.memory.simNormStd]).toEqual([0.27, 0.11]);
  });
});

describe('experiment.valid_interval', () => {
  it('validates every valid_interval epochs, only with a valid_file; 0 leaves only the pass before training', () => {
    const on = loadConfig(yaml('experiment:\n  valid_interval: 3\n  valid_file: data/llb/db_val.json\n'), {}, 'llb');
    expect([on.run.runValidation, on.run.validInterval]).toEqual([true, 3]);
    const noFile = loadConfig(yaml('experiment:\n  valid_interval: 3\n'), {}, 'llb');
    expect(noFile.run.runValidation).toBe(false);
    const off = loadConfig(yaml('experiment:\n  valid_interval: 0\n  val_before_train: true\n  valid_file: data/llb/db_val.json\n'), {}, 'llb');
    expect([off.run.runValidation, off.run.validInterval, off.run.valBeforeTrain]).toEqual([true, 0, true]);
  });
});

describe('experiment.dataset_ratio', () => {
  it('is read, 1 by default (rl_llb_config.yaml)', () => {
    expect(loadConfig(undefined, {}, 'llb').bench.datasetRatio).toBe(1);
    expect(loadConfig(yaml('experiment:\n  dataset_ratio: 0.4\n'), {}, 'llb').bench.datasetRatio).toBe(0.4);
  });

  it("Python's random.seed(42); random.sample(range(10), 5)", () => {
    // CPython 3: [1, 0, 4, 9, 6].
    expect(new PyRandom(42).sample([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 5)).toEqual([1, 0, 4, 9, 6]);
  });

  it.skipIf(!python && !IN_CI)('picks the same training tasks as the reference, in the order drawn', () => {
    const file = defaultLlbFile('db', 'train');
    const ours = loadLlbTasks({ task: 'db', splitFile: file, validFile: file, validate: false, datasetRatio: 0.3, seed: 7 }).train.map((t) => t.index);
    const script = `import json,random\nkeys=sorted(json.load(open(${JSON.stringify(file)})).keys(),key=str)\nrandom.seed(7)\nprint(json.dumps(random.sample(keys,k=int(len(keys)*0.3))))`;
    const r = spawnSync('python3', ['-c', script], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(ours).toEqual(JSON.parse(r.stdout));
    expect(ours.length).toBe(Math.floor(361 * 0.3));
  });
});

describe("Python's float()", () => {
  it('accepts what CPython accepts', () => {
    expect([pyFloat(' 1_000 '), pyFloat('+5.'), pyFloat('.5e-1'), pyFloat('-inf'), pyFloat('1e3')]).toEqual([1000, 5, 0.05, -Infinity, 1000]);
    expect([pyFloat('1__0'), pyFloat('_1'), pyFloat('.'), pyFloat('$5'), pyFloat('0x10')]).toEqual([null, null, null, null, null]);
    expect(Number.isNaN(pyFloat('nan'))).toBe(true);
  });
});
