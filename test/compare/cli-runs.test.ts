/**
 * `memrl compare` on runs made by the real CLI (`memrl run bcb` under the sim model,
 * BigCodeBench tests in the bubblewrap sandbox): the job of examples/ci/memrl-regression.yml.
 * Needs dist/ (npm test builds first) and a working sandbox. About 20 s.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Comparison } from '../../src/compare/compare.js';
import { checkBwrap } from '../../src/env/bwrap/check.js';
import { checkJunit, expatParses } from './junit-check.js';
import { compareCli, oneLine } from './helpers.js';
import { runMemrl } from '../helpers/cli.js';

const bin = resolve('bin/memrl.js');
const committedBaseline = resolve('examples/ci/baseline.json');
const work = mkdtempSync(join(tmpdir(), 'memrl-compare-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The workflow's job: `memrl run bcb --subset hard --limit 5 --epochs 2 --seed 2`, plus extra flags. Returns the run folder. */
async function runBcb(out: string, extra: string[] = []): Promise<string> {
  const r = await runMemrl(['run', 'bcb', '--subset', 'hard', '--limit', '5', '--epochs', '2', '--seed', '2', '--output-dir', out, ...extra], { cwd: work, timeoutMs: 240_000 });
  if (r.code !== 0) throw new Error(`memrl run failed (${r.code}): ${r.stderr}`);
  const dir = join(work, out, 'bcb');
  return join(dir, readdirSync(dir)[0]!);
}

const finalTrain = (dir: string): Map<string, string> => {
  const rows = readFileSync(join(dir, 'outcomes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { taskId: string; epoch: number; phase: string; status: string });
  return new Map(rows.filter((r) => r.phase === 'train' && r.epoch === 2).map((r) => [r.taskId, r.status]));
};

let memrl1: string;
let memrl2: string;
let none: string;

beforeAll(async () => {
  if (!existsSync(bin) || !existsSync(resolve('dist/src/cli/main.js'))) throw new Error('run `npm run build` first (npm test does)');
  const bw = await checkBwrap();
  if (!bw.ok) throw new Error(`bubblewrap sandbox unavailable: ${bw.reason}`);
  memrl1 = await runBcb('ci-results');
  memrl2 = await runBcb('rerun');
  none = await runBcb('none', ['--method', 'none']);
}, 600_000);

describe('memrl compare on `memrl run bcb` runs', () => {
  it('passes the committed CI baseline with a run made exactly as the example workflow makes it', async () => {
    const report = join(work, 'report.xml');
    const r = await compareCli([committedBaseline, join(work, 'ci-results', 'bcb'), '--tolerance', '0.02', '--junit', report]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const { suite } = checkJunit(readFileSync(report, 'utf8'));
    expect(suite.attrs.failures).toBe('0');
    expect(expatParses(report)).not.toBe(false);
  });

  it('passes an identical re-run: same numbers, no task flipped', async () => {
    const r = await compareCli([memrl1, memrl2, '--format', 'json']);
    expect(r.code).toBe(0);
    const c = JSON.parse(r.stdout) as Comparison;
    // Equal where defined; a metric undefined on both sides (forgetting with nothing solved before) has no delta.
    expect(c.metrics.every((m) => m.delta === 0 || (m.delta === null && m.verdict === 'unavailable'))).toBe(true);
    expect(c.metrics.filter((m) => m.delta === 0).map((m) => m.metric)).toEqual(expect.arrayContaining(['last', 'csr']));
    expect(c.tasks.solvedToFailed.length + c.tasks.failedToSolved.length).toBe(0);
    expect(c.tasks.stillSolved + c.tasks.stillFailed).toBe(5);
  });

  it('refuses --method none against memrl, and with --force fails it with exit 1 and the flipped tasks', async () => {
    expect(oneLine(await compareCli([memrl1, none]))).toMatch(/method differs \(baseline memrl, candidate none\)/);

    const report = join(work, 'none.xml');
    const r = await compareCli([memrl1, none, '--force', '--per-task', '--junit', report]);
    expect(r.code).toBe(1);
    const [b, c] = [finalTrain(memrl1), finalTrain(none)];
    const flipped = [...b].filter(([id, s]) => s === 'pass' && c.get(id) !== 'pass').map(([id]) => id);
    expect(flipped.length).toBeGreaterThan(0);
    const after = r.stdout.split('solved → failed:\n')[1]!.split('\n');
    const listed = after.slice(0, after.findIndex((l) => !/^\s{4}\S/.test(l))).map((l) => l.trim().split(/\s+/)[0]);
    expect(listed.sort()).toEqual(flipped.sort());

    const { cases } = checkJunit(readFileSync(report, 'utf8'));
    expect(cases.find((x) => x.attrs.name === 'last')!.children[0]!.name).toBe('failure');
    const flipsOut = cases.at(-1)!.children[0]!.text;
    for (const id of flipped) expect(flipsOut).toContain(`solved → failed: ${id}`);

    // The committed baseline catches it too.
    expect((await compareCli([committedBaseline, none, '--force'])).code).toBe(1);
  });
});
