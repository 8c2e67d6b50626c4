/**
 * A run gets its data: the lookup order (cache, mirror, embedded sample), what a run
 * records of it (run.json, the banner, `memrl table`, `memrl report`), the embedded
 * sample refusing what it does not cover, and `--pull` fetching first. Runs are the built
 * CLI with the simulator; BigCodeBench's tests run for real in the sandbox.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bcbFile, BCB_SPLIT_FILES, BCB_TASKS_FILE } from '../../src/bench/bcb/data-files.js';
import { loadBcb } from '../../src/bench/bcb/dataset.js';
import { defaultHleTrainPath } from '../../src/bench/hle/data-files.js';
import { loadLlbFile, defaultLlbFile } from '../../src/bench/llb/dataset.js';
import { locateOrSample } from '../../src/data/locations.js';
import { packageRoot, sharedDataDir } from '../../src/util/paths.js';
import { assertBuilt, runMemrl } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { startOpenAIServer } from '../helpers/openai-server.js';
import { startDataServer, type DataServer } from './data-server.js';

const hasMirror = existsSync(join(sharedDataDir(), 'bigcodebench'));

/** process.env for the duration of `fn` (the lookup reads it, as a run does). */
async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T> | T): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(vars)) if (v === undefined) delete process.env[k];
  else process.env[k] = v;
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
}

function runDirOf(stdout: string): string {
  return /results: (.+)/.exec(stdout)![1]!.trim();
}

describe('where a run finds its data', () => {
  it.skipIf(!hasMirror)('reads the cache first, then the mirror, then the embedded sample', async () => {
    const tasks = bcbFile(BCB_TASKS_FILE);
    const mirror = sharedDataDir();
    const cache = tempDir('memrl-lookup-');
    mkdirSync(join(cache, 'bigcodebench'), { recursive: true });
    copyFileSync(join(sharedDataDir(), tasks.path), join(cache, tasks.path));
    await withEnv({ MEMRL_DATA_DIR: cache, MEMRL_DATA_MIRROR: undefined }, () => expect(locateOrSample(tasks)).toEqual({ path: join(cache, tasks.path), origin: 'cache' }));
    const empty = tempDir('memrl-lookup-empty-');
    await withEnv({ MEMRL_DATA_DIR: empty, MEMRL_DATA_MIRROR: mirror }, () => expect(locateOrSample(tasks)).toEqual({ path: join(mirror, tasks.path), origin: 'mirror' }));
    await withEnv({ MEMRL_DATA_DIR: empty, MEMRL_DATA_MIRROR: 'none' }, () =>
      expect(locateOrSample(tasks)).toEqual({ path: join(packageRoot(), 'data', 'samples', 'bcb', 'main-job-tasks.jsonl.gz'), origin: 'sample' }),
    );
  });

  it('uses the embedded BigCodeBench sample only for what it holds, and says which command fetches the rest', async () => {
    const empty = tempDir('memrl-sample-');
    const sample = (path: string): string => join(packageRoot(), bcbFile(path).sample!.path);
    const base = { dataPath: sample(BCB_TASKS_FILE), splitFile: sample(BCB_SPLIT_FILES.full), subset: 'full' as const, split: 'instruct' as const, trainRatio: 0.7, seed: 42 };
    await withEnv({ MEMRL_DATA_DIR: empty, MEMRL_DATA_MIRROR: 'none' }, async () => {
      const loaded = await loadBcb({ ...base, limit: 50 });
      expect([loaded.train.length, loaded.valid.length]).toEqual([50, 50]);
      for (const [opts, why] of [
        [{ limit: 51 }, '--limit 51'],
        [{}, 'all tasks'],
        [{ limit: 5, splitFile: null }, 'the split seeded from --seed 42'],
        [{ limit: 5, subset: 'hard' as const }, '--subset hard'],
      ] as const) {
        await expect(loadBcb({ ...base, ...opts })).rejects.toThrow(new RegExp(`embedded sample .* not what ${why.replace(/[-.]/g, '\\$&')} needs; \`memrl data pull bcb\``));
      }
    });
  });

  it("says which command fetches LLB's data, and runs HLE on the fixture only with the simulator", async () => {
    const empty = tempDir('memrl-missing-');
    await withEnv({ MEMRL_DATA_DIR: empty, MEMRL_DATA_MIRROR: 'none' }, () => {
      expect(() => loadLlbFile(defaultLlbFile('db', 'train'), 'db')).toThrow(/LLB data file not found: .*db_train\.json .*`memrl data pull llb`/);
      expect(defaultHleTrainPath(true)).toBe(join(packageRoot(), 'test', 'fixtures', 'hle', 'hle_snappy.parquet'));
      expect(defaultHleTrainPath(false)).toBeNull();
    });
  });
});

describe('what a run records of its data', () => {
  let server: DataServer | undefined;
  beforeAll(() => assertBuilt());
  afterAll(() => server?.close());

  const noData = (cache: string, extra: Record<string, string> = {}): Record<string, string> => ({ MEMRL_DATA_DIR: cache, MEMRL_DATA_MIRROR: 'none', ...extra });

  it('on the embedded sample: the banner, run.json, memrl table and memrl report say so', async () => {
    const dir = tempDir('memrl-sample-run-');
    const env = noData(join(dir, 'cache'));
    const r = await runMemrl(['run', 'bcb', '--limit', '2', '--epochs', '1', '--output-dir', 'out'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    const samples = join(packageRoot(), 'data', 'samples', 'bcb');
    expect(r.stderr).toContain(
      `  data: BigCodeBench: memrl's embedded sample, the first 50 train and 50 validation tasks of the paper's split, for --limit 50 or less (${samples}); memrl data pull bcb fetches the full set\n`,
    );
    const run = runDirOf(r.stdout);
    const manifest = JSON.parse(readFileSync(join(run, 'run.json'), 'utf8'));
    expect(manifest.dataset.sources).toEqual([
      expect.objectContaining({ dataset: 'bcb', file: BCB_TASKS_FILE, release: 'v0.1.0_hf (embedded sample)', origin: 'sample', url: bcbFile(BCB_TASKS_FILE).url, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }),
      expect.objectContaining({ dataset: 'bcb', file: BCB_SPLIT_FILES.full, release: 'MemRL@7c3beba (embedded sample)', origin: 'sample' }),
    ]);
    const table = await runMemrl(['table', run], { cwd: dir, env });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('Data: BigCodeBench: v0.1.0_hf (embedded sample), MemRL@7c3beba (embedded sample).');
    const report = await runMemrl(['report', run, '--out', join(dir, 'report.html')], { cwd: dir, env });
    expect(report.code, report.stderr).toBe(0);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('<td>v0.1.0_hf (embedded sample), MemRL@7c3beba (embedded sample)</td>');

    const wide = await runMemrl(['run', 'bcb', '--limit', '60', '--epochs', '1', '--output-dir', 'out'], { cwd: dir, env });
    expect(wide.code).toBe(2);
    expect(wide.stderr.trim().split('\n')).toHaveLength(1);
    expect(wide.stderr).toMatch(/not what --limit 60 needs; `memrl data pull bcb` fetches/);
  });

  it.skipIf(!hasMirror)('--pull fetches the missing release first and the run reads it from the cache', async () => {
    server = await startDataServer();
    const dir = tempDir('memrl-pull-run-');
    const env = noData(join(dir, 'cache'), { MEMRL_DATA_BASE_URL: server.url });
    const r = await runMemrl(['run', 'bcb', '--pull', '--limit', '1', '--epochs', '1', '--output-dir', 'out'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/--pull: fetching BigCodeBench v0\.1\.0_hf into the cache first/);
    expect(r.stderr).toContain(`  data: BigCodeBench v0.1.0_hf, MemRL@7c3beba, from the cache (MEMRL_DATA_DIR): ${join(dir, 'cache', 'bigcodebench')}\n`);
    const sources = JSON.parse(readFileSync(join(runDirOf(r.stdout), 'run.json'), 'utf8')).dataset.sources;
    expect(sources[0]).toMatchObject({ release: 'v0.1.0_hf', origin: 'cache', path: join(dir, 'cache', BCB_TASKS_FILE), contentSha256: bcbFile(BCB_TASKS_FILE).sha256 });
    expect(sources[1]).toMatchObject({ release: 'MemRL@7c3beba', origin: 'cache', sha256: bcbFile(BCB_SPLIT_FILES.full).sha256 });
    expect(readdirSync(join(dir, 'cache', 'bigcodebench', 'splits')).sort()).toEqual(['full_seed123.json', 'hard_seed42.json']);
  });

  it('HLE with a real model and nothing pulled stops in one line with the pull command, having asked the model nothing', async () => {
    const endpoint = await startOpenAIServer({ chat: () => 'Answer: A' });
    try {
      const dir = tempDir('memrl-hle-nodata-');
      const r = await runMemrl(['run', 'hle', '--model', 'm', '--base-url', endpoint.url, '--epochs', '1'], { cwd: dir, env: noData(join(dir, 'cache'), { OPENAI_API_KEY: 'sk-test-1234567' }) });
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/no HLE data given, none pulled; HLE is gated: .*`memrl data pull hle`/);
      expect(endpoint.requests.filter((q) => q.path.endsWith('/chat/completions'))).toEqual([]);
    } finally {
      await endpoint.close();
    }
  });

  it('the ALFWorld stand-in runs on its own examples when the release is not there', async () => {
    const dir = tempDir('memrl-standin-run-');
    const r = await runMemrl(['run', 'alfworld', '--limit', '1', '--epochs', '1', '--output-dir', 'out'], { cwd: dir, env: noData(join(dir, 'cache')) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/data: ALFWorld few-shot examples: memrl's embedded sample, one example per task type played in the household stand-in, for the stand-in only \(.*standin-examples\.json\)/);
    expect(r.stderr).toMatch(/data: household-standin:game-list: sha256 [0-9a-f]{64}/);
  });
});
