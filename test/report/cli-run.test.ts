/**
 * One result folder made the way a user makes it: the built CLI, `memrl run bcb`
 * with the sim model and the real sandbox (about 30 s). Tables and exports must
 * read it as they read the runner-made fixtures.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import { readOutcomeRows } from '../../src/metrics/outcome-store.js';
import { buildExport } from '../../src/report/export-cli.js';
import { renderTable } from '../../src/report/table-cli.js';
import { checkBwrap } from '../../src/env/bwrap/check.js';
import { csvRecords } from './csv-parse.js';
import { assertBuilt, runMemrl } from '../helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'memrl-report-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function memrl(args: string[]) {
  return runMemrl(args, { cwd: work });
}

let runDir = '';
beforeAll(async () => {
  assertBuilt();
  const bw = await checkBwrap();
  if (!bw.ok) throw new Error(`bubblewrap sandbox unavailable: ${bw.reason}`);
  const r = await memrl(['run', 'bcb', '--limit', '3', '--epochs', '2', '--output-dir', 'results']);
  if (r.code !== 0) throw new Error(`memrl run failed (${r.code}): ${r.stderr.trim().split('\n').at(-1)}`);
  const runs = readdirSync(join(work, 'results', 'bcb'));
  runDir = join(work, 'results', 'bcb', runs[0]!);
}, 300_000);

// Registered by src/cli/main.ts; until then the in-process checks below still cover the code.
const registered = buildProgram().commands.some((c) => c.name() === 'table');

describe('a result folder written by `memrl run bcb`', () => {
  it('gives a one-row BigCodeBench table marked as simulated', () => {
    const md = renderTable([join(work, 'results')], { metric: 'last' }).text;
    expect(md).toMatch(/^\| Method \| BigCodeBench \|\n\|---\|---:\|\n\| MemRL \| (0\.000|0\.333|0\.667|1\.000)† \|\n/);
    expect(md).toContain('† simulated model (sim): pipeline check, not a result.');
  });

  it('exports all its rows as CSV', () => {
    const rows = readOutcomeRows(join(runDir, 'outcomes.jsonl')).rows;
    const recs = csvRecords(Buffer.from(buildExport(runDir, { format: 'csv' }).bytes).toString('utf8'));
    expect(recs).toHaveLength(rows.length);
    expect(recs.map((r) => `${r.taskId}@${r.epoch}:${r.status}`)).toEqual(rows.map((r) => `${r.taskId}@${r.epoch}:${r.status}`));
  });

  it.skipIf(!registered)('`memrl table` and `memrl export` work from the command line', async () => {
    const t = await memrl(['table', 'results', '--format', 'csv']);
    expect(t.code).toBe(0);
    expect(csvRecords(t.stdout).map((r) => r.metric)).toEqual(['last', 'csr']);
    const bad = await memrl(['table', 'logs']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    const e = await memrl(['export', runDir, '--format', 'parquet', '--out', 'o.parquet']);
    expect(e.code).toBe(0);
    expect(existsSync(join(work, 'o.parquet'))).toBe(true);
  });
});
