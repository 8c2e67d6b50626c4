import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { Command } from 'commander';
import { parquetReadObjects, parquetSchema, parquetMetadata } from 'hyparquet';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { registerExportCommand } from '../../src/cli/commands/export.js';
import { readOutcomesArrow } from '../../src/metrics/outcome-arrow.js';
import { parseOutcomeRow, type OutcomeRow } from '../../src/metrics/outcome-row.js';
import { buildExport } from '../../src/report/export-cli.js';
import { UserError } from '../../src/util/errors.js';
import { csvRecords } from './csv-parse.js';

const root = mkdtempSync(join(tmpdir(), 'memrl-export-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Rows that exercise every field and every CSV hazard (commas, quotes, newlines, unicode, empty lists). */
const ROWS: OutcomeRow[] = [
  {
    runId: 'r1',
    benchmark: 'bcb',
    taskId: 'BigCodeBench/1',
    taskIndex: 0,
    epoch: 1,
    phase: 'train',
    status: 'runtime_error',
    success: false,
    reward: 0,
    steps: 1,
    error: 'ValueError: bad value, "x" expected\n  second line',
    retrievedIds: ['m,1', 'm"2'],
    retrievedQ: [0.25, -0.5],
    retrievedSim: [0.9, 0.71234567890123],
    pool: 7,
    explored: true,
    promptTokens: 120,
    completionTokens: 30,
    totalTokens: 150,
    latencyMs: 12.5,
    finishedAt: '2026-11-22T07:00:00.000Z',
    extra: { note: 'größe, ünïcode', nested: { a: [1, 2] } },
  },
  {
    benchmark: 'bcb',
    taskId: 'BigCodeBench/2',
    taskIndex: 1,
    epoch: 1,
    phase: 'train',
    status: 'pass',
    success: true,
    reward: 1,
    steps: 1,
    retrievedIds: [],
    promptTokens: 100,
    completionTokens: 20,
    totalTokens: 120,
    memoryId: 'mem-7',
  },
  {
    benchmark: 'bcb',
    taskId: 'BigCodeBench/1',
    taskIndex: 0,
    epoch: 0,
    phase: 'valid',
    status: 'fail',
    success: false,
    reward: 0.5,
    steps: 3,
    error: ' leading space\nand a second line',
    retrievedIds: ['only'],
    retrievedQ: [0],
    retrievedSim: [1],
    promptTokens: 0,
    completionTokens: 0,
    totalTokens: 0,
  },
];

function fakeRun(name: string, rows: readonly OutcomeRow[]): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'run.json'), JSON.stringify({ benchmark: 'bcb', method: 'memrl', model: 'sim', simulated: true, seed: 1 }));
  writeFileSync(join(dir, 'outcomes.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return dir;
}

const JSON_COLUMNS = new Set(['retrievedIds', 'retrievedQ', 'retrievedSim', 'extra']);
const NUMBER_COLUMNS = new Set(['taskIndex', 'epoch', 'reward', 'steps', 'pool', 'promptTokens', 'completionTokens', 'totalTokens', 'latencyMs']);
const BOOL_COLUMNS = new Set(['success', 'explored']);

/** What a pandas user does by hand: empty = missing, JSON columns decoded, numbers and booleans typed. */
function rowFromCsv(rec: Record<string, string>): OutcomeRow {
  const raw: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rec)) {
    if (v === '') continue;
    raw[k] = JSON_COLUMNS.has(k) ? JSON.parse(v) : NUMBER_COLUMNS.has(k) ? Number(v) : BOOL_COLUMNS.has(k) ? v === 'true' : v;
  }
  return parseOutcomeRow(raw);
}

const dir = fakeRun('run', ROWS);
/** The rows as exported: a row without a run id gets its run folder's. */
const EXPORTED = ROWS.map((r) => ({ ...r, runId: r.runId ?? 'run' }));

describe('memrl export', () => {
  it('csv: every field, proper quoting, parses back to the same rows', () => {
    const text = Buffer.from(buildExport(dir, { format: 'csv' }).bytes).toString('utf8');
    const recs = csvRecords(text);
    expect(Object.keys(recs[0]!)).toEqual(expect.arrayContaining(['runId', 'taskId', 'retrievedQ', 'extra', 'memoryId', 'finishedAt']));
    // The 23 row fields, and where the rows came from: method, model, seed, simulated.
    expect(Object.keys(recs[0]!)).toHaveLength(27);
    expect(recs.map(rowFromCsv)).toEqual(EXPORTED);
    // Arrays are JSON text in one field.
    expect(recs[0]!.retrievedIds).toBe('["m,1","m\\"2"]');
  });

  it('every format says where each row came from: run id, method, model, seed, simulated', () => {
    const recs = csvRecords(Buffer.from(buildExport(dir, { format: 'csv' }).bytes).toString('utf8'));
    const manifest = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    for (const r of recs) expect(r).toMatchObject({ method: manifest.method, model: manifest.model, seed: String(manifest.seed), simulated: String(manifest.simulated) });
    const t = tableFromIPC(buildExport(dir, { format: 'arrow' }).bytes);
    expect(t.schema.fields.map((f) => f.name).slice(0, 5)).toEqual(['runId', 'method', 'model', 'seed', 'simulated']);
  });

  it('csv: pandas reads the awkward fields intact when the system Python has pandas', () => {
    const py = '/usr/bin/python3';
    if (spawnSync(py, ['-c', 'import pandas'], { encoding: 'utf8' }).status !== 0) return; // the strict reader above covers the format
    const file = join(root, 'pandas.csv');
    writeFileSync(file, buildExport(dir, { format: 'csv' }).bytes);
    const code = [
      'import json, pandas as pd',
      `d = pd.read_csv(${JSON.stringify(file)})`,
      'print(json.dumps([int(d.shape[0]), int(d.shape[1]), d["error"][0], json.loads(d["retrievedIds"][0]), json.loads(d["extra"][0])["note"], bool(pd.isna(d["memoryId"][0]))]))',
    ].join('\n');
    const r = spawnSync(py, ['-c', code], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([3, 27, ROWS[0]!.error, ['m,1', 'm"2'], 'größe, ünïcode', true]);
  });

  it('arrow: an IPC file that reads back to the same rows', () => {
    const out = join(root, 'o.arrow');
    writeFileSync(out, buildExport(dir, { format: 'arrow' }).bytes);
    const t = tableFromIPC(readFileSync(out));
    expect(t.numRows).toBe(3);
    expect([...t.getChild('retrievedIds')!.get(0)!]).toEqual(['m,1', 'm"2']);
    expect(readOutcomesArrow(out)).toEqual(EXPORTED);
  });

  it('parquet: typed columns with real lists, the same values', async () => {
    const bytes = buildExport(dir, { format: 'parquet' }).bytes;
    const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const objects = (await parquetReadObjects({ file })) as Record<string, unknown>[];
    expect(objects).toHaveLength(3);
    const o = objects[0]!;
    expect(o).toMatchObject({ taskId: 'BigCodeBench/1', epoch: 1, success: false, reward: 0, pool: 7, explored: true, latencyMs: 12.5 });
    expect(o.retrievedIds).toEqual(['m,1', 'm"2']);
    expect(o.retrievedQ).toEqual([0.25, -0.5]);
    expect(o.error).toBe(ROWS[0]!.error);
    expect(JSON.parse(o.extra as string)).toEqual(ROWS[0]!.extra);
    // An empty list stays an empty list; a missing one is missing (hyparquet reads a null list as undefined).
    expect(objects[1]).toMatchObject({ retrievedIds: [], memoryId: 'mem-7', error: null });
    expect(objects[1]!.retrievedQ == null).toBe(true);
    const leaves = parquetSchema(parquetMetadata(file)).children.map((c) => c.element.name);
    expect(leaves).toHaveLength(27);
  });

  it('fails in one line on a missing or unknown format and on a folder that is not a run', () => {
    const err = (fn: () => unknown): string => {
      try {
        fn();
      } catch (e) {
        expect(e).toBeInstanceOf(UserError);
        expect((e as UserError).exitCode).toBe(2);
        return (e as Error).message;
      }
      throw new Error('expected an error');
    };
    expect(err(() => buildExport(dir, {}))).toMatch(/--format is required: one of parquet, arrow, csv/);
    expect(err(() => buildExport(dir, { format: 'xlsx' }))).toMatch(/--format xlsx.*parquet, arrow, csv/);
    mkdirSync(join(root, 'plain'), { recursive: true });
    expect(err(() => buildExport(join(root, 'plain'), { format: 'csv' }))).toMatch(/plain: not a memrl run folder \(no run\.json\)/);
  });

  it('the command writes --out atomically and says how many rows', async () => {
    const program = new Command().exitOverride();
    registerExportCommand(program);
    const errs: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((c) => {
      errs.push(String(c));
      return true;
    });
    const out = join(root, 'cmd.csv');
    try {
      await program.parseAsync(['export', dir, '--format', 'csv', '--out', out], { from: 'user' });
    } finally {
      spy.mockRestore();
    }
    expect(errs.join('')).toBe(`memrl: wrote 3 rows to ${out}\n`);
    expect(csvRecords(readFileSync(out, 'utf8')).map(rowFromCsv)).toEqual(EXPORTED);
  });
});
