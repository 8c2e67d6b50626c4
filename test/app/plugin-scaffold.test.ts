/**
 * `memrl plugin new` makes a plug-in folder that runs as generated: npm install, its
 * one test (which runs the plug-in through memrl, offline) and the type check pass
 * without an edit, for a benchmark and for a method.
 */
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runAsync, runMemrl } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

let work: string;

beforeAll(() => {
  assertBuilt();
  work = tempDir('memrl-scaffold-');
});

describe('memrl plugin new', () => {
  it.each(['benchmark', 'method'] as const)('a %s folder installs, passes its test and type-checks as generated', async (kind) => {
    const made = await runMemrl(['plugin', 'new', kind, `my-${kind}`], { cwd: work, timeoutMs: 30_000 });
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain(`next: cd my-${kind} && npm install && npm test`);
    const dir = join(work, `my-${kind}`);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    // This checkout is the memrl it depends on (from a registry install: its version).
    expect(pkg.devDependencies.memrl).toBe(`file:${process.cwd()}`);
    expect(readFileSync(join(dir, 'index.ts'), 'utf8')).toContain(`name: 'my-${kind}'`);
    const npm = (args: string[]) => runAsync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, timeoutMs: 300_000 });
    const installed = await npm(['install', '--prefer-offline']);
    expect(installed.code, installed.stderr).toBe(0);
    const tested = await npm(['test']);
    expect(tested.code, tested.stdout + tested.stderr).toBe(0);
    expect(tested.stdout).toMatch(/^# pass 1$/m);
    const typed = await npm(['run', 'typecheck']);
    expect(typed.code, typed.stdout + typed.stderr).toBe(0);
  }, 360_000);

  it('refuses a folder that has files, and a kind it does not know, in one line', async () => {
    mkdirSync(join(work, 'taken'));
    writeFileSync(join(work, 'taken', 'index.ts'), 'mine');
    const taken = await runMemrl(['plugin', 'new', 'benchmark', 'taken'], { cwd: work, timeoutMs: 30_000 });
    expect(taken.code).toBe(2);
    expect(taken.stderr).toBe('memrl: memrl plugin new: taken is not empty; give a new folder\n');
    expect(readFileSync(join(work, 'taken', 'index.ts'), 'utf8')).toBe('mine');
    const kind = await runMemrl(['plugin', 'new', 'reporter', 'fresh'], { cwd: work, timeoutMs: 30_000 });
    expect(kind.code).toBe(2);
    expect(kind.stderr).toBe('memrl: memrl plugin new: kind `reporter` is neither benchmark nor method\n');
    expect(existsSync(join(work, 'fresh'))).toBe(false);
  });
});
