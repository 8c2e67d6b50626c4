/**
 * `memrl analyze` end to end on runs made by the real CLI (sim model, BigCodeBench
 * tests in the sandbox): analysis.json agrees with the rows it was computed from, the
 * per-epoch Q history reaches TensorBoard as histograms TensorBoard itself reads, and
 * --reward-noise changes what the memory learns, never the recorded outcome.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunAnalysis } from '../../src/analysis/analyze.js';
import { assertBuilt, runMemrl } from '../helpers/cli.js';
import { IN_CI } from '../helpers/require-engine.js';
import { tempDir } from '../helpers/temp.js';
import { readWithTensorBoard, requireTensorBoard } from '../helpers/tensorboard-reader.js';

const work = tempDir('memrl-analyze-cli-');
const runDir = (out: string, method: string): string => {
  const dir = join(work, out, 'bcb');
  return join(dir, readdirSync(dir).find((d) => d.includes(`-${method}-`))!);
};
const jsonl = <T>(path: string): T[] => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as T);

interface Row {
  taskId: string;
  epoch: number;
  status: string;
  success: boolean;
  retrievedQ?: number[];
  memoryId?: string;
  extra?: { rewardFlipped?: boolean };
}

let memrl: string;
let none: string;
let noisy: string;

beforeAll(async () => {
  assertBuilt();
  const run = async (out: string, extra: string[]): Promise<void> => {
    const r = await runMemrl(['run', 'bcb', '--limit', '6', '--epochs', '3', '--seed', '5', '--output-dir', out, ...extra], { cwd: work });
    if (r.code !== 0) throw new Error(`memrl run failed (${r.code}): ${r.stderr}`);
  };
  await run('clean', []);
  await run('clean', ['--method', 'none']);
  await run('noisy', ['--reward-noise', '0.5']);
  memrl = runDir('clean', 'memrl');
  none = runDir('clean', 'none');
  noisy = runDir('noisy', 'memrl');
}, 300_000);

describe('memrl analyze', () => {
  it('writes analysis.json into each run, computed from its rows', async () => {
    const r = await runMemrl(['analyze', join(work, 'clean')], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/q-critic +Q at retrieval vs episode success: Pearson/);
    expect(r.stdout).toMatch(/n\/a: none keeps no memory/);
    expect(r.stdout).toMatch(/similarity vs gain +bcb: similarity 0\.\d+; gain over none: memrl/);
    const a = JSON.parse(readFileSync(join(memrl, 'analysis.json'), 'utf8')) as RunAnalysis;
    const rows = jsonl<Row>(join(memrl, 'outcomes.jsonl'));
    const pairs = rows.filter((x) => x.status !== 'error').reduce((n, x) => n + (x.retrievedQ?.length ?? 0), 0);
    expect(pairs).toBeGreaterThan(0);
    expect('value' in a.qCritic && a.qCritic.value.overall.n).toBe(pairs);
    const memories = jsonl<{ id: string }>(join(memrl, 'memories.jsonl'));
    expect('value' in a.memory && a.memory.value.epochs.map((e) => e.memories)).toEqual([6, 12, 18].map((n) => Math.min(n, memories.length)));
    const acc = (e: number): number => rows.filter((x) => x.epoch === e && x.success).length / 6;
    expect(a.lifelong.learningGain).toBeCloseTo(acc(3) - acc(1), 12);
    expect(existsSync(join(none, 'analysis.json'))).toBe(true);
  });

  it('says in one line when a folder holds no run', async () => {
    const empty = join(work, 'empty');
    mkdirSync(empty, { recursive: true });
    const r = await runMemrl(['analyze', empty], { cwd: work });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`${empty}: holds no memrl run folder`);
  });
});

describe('Q per epoch', () => {
  it('q-history.jsonl holds every memory after each epoch; the last line is memories.jsonl', () => {
    const history = jsonl<{ epoch: number; ids: string[]; q: number[] }>(join(memrl, 'q-history.jsonl'));
    expect(history.map((h) => h.epoch)).toEqual([1, 2, 3]);
    const final = jsonl<{ id: string; q: number }>(join(memrl, 'memories.jsonl'));
    expect(history.at(-1)!.ids).toEqual(final.map((m) => m.id));
    expect(history.at(-1)!.q).toEqual(final.map((m) => m.q));
  });

  const tb = requireTensorBoard();
  it.skipIf(!tb.ok && !IN_CI)('TensorBoard reads one Q histogram per epoch, counting every memory', () => {
    if (!tb.ok) throw new Error(tb.reason);
    const read = readWithTensorBoard(join(memrl, 'tb'));
    const history = jsonl<{ epoch: number; q: number[] }>(join(memrl, 'q-history.jsonl'));
    const h = read.histograms['memrl/memory/q']!;
    expect(h.map((x) => x.step)).toEqual([1, 2, 3]);
    for (const [i, x] of h.entries()) {
      const q = history[i]!.q;
      expect(x.num).toBe(q.length);
      expect(x.bucket.reduce((a, b) => a + b, 0)).toBe(q.length);
      expect(x.min).toBeCloseTo(Math.min(...q), 12);
      expect(x.max).toBeCloseTo(Math.max(...q), 12);
      expect(x.sum).toBeCloseTo(q.reduce((a, b) => a + b, 0), 9);
    }
    expect(read.scalars).toContain('bcb/train/pass_at_1');
  });
});

describe('--reward-noise', () => {
  it('flips what the memory learns, never the recorded outcome', () => {
    const clean = jsonl<Row>(join(memrl, 'outcomes.jsonl'));
    const rows = jsonl<Row>(join(noisy, 'outcomes.jsonl'));
    // Epoch 1 retrieves from an empty memory, so its episodes are the clean run's: same verdicts.
    const e1 = (rs: Row[]): string[] => rs.filter((x) => x.epoch === 1).map((x) => `${x.taskId}:${x.status}`);
    expect(e1(rows)).toEqual(e1(clean));
    const flipped = rows.filter((x) => x.extra?.rewardFlipped);
    expect(flipped.length).toBeGreaterThan(0);
    expect(flipped.length).toBeLessThan(rows.length);
    const memories = new Map(jsonl<{ id: string; success: boolean }>(join(noisy, 'memories.jsonl')).map((m) => [m.id, m.success]));
    for (const x of rows.filter((r) => r.memoryId && memories.has(r.memoryId))) {
      expect(memories.get(x.memoryId!), x.memoryId).toBe(x.extra?.rewardFlipped ? !x.success : x.success);
    }
    const manifest = JSON.parse(readFileSync(join(noisy, 'run.json'), 'utf8')) as { config: { memrl: { reward_noise: number } } };
    expect(manifest.config.memrl.reward_noise).toBe(0.5);
  });

  it('a resume with another noise level is refused', async () => {
    const r = await runMemrl(['run', 'bcb', '--resume', noisy, '--reward-noise', '0.1'], { cwd: work });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/reward_noise/);
  });
});
