/**
 * The main job runs from the repository alone: the committed tree (git archive HEAD),
 * built, in a folder with no ../shared beside it and an empty cache, runs README
 * command 1's job on the embedded sample and says so in its banner.
 */
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAsync } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const inGit = existsSync(resolve('.git'));

describe('a clone with no data beside it', () => {
  it.skipIf(!inGit)("runs README command 1's job on the embedded sample", async () => {
    const root = tempDir('memrl-clone-');
    const clone = join(root, 'memrl');
    mkdirSync(clone);
    const unpacked = await runAsync('bash', ['-c', `git archive --format=tar HEAD | tar -x -C '${clone}'`]);
    expect(unpacked.code, unpacked.stderr).toBe(0);
    expect(existsSync(join(root, 'shared'))).toBe(false);
    symlinkSync(resolve('node_modules'), join(clone, 'node_modules'));
    const built = await runAsync('npm', ['run', 'build'], { cwd: clone, timeoutMs: 600_000 });
    expect(built.code, built.stderr).toBe(0);

    const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: join(root, 'cache'), OPENAI_API_KEY: '' };
    for (const k of ['MEMRL_DATA_DIR', 'MEMRL_DATA_MIRROR', 'MEMRL_DATA_BASE_URL']) delete env[k];
    const r = await runAsync(process.execPath, ['bin/memrl.js', 'run', 'bcb', '--epochs', '3', '--limit', '50'], { cwd: clone, env, timeoutMs: 900_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/50 train tasks \(no validation\) \(main-job-split\.json \(50\/50\), limit 50\)/);
    expect(r.stderr).toContain(`data: BigCodeBench: memrl's embedded sample, the first 50 train and 50 validation tasks of the paper's split, for --limit 50 or less (${join(clone, 'data', 'samples', 'bcb')})`);
    expect(r.stderr).toMatch(/done: 3\/3 epoch\(s\)/);
  }, 1_800_000);
});
