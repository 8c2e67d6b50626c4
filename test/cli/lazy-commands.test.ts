/**
 * The CLI lists its commands without loading them (for a fast `memrl --help`): the
 * listing must say what each command, once loaded, says of itself. And a command's
 * --help loads the command only, never what its action needs: no model SDK, container
 * client, columnar writer, queue or memory library.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { builtinRegistry } from '../../src/app/registry.js';
import { buildProgram, COMMANDS, prescan } from '../../src/cli/main.js';
import { assertBuilt, MEMRL_BIN, runAsync } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

/** What `--help` may load from node_modules: the command-line parser and the schema library. */
const HELP_PACKAGES = ['commander', 'zod'];

/** The npm packages a `memrl <args>` process loaded (ES modules through a loader hook, CommonJS from require's cache). */
async function packagesLoadedBy(args: string[]): Promise<string[]> {
  const dir = tempDir('memrl-loads-');
  const trace = join(dir, 'loaded.txt');
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) { appendFileSync(${JSON.stringify(trace)}, url + '\\n'); return next(url, context); }\n`,
  );
  writeFileSync(
    join(dir, 'register.mjs'),
    `import { appendFileSync } from 'node:fs';\nimport { createRequire, register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n` +
      `process.on('exit', () => appendFileSync(${JSON.stringify(trace)}, Object.keys(createRequire(import.meta.url).cache).join('\\n') + '\\n'));\n`,
  );
  writeFileSync(trace, '');
  const r = await runAsync(process.execPath, ['--import', pathToFileURL(join(dir, 'register.mjs')).href, MEMRL_BIN, ...args], { timeoutMs: 60_000 });
  expect(r.code, `memrl ${args.join(' ')}: ${r.stderr}`).toBe(0);
  const names = readFileSync(trace, 'utf8')
    .split('\n')
    .map((line) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(line)?.[1])
    .filter((n): n is string => n !== undefined);
  return [...new Set(names)].sort();
}

describe('lazily loaded commands', () => {
  it('each listed description is the loaded command\'s own', async () => {
    const listed = new Map(buildProgram().commands.map((c) => [c.name(), c.description()]));
    for (const entry of COMMANDS) {
      const program = new Command('memrl');
      await entry.register(program, builtinRegistry());
      const real = program.commands.find((c) => c.name() === entry.name);
      expect(real, entry.name).toBeDefined();
      expect(listed.get(entry.name), entry.name).toBe(real!.description());
    }
  });

  it('prescan finds the command and the plug-ins, however they are written', () => {
    expect(prescan(['run', 'bcb', '--epochs', '3'])).toEqual({ command: 'run', plugins: [] });
    expect(prescan(['--plugin', 'a.ts', 'run', 'x', '--plugin=b.js', '--', '--plugin', 'c'])).toEqual({ command: 'run', plugins: ['a.ts', 'b.js'] });
    expect(prescan(['help', 'config']).command).toBe('config');
    expect(prescan(['config', '--benchmark', 'llb', 'x.yaml']).command).toBe('config');
  });

  it('no --help loads more than the parser and the schema library (the SDK, containers, Arrow, BullMQ, mem0 load when a command runs)', async () => {
    assertBuilt();
    const lines = [...COMMANDS.map((c) => [c.name]), ...builtinRegistry().benchmarks.map((b) => ['run', b.name])];
    for (const line of lines) {
      const extra = (await packagesLoadedBy([...line, '--help'])).filter((p) => !HELP_PACKAGES.includes(p));
      expect(extra, `memrl ${line.join(' ')} --help`).toEqual([]);
    }
  }, 120_000);
});
