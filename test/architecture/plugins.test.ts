/**
 * Plug-ins from outside src/: the example benchmark (examples/plugins/arithmetic) and
 * memory method (examples/plugins/recent-successes) run end to end through the built
 * CLI with --plugin, and show up in every output and command a built-in one does:
 * run folders, TensorBoard, `memrl table`, `memrl report`, `memrl compare`, `memrl
 * config --explain`, help. Bad plug-ins fail in one line naming the module.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runMemrl, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const BENCH_PLUGIN = resolve('examples/plugins/arithmetic/index.ts');
const METHOD_PLUGIN = resolve('examples/plugins/recent-successes/index.ts');

let work: string;
const runs: Record<string, string> = {};

function memrl(args: string[]): Promise<CliResult> {
  return runMemrl(args, { cwd: work, timeoutMs: 120_000 });
}

function runFolder(stdoutAndErr: CliResult): string {
  const m = /^results: (\S+)$/m.exec(stdoutAndErr.stdout);
  if (!m) throw new Error(`no run folder in: ${stdoutAndErr.stdout}${stdoutAndErr.stderr}`);
  return m[1]!;
}

/** One line on stderr, exit 2, naming the module. */
function expectOneLine(r: CliResult, module: string, what: RegExp): void {
  expect(r.code).toBe(2);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toContain(`plugin ${module}`);
  expect(r.stderr).toMatch(what);
}

beforeAll(async () => {
  assertBuilt();
  work = tempDir('memrl-plugins-');
  const base = ['--plugin', BENCH_PLUGIN, '--epochs', '2', '--output-dir', 'results'];
  for (const [name, extra] of [
    ['memrl', ['--method', 'memrl']],
    ['recent', ['--plugin', METHOD_PLUGIN, '--method', 'recent']],
  ] as const) {
    const r = await memrl(['run', 'arithmetic', ...base, ...extra]);
    expect(r.stderr).toContain('done: 2/2 epoch(s)');
    expect(r.code).toBe(0);
    runs[name] = runFolder(r);
  }
}, 180_000);

describe('example plug-ins, end to end through the CLI', () => {
  it('a plug-in benchmark writes a complete run folder, with the reference-free TensorBoard tags', () => {
    const dir = runs.memrl!;
    for (const f of ['run.json', 'outcomes.jsonl', 'outcomes.arrow', 'metrics.json', 'summary.json', 'memories.jsonl', 'responses.jsonl']) expect(existsSync(join(dir, f)), f).toBe(true);
    const manifest = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    expect(manifest).toMatchObject({ benchmark: 'arithmetic', benchmarkName: 'Arithmetic', method: 'memrl', model: 'sim', simulated: true });
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({ status: 'complete', epochsCompleted: 2, benchmark: 'arithmetic' });
    const rows = readFileSync(join(dir, 'outcomes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.benchmark === 'arithmetic' && ['pass', 'fail'].includes(r.status))).toBe(true);
    const tb = readdirSync(join(dir, 'tb'));
    const events = readFileSync(join(dir, 'tb', tb[0]!));
    for (const tag of ['memrl/train/acc', 'memrl/train/csr', 'memrl/valid/acc']) expect(events.includes(Buffer.from(tag)), tag).toBe(true);
  });

  it('a plug-in method runs through the same runner: its memories and statistics land in the run folder', () => {
    const dir = runs.recent!;
    const manifest = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    expect(manifest).toMatchObject({ method: 'recent', methodName: 'Recent successes' });
    const memories = readFileSync(join(dir, 'memories.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(memories.length).toBeGreaterThan(0);
    expect(memories.every((m) => /^recent-e\d+-t\d+$/.test(m.id) && m.success === true)).toBe(true);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary.memory).toMatchObject({ memories: memories.length, successes: memories.length });
    // From epoch 2 on, every training task got the latest successes injected.
    const rows = readFileSync(join(dir, 'outcomes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(rows.filter((r) => r.phase === 'train' && r.epoch === 2).every((r) => r.retrievedIds.length > 0)).toBe(true);
  });

  it('memrl table and memrl report show them by their display names, without loading the plug-ins', async () => {
    const table = await memrl(['table', 'results']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/\| Method \| Arithmetic Last \| Arithmetic CSR \|/);
    expect(table.stdout).toMatch(/^\| MemRL \|/m);
    expect(table.stdout).toMatch(/^\| Recent successes \|/m);
    const report = await memrl(['report', 'results', '--out', 'report.html']);
    expect(report.code).toBe(0);
    const html = readFileSync(join(work, 'report.html'), 'utf8');
    expect(html).toContain('Arithmetic');
    expect(html).toContain('Recent successes');
  });

  it('memrl compare gates a plug-in run like any other', async () => {
    const same = await memrl(['compare', runs.memrl!, runs.memrl!]);
    expect(same.code).toBe(0);
    expect(same.stdout + same.stderr).toContain('arithmetic');
    const different = await memrl(['compare', runs.memrl!, runs.recent!]);
    expect(different.code).toBe(2);
    expect(different.stderr).toMatch(/method/);
  });

  it('help, config and --explain list the plug-in benchmark, its flags and its config keys', async () => {
    const help = await memrl(['run', '--help', '--plugin', BENCH_PLUGIN]);
    expect(help.stdout).toMatch(/^\s+arithmetic \[options\]\s+Two-step arithmetic/m);
    const runHelp = await memrl(['run', 'arithmetic', '--help', '--plugin', BENCH_PLUGIN, '--plugin', METHOD_PLUGIN]);
    expect(runHelp.stdout).toContain('--problems <n>');
    expect(runHelp.stdout).toMatch(/choices: [^)]*"recent"/);
    const explain = await memrl(['config', '--explain', '--benchmark', 'arithmetic', '--plugin', BENCH_PLUGIN, '--plugin', METHOD_PLUGIN]);
    expect(explain.code).toBe(0);
    expect(explain.stdout).toMatch(/memrl\.arithmetic\.train\s+\(integer >= 1; default 40\) \[only arithmetic\]/);
    expect(explain.stdout).toMatch(/memrl\.recent\.k\s+\(integer >= 1; default 3\)/);
    const derived = await memrl(['config', '--benchmark', 'arithmetic', '--plugin', BENCH_PLUGIN, '--problems', '7', '--derived']);
    expect(derived.code).toBe(0);
    expect(derived.stdout).toMatch(/^bench:\n\s+train: 7$/m);
  });

  it('memrl.plugins in a config file loads them too', async () => {
    writeFileSync(join(work, 'plug.yaml'), `llm:\n  provider: sim\nembedding:\n  provider: local\nmemrl:\n  limit: 4\n  plugins:\n    - ${BENCH_PLUGIN}\n`);
    const r = await memrl(['run', 'arithmetic', '--config', 'plug.yaml', '--epochs', '1', '--output-dir', 'results-config']);
    expect(r.stderr).toContain('done: 1/1 epoch(s)');
    expect(r.code).toBe(0);
  });
});

describe('bad plug-ins: one line naming the module, exit 2', () => {
  const write = (name: string, text: string): string => {
    const path = join(work, name);
    writeFileSync(path, text);
    return path;
  };

  it('a module that does not exist', async () => {
    expectOneLine(await memrl(['run', '--help', '--plugin', 'no/such/plugin.js']), 'no/such/plugin.js', /no such file/);
  });

  it('a module that throws while loading', async () => {
    const p = write('throws.js', "throw new Error('boom at load');\n");
    expectOneLine(await memrl(['run', 'bcb', '--plugin', p]), p, /failed to load: boom at load/);
  });

  it('an export that does not satisfy the contract names the field', async () => {
    const p = write('lacks.mjs', "export default { kind: 'benchmark', name: 'lacks', displayName: 'Lacks', description: 'x', resolve: () => ({}) };\n");
    expectOneLine(await memrl(['run', '--help', '--plugin', p]), p, /benchmark "lacks": `create` is missing/);
    const m = write('badmethod.mjs', "export const m = { kind: 'method', name: 'Bad Name', displayName: 'B', description: 'x', create: () => ({}) };\n");
    expectOneLine(await memrl(['run', '--help', '--plugin', m]), m, /method "Bad Name": `name` is not a lowercase name/);
    const none = write('empty.mjs', 'export const nothing = 1;\n');
    expectOneLine(await memrl(['run', '--help', '--plugin', none]), none, /exports no benchmark or memory method/);
  });

  it('two plug-ins with the same name, or one named like a built-in, are refused', async () => {
    const twice = await memrl(['run', '--help', '--plugin', BENCH_PLUGIN, '--plugin', write('again.mts', `import a from '${BENCH_PLUGIN}';\nexport default { ...a };\n`)]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/the name `arithmetic` is already taken by plug-in/);
    const builtin = write('clash.mjs', "export default { kind: 'method', name: 'memrl', displayName: 'M', description: 'x', create: () => ({}) };\n");
    expectOneLine(await memrl(['run', '--help', '--plugin', builtin]), builtin, /the name `memrl` is already taken by a built-in method/);
  });
});
