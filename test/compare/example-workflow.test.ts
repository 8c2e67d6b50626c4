/**
 * The example CI workflow stays in step with what is tested: its job is the command
 * cli-runs.test.ts runs, its baseline is a valid baseline of that job, and its data
 * hash check names the data memrl reads here.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseBaseline } from '../../src/compare/baseline-file.js';
import { sharedDataDir } from '../../src/util/paths.js';

interface Step {
  name?: string;
  run?: string;
  uses?: string;
}
const workflow = parse(readFileSync('examples/ci/memrl-regression.yml', 'utf8')) as { jobs: { regression: { steps: Step[] } } };
const steps = workflow.jobs.regression.steps;
const runs = steps.map((s) => s.run ?? '');

describe('examples/ci/memrl-regression.yml', () => {
  it('runs the deterministic job and gates on the committed baseline', () => {
    expect(runs).toContain('node bin/memrl.js run bcb --subset hard --limit 5 --epochs 2 --seed 2 --output-dir ci-results');
    const compare = runs.find((r) => r.startsWith('node bin/memrl.js compare examples/ci/baseline.json'));
    expect(compare).toMatch(/^node bin\/memrl\.js compare examples\/ci\/baseline\.json ci-results\/bcb\/\*\/ --tolerance 0\.02 .*--junit report\.xml/);
  });

  it('commits a baseline of exactly that job', () => {
    const runsInBaseline = parseBaseline(JSON.parse(readFileSync('examples/ci/baseline.json', 'utf8')), 'examples/ci/baseline.json');
    expect(runsInBaseline).toHaveLength(1);
    expect(runsInBaseline[0]).toMatchObject({ benchmark: 'bcb', method: 'memrl', model: 'sim', simulated: true, seed: 2, status: 'complete', split: 'hard_seed42.json (103/45), limit 5' });
    const train = runsInBaseline[0]!.phases.train!;
    expect(train.epochs.map((e) => e.epoch)).toEqual([1, 2]);
    expect(Object.keys(train.final ?? {})).toHaveLength(5);
  });

  it.skipIf(!existsSync(join(sharedDataDir(), 'bigcodebench')))('checks the sha256 of the data files memrl reads', () => {
    const check = runs.find((r) => r.startsWith('sha256sum -c'))!;
    const lines = check.split('\n').filter((l) => /^[0-9a-f]{64}  /.test(l));
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      const [sum, path] = line.split(/\s+/) as [string, string];
      const local = join(sharedDataDir(), path.replace(/^\.memrl-data\//, ''));
      expect(createHash('sha256').update(readFileSync(local)).digest('hex'), path).toBe(sum);
    }
  });
});
