import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readOutcomesArrow, writeOutcomesArrow } from '../../src/metrics/outcome-arrow.js';
import { row } from './helpers.js';
import { readWithPyarrow, requirePyarrow } from '../helpers/pyarrow-reader.js';
import { IN_CI } from '../helpers/require-engine.js';

describe('outcomes.arrow', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memrl-arrow-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const rows = [
    row({
      runId: 'run-1',
      taskId: 'BigCodeBench/1',
      taskIndex: 0,
      epoch: 1,
      status: 'pass',
      reward: 1,
      steps: 1,
      retrievedIds: ['m1', 'm2'],
      retrievedQ: [0.5, -0.25],
      latencyMs: 812.5,
      memoryId: 'm7',
      finishedAt: '2026-01-02T03:04:05.000Z',
      extra: { judge: 'yes', n: [1, 2] },
    }),
    row({ taskId: 'BigCodeBench/2', taskIndex: 1, epoch: 1, status: 'timeout', error: 'timed out', steps: 0 }),
    row({ taskId: 'v1', taskIndex: 0, epoch: 0, phase: 'valid', status: 'skipped', totalTokens: 0 }),
  ];

  it('is readable by apache-arrow with typed columns and the same values', () => {
    const path = join(dir, 'outcomes.arrow');
    writeOutcomesArrow(path, rows);
    const table = tableFromIPC(readFileSync(path));
    expect(table.numRows).toBe(3);

    const types = Object.fromEntries(table.schema.fields.map((f) => [f.name, `${f.type}${f.nullable ? '?' : ''}`]));
    expect(types).toMatchObject({
      taskId: 'Utf8',
      epoch: 'Int32',
      success: 'Bool',
      reward: 'Float64',
      retrievedIds: 'List<Utf8>',
      retrievedQ: 'List<Float64>?',
      error: 'Utf8?',
      extra: 'Utf8?',
    });

    expect(table.getChild('taskId')!.toArray()).toEqual(['BigCodeBench/1', 'BigCodeBench/2', 'v1']);
    expect([...table.getChild('epoch')!.toArray()]).toEqual([1, 1, 0]);
    expect([...table.getChild('success')!]).toEqual([true, false, false]);
    expect(table.getChild('status')!.get(1)).toBe('timeout');
    expect([...table.getChild('retrievedIds')!.get(0)!]).toEqual(['m1', 'm2']);
    expect([...table.getChild('retrievedQ')!.get(0)!]).toEqual([0.5, -0.25]);
    expect(table.getChild('retrievedQ')!.get(1)).toBeNull();
    expect(table.getChild('error')!.get(0)).toBeNull();
    expect(JSON.parse(table.getChild('extra')!.get(0) as string)).toEqual({ judge: 'yes', n: [1, 2] });
  });

  const pyarrow = requirePyarrow();
  it.skipIf(!pyarrow.ok && !IN_CI)('is read by pyarrow with the same values, nulls and lists, over many rows', () => {
    if (!pyarrow.ok) throw new Error(pyarrow.reason);
    // Enough rows for multi-byte validity bitmaps, with nulls and empty lists scattered.
    const many = Array.from({ length: 77 }, (_, i) =>
      row({
        taskId: `t/${i} — ü ${'x'.repeat(i % 5)}`,
        taskIndex: i,
        epoch: 1 + (i % 3),
        status: i % 4 === 0 ? 'pass' : 'fail',
        reward: i % 4 === 0 ? 1 : 0,
        retrievedIds: Array.from({ length: i % 4 }, (_, k) => `m${i}-${k}`),
        ...(i % 3 ? { retrievedQ: Array.from({ length: i % 4 }, (_, k) => k / 4 - 0.5) } : {}),
        ...(i % 5 === 0 ? { error: `failure ${i}` } : {}),
        ...(i % 2 ? { explored: i % 3 === 0 } : {}),
        ...(i % 7 === 0 ? { latencyMs: i * 1.5 } : {}),
        extra: i % 6 ? { i } : undefined,
      }),
    );
    const path = join(dir, 'many.arrow');
    writeOutcomesArrow(path, [...rows, ...many]);
    const read = readWithPyarrow(path);
    expect(read.types).toMatchObject({ taskId: 'string', epoch: 'int32', success: 'bool', reward: 'double', retrievedIds: 'list<item: string not null>', retrievedQ: 'list<item: double not null>?', error: 'string?', explored: 'bool?' });
    expect(read.rows).toHaveLength(rows.length + many.length);
    for (const [i, r] of [...rows, ...many].entries()) {
      const got = read.rows[i]!;
      expect([got.taskId, got.taskIndex, got.epoch, got.status, got.success, got.reward]).toEqual([r.taskId, r.taskIndex, r.epoch, r.status, r.success, r.reward]);
      expect([got.retrievedIds, got.retrievedQ, got.error, got.explored, got.latencyMs]).toEqual([r.retrievedIds, r.retrievedQ ?? null, r.error ?? null, r.explored ?? null, r.latencyMs ?? null]);
      expect(got.extra === null ? undefined : JSON.parse(got.extra as string)).toEqual(r.extra);
    }
  });

  it('round-trips rows exactly through readOutcomesArrow', () => {
    const path = join(dir, 'outcomes.arrow');
    writeOutcomesArrow(path, rows);
    expect(readOutcomesArrow(path)).toEqual(rows);
  });

  it('writes an empty table', () => {
    const path = join(dir, 'empty.arrow');
    writeOutcomesArrow(path, []);
    expect(tableFromIPC(readFileSync(path)).numRows).toBe(0);
    expect(readOutcomesArrow(path)).toEqual([]);
  });

  it('refuses values that do not fit the Int32 columns', () => {
    expect(() => writeOutcomesArrow(join(dir, 'x.arrow'), [row({ taskId: 'a', epoch: 1, totalTokens: 2 ** 31 })])).toThrow(
      /totalTokens/,
    );
  });
});
