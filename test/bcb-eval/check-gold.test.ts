import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { categorizeFailure, checkGoldBcb, normalizeTaskId, type GoldReport } from '../../src/bench/bcb/check-gold.js';
import { registerCheckGoldCommand } from '../../src/cli/commands/check-gold.js';
import { formatGoldSummary } from '../../src/bench/bcb/gold-command.js';
import { readBcbTasks } from '../../src/bench/bcb/dataset.js';
import { readGoldDurations, readShippedGoldDurations, recordGoldDurations } from '../../src/bench/bcb/gold-durations.js';
import { UserError } from '../../src/util/errors.js';
import { requireBcbPython } from '../env/require-sandbox.js';

const env = await requireBcbPython();
const scratch = mkdtempSync(join(tmpdir(), 'memrl-gold-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function program(): Command {
  const p = new Command('memrl').exitOverride();
  registerCheckGoldCommand(p);
  for (const c of p.commands) {
    c.exitOverride();
    for (const sub of c.commands) sub.exitOverride().configureOutput({ writeErr: () => undefined });
  }
  return p;
}

describe('gold failure categories', () => {
  it('sorts first errors into likely causes', () => {
    expect(categorizeFailure({ status: 'pass' })).toBeUndefined();
    expect(categorizeFailure({ status: 'timeout' })).toBe('timeout');
    expect(categorizeFailure({ status: 'runtime_error', firstError: "ModuleNotFoundError: No module named 'tensorflow'" })).toBe('missing_library');
    expect(categorizeFailure({ status: 'fail', firstError: 'test_x: LookupError: Resource punkt not found.' })).toBe('nltk_data');
    expect(categorizeFailure({ status: 'fail', firstError: 'test_x: ValueError: <urlopen error [Errno -3] Temporary failure in name resolution>' })).toBe('network');
    expect(categorizeFailure({ status: 'fail', firstError: "test_x: AttributeError: 'bool' object has no attribute 'all'" })).toBe('other');
  });

  it('accepts bare task numbers as ids', () => {
    expect(normalizeTaskId(' 13 ')).toBe('BigCodeBench/13');
    expect(normalizeTaskId('BigCodeBench/13')).toBe('BigCodeBench/13');
  });

  it('summarises a report with the failing ids and their first error', () => {
    const report = {
      subset: 'full',
      mode: 'reference',
      python: '/usr/bin/python3',
      pythonVersion: '3.11.2',
      missingLibs: ['tensorflow'],
      total: 2,
      passed: 1,
      passRate: 0.5,
      byStatus: { pass: 1, runtime_error: 1 },
      byCategory: { missing_library: 1 },
      medianMs: 2000,
      wallMs: 4000,
      failing: [{ id: 'BigCodeBench/9', status: 'runtime_error', durationMs: 1, category: 'missing_library', firstError: "No module named 'tensorflow'" }],
    } as unknown as GoldReport;
    const text = formatGoldSummary(report);
    expect(text).toContain('passed 1/2 (50.0%)');
    expect(text).toMatch(/BigCodeBench\/9\s+runtime_error\s+missing_library: No module named 'tensorflow'/);
    expect(text).toContain('libraries the sandbox lacks: tensorflow');
  });
});

describe('check-gold input errors', () => {
  it('rejects unknown ids with a user error', async () => {
    await expect(checkGoldBcb({ subset: 'full', mode: 'reference', concurrency: 1, ids: ['99999'] })).rejects.toThrow(UserError);
    await expect(checkGoldBcb({ subset: 'hard', mode: 'reference', concurrency: 1, ids: ['1'] })).rejects.toThrow(/BigCodeBench\/1/);
  });

  it('rejects bad flags before running anything', async () => {
    for (const argv of [
      ['check-gold', 'bcb', '--subset', 'medium'],
      ['check-gold', 'bcb', '--mode', 'official'],
      ['check-gold', 'bcb', '--concurrency', '0'],
      ['check-gold', 'bcb', '--limit', 'x'],
    ]) {
      await expect(program().parseAsync(argv, { from: 'user' })).rejects.toBeInstanceOf(CommanderError);
    }
  });

  it('reports a missing data file as a user error naming it', async () => {
    const missing = join(scratch, 'none.jsonl');
    await expect(program().parseAsync(['check-gold', 'bcb', '--data-path', missing], { from: 'user' })).rejects.toThrow(missing);
  });
});

describe.skipIf(env.skip)('check-gold bcb on real tasks', () => {
  it('runs canonical solutions and reports in id order', async () => {
    expect(env.ok, env.reason).toBe(true);
    const seen: string[] = [];
    const report = await checkGoldBcb({
      subset: 'full',
      mode: 'reference',
      concurrency: 2,
      ids: ['4', 'BigCodeBench/1'],
      onResult: (r) => seen.push(r.id),
    });
    expect(report.total).toBe(2);
    expect(report.passed).toBe(2);
    expect(report.passRate).toBe(1);
    expect(report.results.map((r) => r.id)).toEqual(['BigCodeBench/1', 'BigCodeBench/4']);
    expect(seen.sort()).toEqual(['BigCodeBench/1', 'BigCodeBench/4']);
    expect(report.failing).toEqual([]);
    expect(report.dataSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('starts the tasks that were slowest before first, keeps their new durations, and reports in id order', async () => {
    const path = join(scratch, 'durations.json');
    const tasks = readBcbTasks().tasks.filter((t) => ['BigCodeBench/1', 'BigCodeBench/4', 'BigCodeBench/5'].includes(t.id));
    // As an earlier check would have left them: 5 slowest, then 4.
    recordGoldDurations(path, tasks, new Map([['BigCodeBench/1', 10], ['BigCodeBench/4', 500], ['BigCodeBench/5', 900]]));
    const started: string[] = [];
    const check = (durationsPath: string | null) =>
      checkGoldBcb({ subset: 'full', mode: 'reference', concurrency: 1, ids: ['1', '4', '5'], durationsPath, onResult: (r) => started.push(r.id) });
    const report = await check(path);
    expect(started).toEqual(['BigCodeBench/5', 'BigCodeBench/4', 'BigCodeBench/1']);
    expect(report.results.map((r) => r.id)).toEqual(['BigCodeBench/1', 'BigCodeBench/4', 'BigCodeBench/5']);
    const kept = readGoldDurations(path);
    for (const r of report.results) expect(kept[r.id]?.ms).toBe(r.durationMs);

    // Without durations: id order.
    started.length = 0;
    await check(null);
    expect(started).toEqual(['BigCodeBench/1', 'BigCodeBench/4', 'BigCodeBench/5']);
  });

  it("starts a machine's first check by the durations shipped with memrl", async () => {
    // Shipped: 9 about 220 ms, 10 about 50 ms, 1 about 20 ms (read below, not assumed).
    const shipped = readShippedGoldDurations();
    const ids = ['1', '9', '10'].map((n) => `BigCodeBench/${n}`);
    const bySpeed = [...ids].sort((a, b) => (shipped[b]?.ms ?? 0) - (shipped[a]?.ms ?? 0));
    expect(bySpeed).not.toEqual(ids);
    const started: string[] = [];
    const check = (path: string, shippedDurations?: boolean) =>
      checkGoldBcb({ subset: 'full', mode: 'reference', concurrency: 1, ids, durationsPath: path, ...(shippedDurations === undefined ? {} : { shippedDurations }), onResult: (r) => started.push(r.id) });
    await check(join(scratch, 'first.json'));
    expect(started).toEqual(bySpeed);
    // Without them a first check knows nothing: id order.
    started.length = 0;
    await check(join(scratch, 'first-unshipped.json'), false);
    expect(started).toEqual(ids);
  });

  it('the command prints the summary, writes the JSON report and exits 0', async () => {
    const out = join(scratch, 'gold.json');
    const writes: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      writes.push(String(chunk));
      return true;
    });
    const before = process.exitCode;
    try {
      await program().parseAsync(['check-gold', 'bcb', '--ids', '1', '--mode', 'calibrated', '--out', out, '--quiet'], { from: 'user' });
    } finally {
      spy.mockRestore();
    }
    expect(process.exitCode).toBe(before);
    expect(writes.join('')).toContain('passed 1/1 (100.0%)');
    const report = JSON.parse(readFileSync(out, 'utf8')) as GoldReport;
    expect(report).toMatchObject({ total: 1, passed: 1, mode: 'calibrated', subset: 'full' });
    expect(report.results[0]?.id).toBe('BigCodeBench/1');
  });
});
