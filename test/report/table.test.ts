import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerTableCommand } from '../../src/cli/commands/table.js';
import { bootstrapMean, quantileSorted } from '../../src/report/bootstrap.js';
import { loadRuns } from '../../src/report/load-runs.js';
import { buildResultTable, cellKey } from '../../src/report/result-table.js';
import { renderTable, type TableFlags } from '../../src/report/table-cli.js';
import { TABLE_METRICS } from '../../src/report/table-metrics.js';
import { UserError } from '../../src/util/errors.js';
import { Rng } from '../../src/util/rng.js';
import { csvRecords } from './csv-parse.js';
import { buildGoldenSet, makeRun } from './fixtures.js';

const root = mkdtempSync(join(tmpdir(), 'memrl-table-'));
const golden = join(root, 'golden');
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeAll(() => buildGoldenSet(golden));

/** The error a user sees: a UserError with exit code 2 and one line. */
function userError(fn: () => unknown): UserError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    const e = err as UserError;
    expect(e.exitCode).toBe(2);
    expect(e.message).not.toContain('\n');
    return e;
  }
  throw new Error('expected a UserError');
}

const table = (paths: string[], flags: TableFlags = {}) => renderTable(paths, flags).text;

describe('memrl table: bad input', () => {
  it('says a folder without runs holds no run folder', () => {
    const empty = join(root, 'not-a-run');
    mkdirSync(join(empty, 'sub'), { recursive: true });
    writeFileSync(join(empty, 'notes.txt'), 'hello');
    expect(userError(() => table([empty])).message).toMatch(/not-a-run: holds no memrl run folder/);
  });

  it('names a path that does not exist', () => {
    expect(userError(() => table([join(root, 'nope')])).message).toMatch(/nope: no such file or folder/);
  });

  it('names the file and line of a broken outcomes row', () => {
    const broken = join(root, 'broken');
    cpSync(join(golden, 'bcb', 'memrl-s1'), broken, { recursive: true });
    const text = readFileSync(join(broken, 'outcomes.jsonl'), 'utf8').split('\n');
    text[2] = '{"taskId": 5}';
    writeFileSync(join(broken, 'outcomes.jsonl'), text.join('\n'));
    expect(userError(() => table([broken])).message).toMatch(/outcomes\.jsonl:3: .*broken; fix or move/);
  });

  it('names the flag and the valid values of a bad flag', () => {
    expect(userError(() => table([golden], { format: 'html' })).message).toMatch(/--format html.*md, latex, csv/);
    expect(userError(() => table([golden], { metric: 'last,acc' })).message).toMatch(/--metric acc.*last, csr, forgetting/);
    expect(userError(() => table([golden], { by: 'method' })).message).toMatch(/--by method: use method,benchmark/);
    expect(userError(() => table([golden], { phase: 'test' })).message).toMatch(/--phase test/);
    expect(userError(() => table([golden], { resamples: '0' })).message).toMatch(/--resamples 0/);
    expect(userError(() => table([golden], { seed: 'x' })).message).toMatch(/--seed x/);
  });

  it('refuses a validation table when no run validated', () => {
    expect(userError(() => table([golden], { phase: 'valid' })).message).toMatch(/--phase valid.*--run-validation/);
  });
});

describe('memrl table: marks that keep pipeline checks from passing as results', () => {
  const marks = join(root, 'marks');
  beforeAll(async () => {
    await makeRun(join(marks, 'alfworld', 'standin'), { benchmark: 'alfworld', env: 'household-standin', method: 'memrl', seed: 1 });
    await makeRun(join(marks, 'bcb', 'cut-short'), { benchmark: 'bcb', method: 'memrl', seed: 1, interruptAtEpoch: 3 });
    await makeRun(join(marks, 'bcb', 'complete'), { benchmark: 'bcb', method: 'memp', seed: 1 });
  });

  it('marks every sim cell with a dagger and explains it under the table', () => {
    const md = table([golden]);
    const cells = md.split('\n').filter((l) => /^\| (No memory|RAG|MemP|MemRL) \|/.test(l)).flatMap((l) => l.split('|').slice(2, -1));
    expect(cells).toHaveLength(16);
    for (const c of cells) expect(c.trim()).toMatch(/†$/);
    expect(md).toContain('† simulated model (sim): pipeline check, not a result.');
    expect(table([golden], { format: 'latex' })).toContain('$^{\\dagger}$ simulated model (sim): pipeline check, not a result.');
  });

  it('marks the ALFWorld stand-in and an interrupted run', () => {
    const md = table([marks], { metric: 'last' });
    // Columns in the paper's order: BigCodeBench, then ALFWorld.
    expect(md).toMatch(/\| MemRL \| (\*\*)?[0-9.]+(\*\*)?†§ \| [0-9.]+†‡ \|/);
    expect(md).toMatch(/\| MemP \| (\*\*)?[0-9.]+(\*\*)?† \| – \|/);
    expect(md).toContain('‡ ALFWorld stand-in environment (household-standin), not the real ALFWorld');
    expect(md).toContain('§ includes a run that did not finish');
    const csv = csvRecords(table([marks], { format: 'csv', metric: 'last' }));
    expect(csv.find((r) => r.benchmark === 'alfworld')).toMatchObject({ simulated: 'true', standin: 'true', unfinished: 'false' });
    expect(csv.find((r) => r.runs === 'cut-short')).toMatchObject({ simulated: 'true', standin: 'false', unfinished: 'true' });
  });

  it('never averages a sim run with a real one, and leaves the real one unmarked', () => {
    const mixed = join(root, 'mixed');
    cpSync(join(golden, 'bcb', 'memrl-s1'), join(mixed, 'sim'), { recursive: true });
    cpSync(join(golden, 'bcb', 'memrl-s2'), join(mixed, 'real'), { recursive: true });
    const manifestPath = join(mixed, 'real', 'run.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    writeFileSync(manifestPath, JSON.stringify({ ...manifest, model: 'gpt-4o-mini', simulated: false }));
    const md = table([mixed], { metric: 'last' });
    expect(md).toContain('| MemRL (gpt-4o-mini) | **0.583** |');
    expect(md).toContain('| MemRL (sim) | **0.583**† |');
  });

  it('notes on stderr when one cell holds two runs with the same seed', () => {
    const twice = join(root, 'twice');
    cpSync(join(golden, 'bcb', 'memrl-s1'), join(twice, 'a'), { recursive: true });
    cpSync(join(golden, 'bcb', 'memrl-s1'), join(twice, 'b'), { recursive: true });
    expect(renderTable([twice], {}).warnings).toEqual(['MemRL × BigCodeBench: 2 runs with seed 1, counted as separate runs']);
    expect(renderTable([golden], {}).warnings).toEqual([]);
  });
});

describe('memrl table: numbers', () => {
  it('bolds the highest accuracy and the lowest forgetting', () => {
    const runs = loadRuns([golden]);
    const t = buildResultTable(runs, { metrics: TABLE_METRICS, phase: 'train', resamples: 200, seed: 0 });
    const best = (bench: string, metric: string) => t.series.filter((s) => t.cells.get(cellKey(s.key, bench, metric))?.best).map((s) => s.method);
    // HLE (one seed each): last none/rag/memp 5/12, memrl 7/12; forgetting_flip rag = memp = 1/12 < memrl 0.125 < none 7/12.
    expect(best('hle', 'last')).toEqual(['memrl']);
    expect(best('hle', 'forgetting')).toEqual(['rag', 'memp']);
    expect(t.cells.get(cellKey('none', 'hle', 'forgetting'))?.mean).toBeCloseTo(7 / 12, 12);
    expect(best('bcb', 'forgetting')).toEqual(['memrl']);
    // bwt: higher (closer to 0) is better.
    const bwt = t.series.map((s) => t.cells.get(cellKey(s.key, 'hle', 'bwt'))!);
    const top = Math.max(...bwt.map((c) => c.mean!));
    expect(bwt.filter((c) => c.best).every((c) => c.mean === top)).toBe(true);
  });

  it('gives the same table on every call', () => {
    const flags = { format: 'csv', metric: 'last,csr,forgetting', resamples: '500' };
    expect(table([golden], flags)).toBe(table([golden], flags));
  });

  it('writes a long CSV that parses back to the unrounded cell values', () => {
    const rows = csvRecords(table([golden], { format: 'csv' }));
    expect(rows).toHaveLength(4 * 2 * 2);
    const memrl = rows.find((r) => r.method === 'memrl' && r.benchmark === 'bcb' && r.metric === 'last')!;
    expect(Number(memrl.mean)).toBe((7 / 12 + 7 / 12 + 8 / 12) / 3);
    expect(Number(memrl.ci_low)).toBe(7 / 12);
    expect(Number(memrl.ci_high)).toBe(8 / 12);
    expect(memrl).toMatchObject({ n: '3', seeds: '1;2;3', best: 'true', phase: 'train', model: 'sim', method_label: 'MemRL' });
    const single = rows.find((r) => r.method === 'none' && r.benchmark === 'hle' && r.metric === 'last')!;
    expect(single).toMatchObject({ n: '1', ci_low: '', ci_high: '' });
    const paper = csvRecords(table([golden], { format: 'csv', paper: true })).filter((r) => r.source === 'paper');
    expect(paper.map((r) => `${r.method}/${r.benchmark}/${r.metric}=${r.mean}`).sort()).toEqual(
      ['memp/bcb/last=0.494', 'memp/hle/last=0.528', 'memrl/bcb/last=0.508', 'memrl/hle/csr=0.613', 'memrl/hle/last=0.573', 'selfrag/bcb/last=0.5'],
    );
  });

  it('reads the CSV with pandas when the system Python has it', () => {
    const py = '/usr/bin/python3';
    const probe = spawnSync(py, ['-c', 'import pandas'], { encoding: 'utf8' });
    if (probe.status !== 0) return; // no pandas here: the strict reader above already covered the format
    const file = join(root, 'table.csv');
    writeFileSync(file, table([golden], { format: 'csv' }));
    const r = spawnSync(py, ['-c', `import pandas as pd; d = pd.read_csv(${JSON.stringify(file)}); print(d.shape[0], d.shape[1], d["n"].max(), round(d["mean"].max(), 6))`], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe(`16 18 3 ${Number((0.8055555555555555).toFixed(6))}`);
  });

  it('validation tables read the validation phase', async () => {
    const dir = join(root, 'valid', 'memrl');
    await makeRun(dir, { benchmark: 'bcb', method: 'memrl', seed: 1, valid: 5, epochs: 2 });
    const run = loadRuns([dir])[0]!;
    const rows = csvRecords(table([dir], { format: 'csv', phase: 'valid' }));
    expect(Number(rows.find((r) => r.metric === 'last')!.mean)).toBe(run.metrics.valid!.last);
    expect(rows[0]!.phase).toBe('valid');
  });
});

describe('bootstrap', () => {
  it('matches the exact percentiles of a two-value sample', () => {
    // Resample means of {0, 1} are 0, 0.5, 1 with p = 1/4, 1/2, 1/4: the 95% interval is [0, 1].
    const ci = bootstrapMean([0, 1], { resamples: 4000, rng: new Rng(3) });
    expect(ci).toEqual({ mean: 0.5, low: 0, high: 1, n: 2 });
  });

  it('narrows with more runs and stays inside the data range', () => {
    const rng = new Rng(11);
    const values = Array.from({ length: 40 }, () => rng.next());
    const small = bootstrapMean(values.slice(0, 5), { resamples: 2000, rng: new Rng(1) });
    const large = bootstrapMean(values, { resamples: 2000, rng: new Rng(1) });
    expect(large.high! - large.low!).toBeLessThan(small.high! - small.low!);
    expect(large.low!).toBeGreaterThanOrEqual(Math.min(...values));
    expect(large.low!).toBeLessThan(large.mean);
    expect(large.high!).toBeGreaterThan(large.mean);
  });

  it('is fixed by its seed', () => {
    const values = [0.1, 0.5, 0.3, 0.9, 0.2, 0.4, 0.8, 0.35, 0.6, 0.05];
    const at = (seed: number) => bootstrapMean(values, { resamples: 1000, rng: new Rng(seed) });
    expect(at(5)).toEqual(at(5));
    expect(new Set([1, 2, 3, 4].map((s) => `${at(s).low}/${at(s).high}`)).size).toBeGreaterThan(1);
  });

  it('has no interval for one run and a zero-width one for identical runs', () => {
    expect(bootstrapMean([0.4], { resamples: 100, rng: new Rng(0) })).toEqual({ mean: 0.4, low: null, high: null, n: 1 });
    expect(bootstrapMean([0.5, 0.5, 0.5], { resamples: 100, rng: new Rng(0) })).toMatchObject({ low: 0.5, high: 0.5 });
  });

  it('interpolates percentiles between order statistics', () => {
    expect(quantileSorted([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantileSorted([1, 2, 3, 4], 0.025)).toBeCloseTo(1.075, 12);
    expect(quantileSorted([1, 2, 3, 4], 1)).toBe(4);
  });
});

describe('memrl table command (Commander wiring)', () => {
  it('prints the table to stdout with the flags given', async () => {
    const program = new Command().exitOverride();
    registerTableCommand(program);
    const out: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out.push(String(chunk));
      return true;
    });
    try {
      await program.parseAsync(['table', golden, '--format', 'csv', '--metric', 'forgetting', '--resamples', '300', '--seed', '9'], { from: 'user' });
    } finally {
      spy.mockRestore();
    }
    const rows = csvRecords(out.join(''));
    expect(rows.map((r) => r.metric)).toEqual(Array(8).fill('forgetting'));
    expect(out.join('')).toBe(table([golden], { format: 'csv', metric: 'forgetting', resamples: '300', seed: '9' }));
  });
});

describe('memrl table: only seeds of one experiment are pooled', () => {
  const mixed = join(root, 'experiments');
  /** Give a fixture run the recorded config of a real one, with these settings. */
  const withConfig = (dir: string, config: Record<string, unknown>): void => {
    const p = join(dir, 'run.json');
    writeFileSync(p, JSON.stringify({ ...JSON.parse(readFileSync(p, 'utf8')), config }));
  };
  beforeAll(async () => {
    for (const seed of [1, 2]) await makeRun(join(mixed, `llb-db-s${seed}`), { benchmark: 'llb', env: 'llb-db', method: 'memrl', seed });
    await makeRun(join(mixed, 'llb-os-s1'), { benchmark: 'llb', env: 'llb-os', method: 'memrl', seed: 1 });
    for (const [name, limit, seed] of [['bcb-l10-s1', 10, 1], ['bcb-l10-s2', 10, 2], ['bcb-l5-s1', 5, 1]] as const) {
      await makeRun(join(mixed, name), { benchmark: 'bcb', method: 'memrl', seed });
      withConfig(join(mixed, name), { memrl: { limit, concurrency: seed * 2 }, experiment: { random_seed: seed, num_sections: 3 } });
    }
  });

  it('LLB db and os are separate columns, as in the paper', () => {
    const csv = csvRecords(table([mixed], { format: 'csv', metric: 'last' }));
    expect(csv.filter((r) => r.benchmark === 'llb-db')[0]).toMatchObject({ benchmark_label: 'LLB db', n: '2' });
    expect(csv.filter((r) => r.benchmark === 'llb-os')[0]).toMatchObject({ benchmark_label: 'LLB os', n: '1' });
    expect(table([mixed], { metric: 'last' })).toMatch(/^\| Method \| BigCodeBench \| LLB db \| LLB os \|$/m);
  });

  it('runs that differ in a setting other than the seed (or in nothing but speed) are rows of their own, named by what differs', () => {
    const csv = csvRecords(table([mixed], { format: 'csv', metric: 'last' })).filter((r) => r.benchmark === 'bcb');
    // The two limit-10 seeds pool (their concurrency does not count); limit 5 is another row.
    expect(csv.map((r) => [r.method_label, r.n]).sort()).toEqual([
      ['MemRL [limit 10]', '2'],
      ['MemRL [limit 5]', '1'],
    ]);
  });
});
