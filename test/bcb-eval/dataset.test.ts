import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import {
  compareTaskIds,
  defaultBcbDataPath,
  loadBcb,
  parsePythonStringList,
  readBcbTasks,
  seededSplit,
  type LoadBcbOptions,
} from '../../src/bench/bcb/dataset.js';
import { UserError } from '../../src/util/errors.js';

const BASE: LoadBcbOptions = { subset: 'full', split: 'instruct', trainRatio: 0.7, seed: 123 };

const scratch = mkdtempSync(join(tmpdir(), 'memrl-bcb-data-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function task(n: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    task_id: `BigCodeBench/${n}`,
    complete_prompt: `complete ${n}`,
    instruct_prompt: `instruct ${n}`,
    canonical_solution: '    return 1\n',
    code_prompt: 'def task_func():\n',
    test: 'import unittest\nclass TestCases(unittest.TestCase):\n    pass\n',
    entry_point: 'task_func',
    libs: "['os', \"re\"]",
    doc_struct: '{}',
    ...extra,
  };
}

function writeJsonl(name: string, lines: string[]): string {
  const path = join(scratch, name);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

describe('BigCodeBench data file', () => {
  it('loads all 1140 tasks of the real gzipped file with typed fields', () => {
    const { tasks, source } = readBcbTasks();
    expect(tasks).toHaveLength(1140);
    expect(source.path).toBe(defaultBcbDataPath());
    expect(source.sha256).toMatch(/^[0-9a-f]{64}$/);
    const t0 = tasks.find((t) => t.id === 'BigCodeBench/0');
    expect(t0?.libs).toEqual(['random', 'itertools']);
    expect(t0?.entry_point).toBe('task_func');
    expect(t0?.test).toContain('class TestCases');
    expect(t0?.code_prompt).toMatch(/def task_func\(/);
  });

  it('uses the chosen prompt as the retrieval key', () => {
    const instruct = readBcbTasks(undefined, 'instruct').tasks[5];
    const complete = readBcbTasks(undefined, 'complete').tasks[5];
    expect(instruct?.key).toBe(instruct?.instruct_prompt);
    expect(complete?.key).toBe(complete?.complete_prompt);
    expect(instruct?.key).not.toBe(complete?.key);
  });

  it('reads plain .jsonl and gzip content alike', () => {
    const lines = [JSON.stringify(task(1)), JSON.stringify(task(2))];
    const plain = writeJsonl('plain.jsonl', lines);
    const gz = join(scratch, 'packed.jsonl.gz');
    writeFileSync(gz, gzipSync(lines.join('\n')));
    expect(readBcbTasks(plain).tasks.map((t) => t.id)).toEqual(['BigCodeBench/1', 'BigCodeBench/2']);
    expect(readBcbTasks(gz).tasks.map((t) => t.libs)).toEqual([['os', 're'], ['os', 're']]);
  });

  it('names the file and line of a malformed record', () => {
    const path = writeJsonl('broken.jsonl', [JSON.stringify(task(1)), '', JSON.stringify(task(2)), '{"task_id": "BigCodeBench/3", oops']);
    expect(() => readBcbTasks(path)).toThrow(UserError);
    expect(() => readBcbTasks(path)).toThrow(`${path} line 4`);
  });

  it('names the line of a record missing a field or with a bad libs list', () => {
    const noTest = { ...task(2) };
    delete noTest.test;
    const p1 = writeJsonl('missing-field.jsonl', [JSON.stringify(task(1)), JSON.stringify(noTest)]);
    expect(() => readBcbTasks(p1)).toThrow(/line 2: .*test/);
    const p2 = writeJsonl('bad-libs.jsonl', [JSON.stringify(task(1, { libs: 'os, re' }))]);
    expect(() => readBcbTasks(p2)).toThrow(/line 1: field libs/);
  });

  it('says where to get the data when the file is missing', () => {
    const missing = join(scratch, 'nope.jsonl.gz');
    expect(() => readBcbTasks(missing)).toThrow(UserError);
    expect(() => readBcbTasks(missing)).toThrow(missing);
    expect(() => readBcbTasks(missing)).toThrow(/memrl data pull bcb/);
    expect(() => readBcbTasks(missing)).toThrow(/--data-path|MEMRL_DATA_DIR/);
  });
});

describe('parsePythonStringList', () => {
  it('parses Python list literals of strings', () => {
    expect(parsePythonStringList("['random', 'itertools']")).toEqual(['random', 'itertools']);
    expect(parsePythonStringList('[]')).toEqual([]);
    expect(parsePythonStringList(` [ "a" ,'b\\'c' ] `)).toEqual(['a', "b'c"]);
  });
  it('rejects anything else', () => {
    for (const bad of ['random', "['a'", "['a' 'b']", '[1, 2]', "['a',", "'a'"]) expect(parsePythonStringList(bad)).toBeUndefined();
  });
});

describe('loadBcb splits', () => {
  it('uses full_seed123.json by default: 798 train / 342 valid in file order', async () => {
    const loaded = await loadBcb(BASE);
    expect(loaded.train).toHaveLength(798);
    expect(loaded.valid).toHaveLength(342);
    expect(loaded.train[0]?.id).toBe('BigCodeBench/582');
    expect(loaded.valid[0]?.id).toBe('BigCodeBench/89');
    expect(loaded.splitLabel).toContain('full_seed123.json (798/342)');
    expect(loaded.sources.map((s) => s.path.split('/').pop())).toEqual(['bigcodebench_full.jsonl.gz', 'full_seed123.json']);
    const ids = new Set([...loaded.train, ...loaded.valid].map((t) => t.id));
    expect(ids.size).toBe(1140);
  });

  it('hard subset: the 148 ids of hard_seed42.json, 103 / 45', async () => {
    const loaded = await loadBcb({ ...BASE, subset: 'hard' });
    expect(loaded.train).toHaveLength(103);
    expect(loaded.valid).toHaveLength(45);
    expect(loaded.train[0]?.id).toBe('BigCodeBench/969');
  });

  it('limit keeps the first N of train and of valid, each on its own', async () => {
    const loaded = await loadBcb({ ...BASE, limit: 5 });
    const full = await loadBcb(BASE);
    expect(loaded.train.map((t) => t.id)).toEqual(full.train.slice(0, 5).map((t) => t.id));
    expect(loaded.valid.map((t) => t.id)).toEqual(full.valid.slice(0, 5).map((t) => t.id));
    await expect(loadBcb({ ...BASE, limit: 0 })).rejects.toThrow(/limit/);
  });

  it('without a split file: numeric sort, seeded shuffle, cut at the ratio', async () => {
    const a = await loadBcb({ ...BASE, splitFile: null, seed: 7, trainRatio: 0.7 });
    const b = await loadBcb({ ...BASE, splitFile: null, seed: 7, trainRatio: 0.7 });
    const c = await loadBcb({ ...BASE, splitFile: null, seed: 8, trainRatio: 0.7 });
    expect(a.train).toHaveLength(798);
    expect(a.valid).toHaveLength(342);
    expect(a.train.map((t) => t.id)).toEqual(b.train.map((t) => t.id));
    expect(a.train.map((t) => t.id)).not.toEqual(c.train.map((t) => t.id));
    const hard = await loadBcb({ ...BASE, subset: 'hard', splitFile: null, seed: 7, trainRatio: 0.5 });
    expect(hard.train.length + hard.valid.length).toBe(148);
    expect(hard.train).toHaveLength(74);
  });

  it('the seeded split does not depend on the input order', () => {
    const ids = ['BigCodeBench/10', 'BigCodeBench/2', 'BigCodeBench/1', 'BigCodeBench/100'];
    expect(seededSplit(ids, 1, 0.5)).toEqual(seededSplit([...ids].reverse(), 1, 0.5));
    expect([...ids].sort(compareTaskIds)).toEqual(['BigCodeBench/1', 'BigCodeBench/2', 'BigCodeBench/10', 'BigCodeBench/100']);
  });

  it('rejects a split file naming tasks the data lacks, naming them', async () => {
    const dataPath = writeJsonl('small.jsonl', [1, 2, 3].map((n) => JSON.stringify(task(n))));
    const splitFile = join(scratch, 'split.json');
    writeFileSync(
      splitFile,
      JSON.stringify({ seed: 1, train_ratio: 0.5, total: 4, train_count: 2, val_count: 2, train_ids: ['BigCodeBench/1', 'BigCodeBench/2'], val_ids: ['BigCodeBench/3', 'BigCodeBench/77'] }),
    );
    await expect(loadBcb({ ...BASE, dataPath, splitFile })).rejects.toThrow(/BigCodeBench\/77/);
  });

  it('takes the minimal split file, {train_ids, val_ids}, and lists every problem of a bad one at once', async () => {
    const dataPath = writeJsonl('minimal.jsonl', [1, 2, 3].map((n) => JSON.stringify(task(n))));
    const splitFile = join(scratch, 'split-minimal.json');
    writeFileSync(splitFile, JSON.stringify({ train_ids: ['BigCodeBench/3', 'BigCodeBench/1'], val_ids: ['BigCodeBench/2'] }));
    const loaded = await loadBcb({ ...BASE, dataPath, splitFile });
    expect(loaded.train.map((t) => t.id)).toEqual(['BigCodeBench/3', 'BigCodeBench/1']);
    expect(loaded.valid.map((t) => t.id)).toEqual(['BigCodeBench/2']);
    const broken = join(scratch, 'split-broken.json');
    writeFileSync(broken, JSON.stringify({ train: ['BigCodeBench/1'], seed: 'x' }));
    await expect(loadBcb({ ...BASE, dataPath, splitFile: broken })).rejects.toThrow(/train_ids: Required; val_ids: Required; seed: Expected number/);
  });

  it('rejects a split file whose counts do not match its id lists', async () => {
    const splitFile = join(scratch, 'split-bad.json');
    writeFileSync(splitFile, JSON.stringify({ seed: 1, train_ratio: 0.5, total: 2, train_count: 5, val_count: 1, train_ids: ['BigCodeBench/1'], val_ids: ['BigCodeBench/2'] }));
    await expect(loadBcb({ ...BASE, splitFile })).rejects.toThrow(/train_count/);
  });
});
