/**
 * memrl as a package a plug-in depends on: `npm pack` of this checkout installs into a
 * folder outside it, where a multi-turn benchmark and a method with its own config
 * section (test/fixtures/package-plugins/, shapes the examples do not have) import
 * `memrl`, type-check against the package's .d.ts and run through its CLI. The folder's
 * package.json has no "type" (CommonJS): TypeScript plug-ins load whatever it says.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, MEMRL_BIN, runAsync, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const FIXTURES = resolve('test/fixtures/package-plugins');
const version = (pkg: string): string => (JSON.parse(readFileSync(resolve('node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;

let folder: string;

function npm(args: string[], cwd: string): Promise<CliResult> {
  return runAsync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, timeoutMs: 300_000 });
}

function node(args: string[]): Promise<CliResult> {
  return runAsync(process.execPath, args, { cwd: folder, timeoutMs: 120_000 });
}

const jsonl = (path: string): Record<string, unknown>[] => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(async () => {
  assertBuilt();
  const work = tempDir('memrl-package-');
  // dist/ is built (npm test builds first); pack it as it is.
  const packed = await npm(['pack', '--ignore-scripts', '--pack-destination', work], process.cwd());
  expect(packed.code, packed.stderr).toBe(0);
  const tarball = join(work, readdirSync(work).find((f) => f.endsWith('.tgz'))!);
  folder = join(work, 'my-plugins');
  mkdirSync(folder);
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'my-plugins', version: '1.0.0', private: true }, null, 2));
  for (const f of ['guess.ts', 'tally.ts', 'tsconfig.json']) copyFileSync(join(FIXTURES, f), join(folder, f));
  // memrl's dependencies come from the npm cache (or the registry); its install scripts are not needed to run plug-ins.
  const installed = await npm(['install', tarball, `typescript@${version('typescript')}`, `@types/node@${version('@types/node')}`, '--ignore-scripts', '--prefer-offline'], folder);
  expect(installed.code, installed.stderr).toBe(0);
}, 360_000);

describe('a plug-in folder outside the checkout, with memrl installed from its tarball', () => {
  it('type-checks against the package\'s declarations, which catch a wrong plug-in', async () => {
    const ok = await node(['node_modules/typescript/bin/tsc', '-p', '.']);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    writeFileSync(join(folder, 'wrong.ts'), "import type { BenchmarkModule } from 'memrl';\nexport const wrong: BenchmarkModule = { kind: 'benchmark', name: 'wrong', displayName: 'W', description: 'w', resolve: () => ({}), create: () => ({ name: 'wrong', envLabel: 'w' }) };\n");
    const wrong = await node(['node_modules/typescript/bin/tsc', '-p', '.']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stdout).toMatch(/^wrong\.ts\(2,\d+\): error TS2322/m);
    expect(wrong.stdout).toContain("is missing the following properties from type 'Benchmark<any>': load, episode, simPlayer, describeEvaluator");
    rmSync(join(folder, 'wrong.ts'));
  }, 120_000);

  it('runs a multi-turn benchmark and a configured method through the installed CLI', async () => {
    writeFileSync(join(folder, 'cfg.yaml'), 'llm:\n  provider: sim\nembedding:\n  provider: local\nmemrl:\n  tally:\n    k: 1\n');
    const r = await node(['node_modules/memrl/bin/memrl.js', 'run', 'guess', '--plugin', './guess.ts', '--plugin', './tally.ts', '--method', 'tally', '--config', 'cfg.yaml', '--epochs', '2', '--output-dir', 'results']);
    expect(r.code, r.stderr).toBe(0);
    const runDir = /^results: (\S+)$/m.exec(r.stdout)![1]!;
    const rows = jsonl(join(runDir, 'outcomes.jsonl'));
    // Multi-turn: episodes of several guesses, their conversations in traces.jsonl.
    expect(rows.some((row) => (row.steps as number) > 1)).toBe(true);
    expect(jsonl(join(runDir, 'traces.jsonl')).length).toBeGreaterThan(0);
    // The method's own section (k: 1) and its record of each decision.
    const epoch2 = rows.filter((row) => row.phase === 'train' && row.epoch === 2);
    expect(epoch2.every((row) => (row.retrievedIds as string[]).length <= 1)).toBe(true);
    expect(epoch2.some((row) => (row.retrievedIds as string[]).length === 1)).toBe(true);
    expect(epoch2.every((row) => typeof ((row.extra as { retrieval?: { explored?: unknown } }).retrieval?.explored) === 'boolean')).toBe(true);
    const memories = jsonl(join(runDir, 'memories.jsonl'));
    expect(memories.length).toBeGreaterThan(0);
    expect(memories.every((m) => /^tally-e\d+-t\d+$/.test(m.id as string))).toBe(true);
    // The benchmark's own flag sets its config key.
    const oneTurn = await node(['node_modules/memrl/bin/memrl.js', 'run', 'guess', '--plugin', './guess.ts', '--turns', '1', '--epochs', '1', '--output-dir', 'results-1']);
    expect(oneTurn.code, oneTurn.stderr).toBe(0);
    const oneDir = /^results: (\S+)$/m.exec(oneTurn.stdout)![1]!;
    expect(jsonl(join(oneDir, 'outcomes.jsonl')).every((row) => row.steps === 1)).toBe(true);
  }, 180_000);

  it('runs as well under another memrl (this checkout\'s): the plug-in links the memrl that runs it', async () => {
    const r = await node([MEMRL_BIN, 'run', 'guess', '--plugin', './guess.ts', '--plugin', './tally.ts', '--method', 'tally', '--epochs', '1', '--limit', '4', '--output-dir', 'results-checkout']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('done: 1/1 epoch(s)');
  }, 120_000);
});
