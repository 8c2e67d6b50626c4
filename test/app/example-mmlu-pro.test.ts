/**
 * The third example plug-in, MMLU-Pro (examples/plugins/mmlu-pro/): a benchmark from the
 * memory-agent literature built only through the public API. Its scorer is the
 * reference's answer extraction; it runs end to end on the shipped sample and on the
 * hub's Parquet format, and a missing file is one line saying where to download it.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { beforeAll, describe, expect, it } from 'vitest';
import { extractAnswer } from '../../examples/plugins/mmlu-pro/index.js';
import { assertBuilt, runMemrl } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const PLUGIN = resolve('examples/plugins/mmlu-pro/index.ts');
const SAMPLE = resolve('examples/plugins/mmlu-pro/data/sample.jsonl');
const sample = readFileSync(SAMPLE, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { question_id: number; question: string; options: string[]; answer: string; answer_index: number; category: string });
const jsonl = (path: string) => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

let work: string;
beforeAll(() => {
  assertBuilt();
  work = tempDir('memrl-mmlu-pro-');
  writeFileSync(join(work, 'sim.yaml'), 'llm:\n  provider: sim\nembedding:\n  provider: local\n');
});

describe('the MMLU-Pro scorer: the reference\'s three extraction patterns, in order', () => {
  it.each([
    ['Reasoning... so the answer is (C).', 'C'],
    ['**The answer is (D)**', 'D'],
    ['the answer is B', 'B'],
    ['First the answer is (C). Then again the answer is (D).', 'C'],
    ['Step 1: ...\nAnswer: G\nDone.', 'G'],
    ['I would pick E over F, finally H.', 'H'],
    ['No letter at all.', null],
  ])('%j → %s', (reply, letter) => {
    expect(extractAnswer(reply)).toBe(letter);
  });
});

describe('MMLU-Pro through the CLI', () => {
  it('runs the shipped sample end to end: a seeded split, rows scored against the sample\'s answers, the file in run.json', async () => {
    const r = await runMemrl(['run', 'mmlu-pro', '--plugin', PLUGIN, '--config', 'sim.yaml', '--epochs', '2', '--output-dir', 'sample'], { cwd: work, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    const runDir = /^results: (\S+)$/m.exec(r.stdout)![1]!;
    const rows = jsonl(join(runDir, 'outcomes.jsonl'));
    const train = new Set(rows.filter((x) => x.phase === 'train').map((x) => x.taskId));
    const valid = new Set(rows.filter((x) => x.phase === 'valid').map((x) => x.taskId));
    expect([train.size, valid.size]).toEqual([18, 6]);
    const byId = new Map(sample.map((q) => [`mmlu-pro/${q.question_id}`, q]));
    for (const row of rows) {
      const q = byId.get(row.taskId as string)!;
      const extra = row.extra as { expected: string; pred?: string; category: string };
      expect(extra).toMatchObject({ expected: q.answer, category: q.category });
      expect(row.status).toBe(extra.pred === q.answer ? 'pass' : 'fail');
    }
    const manifest = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));
    expect(JSON.stringify(manifest)).toContain(createHash('sha256').update(readFileSync(SAMPLE)).digest('hex'));
    expect(manifest).toMatchObject({ benchmark: 'mmlu-pro', benchmarkName: 'MMLU-Pro', method: 'memrl' });
  }, 150_000);

  it('reads the hub\'s Parquet (options padded with N/A, int64 ids) and keeps the categories asked for', async () => {
    const file = join(work, 'test-00000-of-00001.parquet');
    const buffer = parquetWriteBuffer({
      columnData: [
        { name: 'question_id', data: sample.map((q) => BigInt(q.question_id)), type: 'INT64' },
        { name: 'question', data: sample.map((q) => q.question), type: 'STRING' },
        { name: 'options', data: sample.map((q) => [...q.options, ...Array<string>(10 - q.options.length).fill('N/A')]) },
        { name: 'answer', data: sample.map((q) => q.answer), type: 'STRING' },
        { name: 'answer_index', data: sample.map((q) => BigInt(q.answer_index)), type: 'INT64' },
        { name: 'category', data: sample.map((q) => q.category), type: 'STRING' },
      ],
    });
    writeFileSync(file, Buffer.from(buffer));
    const r = await runMemrl(['run', 'mmlu-pro', '--plugin', PLUGIN, '--config', 'sim.yaml', '--questions', file, '--categories', 'economics,philosophy', '--epochs', '1', '--output-dir', 'parquet'], { cwd: work, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    const runDir = /^results: (\S+)$/m.exec(r.stdout)![1]!;
    const rows = jsonl(join(runDir, 'outcomes.jsonl'));
    expect(new Set(rows.map((x) => (x.extra as { category: string }).category))).toEqual(new Set(['economics', 'philosophy']));
    expect(new Set(rows.map((x) => x.taskId)).size).toBe(16);
    // The prompts as sent: a four-option question shows A-D only, the N/A padding dropped as the reference does.
    const transcripts = gunzipSync(readFileSync(join(runDir, 'transcript-parts.jsonl.gz'))).toString('utf8');
    expect(transcripts).toContain('Options: A. ');
    expect(transcripts).not.toContain('N/A');
    expect(JSON.stringify(JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')))).toContain(createHash('sha256').update(readFileSync(file)).digest('hex'));
  }, 150_000);

  it('a missing file or an unknown category is one line, exit 2', async () => {
    const missing = await runMemrl(['run', 'mmlu-pro', '--plugin', PLUGIN, '--config', 'sim.yaml', '--questions', 'nope.parquet', '--output-dir', 'none'], { cwd: work, timeoutMs: 60_000 });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`memrl: ${join(work, 'nope.parquet')}: no such file; download the test split from https://huggingface.co/datasets/TIGER-Lab/MMLU-Pro (data/test-00000-of-00001.parquet), or leave memrl.mmlu-pro.questions unset for the sample\n`);
    const unknown = await runMemrl(['run', 'mmlu-pro', '--plugin', PLUGIN, '--config', 'sim.yaml', '--categories', 'law', '--output-dir', 'none'], { cwd: work, timeoutMs: 60_000 });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^memrl: memrl\.mmlu-pro\.categories: law not in .*sample\.jsonl \(it has: economics, engineering, philosophy\)\n$/);
  }, 150_000);
});
