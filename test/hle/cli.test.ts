/**
 * `memrl run hle` as a user runs it: the built bin/memrl.js (build first:
 * npx tsc -p tsconfig.json) on the committed fixtures, with the offline sim.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOutcomeRows } from '../../src/metrics/outcome-store.js';
import { assertBuilt, MEMRL_BIN, runMemrl } from '../helpers/cli.js';

const ZSTD = resolve('test/fixtures/hle/hle_zstd.parquet');
const SNAPPY = resolve('test/fixtures/hle/hle_snappy.parquet');
const work = mkdtempSync(join(tmpdir(), 'memrl-hle-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
beforeAll(assertBuilt);

function memrl(args: string[]) {
  return runMemrl(args, { cwd: work, timeoutMs: 120_000 });
}

function runDir(out: string): string {
  const root = join(work, out, 'hle');
  return join(root, readdirSync(root)[0] as string);
}

describe('memrl run hle (quickstart: sim model, sim judge, local embedder)', () => {
  it('runs 2 epochs on the zstd fixture with validation and writes judge verdicts, labels and HLE TensorBoard tags', async () => {
    const r = await memrl(['run', 'hle', '--train', ZSTD, '--epochs', '2', '--train_valid_split', '0.5', '--limit', '20', '--output-dir', 'out']);
    expect(r.stderr).toMatch(/done: 2\/2/);
    expect(r.code).toBe(0);
    const dir = runDir('out');
    const rows = readOutcomeRows(join(dir, 'outcomes.jsonl')).rows;
    const train = rows.filter((x) => x.phase === 'train');
    const manifest = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    // The reference rounds down: int(n · 0.5) per category of 3,3,3,2,3,2,2,2 questions = 8 train, 12 valid.
    expect(manifest.dataset).toMatchObject({ train: 8, valid: 12 });
    expect(train).toHaveLength(2 * 8);
    expect(rows.filter((x) => x.phase === 'valid').length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(['pass', 'fail']).toContain(row.status);
      expect(row.extra).toMatchObject({ verdict: row.success ? 'yes' : 'no' });
      expect(typeof row.extra?.extractedAnswer).toBe('string');
    }
    // The undecodable image of q-chem-3 is a warning in its rows, not a lost question.
    const chem3 = rows.filter((x) => x.taskId === 'q-chem-3');
    for (const row of chem3) expect(row.extra?.imageWarning).toMatch(/q-chem-3/);
    expect(rows.some((x) => x.taskId === 'q-phys-2' && x.extra?.images === 1) || !rows.some((x) => x.taskId === 'q-phys-2')).toBe(true);
    // Epoch 2 retrieves memories written in epoch 1.
    expect(train.filter((x) => x.epoch === 2).some((x) => x.retrievedIds.length > 0)).toBe(true);

    const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    expect(run).toMatchObject({ benchmark: 'hle', model: 'sim', simulated: true, evaluator: { kind: 'llm-judge', judge: { provider: 'sim' } } });
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary.usage.byRole.judge.calls).toBe(rows.length);
    expect(summary.usage.byRole.agent.calls).toBe(rows.length);

    const tb = readdirSync(join(dir, 'tb'), { recursive: true }).map(String).filter((f) => f.includes('tfevents'));
    const events = tb.map((f) => readFileSync(join(dir, 'tb', f)).toString('latin1')).join('');
    for (const tag of ['Train/Section_Acc', 'Train/Cumulative_Acc', 'Evaluation/Acc', 'Valid/Cumulative_Acc']) expect(events).toContain(tag);
  }, 120_000);

  it('gives the same outcomes for the snappy and the zstd file (same questions, same seed)', async () => {
    const a = await memrl(['run', 'hle', '--train', SNAPPY, '--epochs', '1', '--output-dir', 'sn']);
    const b = await memrl(['run', 'hle', '--train', ZSTD, '--epochs', '1', '--output-dir', 'zs']);
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    const pick = (out: string) => readOutcomeRows(join(runDir(out), 'outcomes.jsonl')).rows.map((x) => [x.taskId, x.status]);
    expect(pick('sn')).toEqual(pick('zs'));
  }, 120_000);

  it('filters categories and caps from the command line (snake_case spellings too): categories one after another, or round-robin with hle.round-robin=memrl', async () => {
    const r = await memrl(['run', 'hle', '--train', ZSTD, '--epochs', '1', '--categories', 'Math', 'Physics', '--num_train', '4', '--output-dir', 'cat']);
    expect(r.code).toBe(0);
    const rows = readOutcomeRows(join(runDir('cat'), 'outcomes.jsonl')).rows;
    const run = JSON.parse(readFileSync(join(runDir('cat'), 'run.json'), 'utf8'));
    expect(rows).toHaveLength(4);
    // The reference: Math's 3 questions, then Physics (the file's order), so the cap takes the first categories.
    expect(run.trainTaskIds.map((id: string) => id.split('-')[1])).toEqual(['math', 'math', 'math', 'phys']);

    const rr = await memrl(['run', 'hle', '--train', ZSTD, '--epochs', '1', '--categories', 'Math', 'Physics', '--num_train', '4', '--fidelity-switch', 'hle.round-robin=memrl', '--output-dir', 'cat-rr']);
    expect(rr.code).toBe(0);
    const runRr = JSON.parse(readFileSync(join(runDir('cat-rr'), 'run.json'), 'utf8'));
    expect(runRr.trainTaskIds.map((id: string) => id.split('-')[1])).toEqual(['math', 'phys', 'math', 'phys']);
  }, 120_000);

  it("the YAML's hle_categories / hle_category_ratio apply only with hle.category-defaults=memrl (the reference's CLI defaults win)", async () => {
    writeFileSync(join(work, 'cats.yaml'), 'llm:\n  provider: sim\nembedding:\n  provider: local\nexperiment:\n  hle_categories: [Math]\n  hle_category_ratio: 0.5\n');
    const ref = await memrl(['run', 'hle', '--config', 'cats.yaml', '--train', ZSTD, '--epochs', '1', '--output-dir', 'yaml-ref']);
    expect(ref.code, ref.stderr).toBe(0);
    const refRun = JSON.parse(readFileSync(join(runDir('yaml-ref'), 'run.json'), 'utf8'));
    expect(refRun.trainTaskIds).toHaveLength(20);
    const own = await memrl(['run', 'hle', '--config', 'cats.yaml', '--train', ZSTD, '--epochs', '1', '--fidelity-switch', 'hle.category-defaults=memrl', '--output-dir', 'yaml-own']);
    expect(own.code, own.stderr).toBe(0);
    const ownRun = JSON.parse(readFileSync(join(runDir('yaml-own'), 'run.json'), 'utf8'));
    expect(ownRun.trainTaskIds.map((id: string) => id.split('-')[1])).toEqual(['math']);
  }, 120_000);

  for (const method of ['passk', 'reflection'] as const) {
    it(`--method ${method}: later epochs retry only unsolved questions`, async () => {
      const r = await memrl(['run', 'hle', '--train', ZSTD, '--epochs', '3', '--method', method, '--output-dir', method]);
      expect(r.code).toBe(0);
      const rows = readOutcomeRows(join(runDir(method), 'outcomes.jsonl')).rows.filter((x) => x.phase === 'train');
      const solvedBy = new Map<string, number>();
      for (const row of rows) {
        expect(solvedBy.has(row.taskId), `${row.taskId} retried after being solved`).toBe(false);
        if (row.success) solvedBy.set(row.taskId, row.epoch);
      }
      expect(rows.filter((x) => x.epoch === 2).length).toBeLessThan(rows.filter((x) => x.epoch === 1).length);
      if (method === 'reflection') expect(rows.filter((x) => x.epoch === 2).every((x) => x.retrievedIds.length === 1)).toBe(true);
      else expect(rows.every((x) => x.retrievedIds.length === 0)).toBe(true);
    }, 120_000);
  }

  it('one-line errors: missing column, unknown category, bad ratio flag (no --train: test/data/runs.test.ts)', async () => {
    const oneLine = (r: { code: number | null; stderr: string }, re: RegExp) => {
      expect(r.code).not.toBe(0);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(re);
    };
    oneLine(await memrl(['run', 'hle', '--train', ZSTD, '--categories', 'Poetry']), /--categories Poetry: no such category/);
    oneLine(await memrl(['run', 'hle', '--train', ZSTD, '--category-ratio', '2']), /category-ratio/);
    oneLine(await memrl(['run', 'hle', '--train', MEMRL_BIN]), /memrl\.js: not a readable Parquet file/);
  }, 120_000);
});
