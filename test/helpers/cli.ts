/** Running the built `memrl` binary as a user would (npm test builds it first). */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export const MEMRL_BIN = resolve('bin/memrl.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function assertBuilt(): void {
  if (!existsSync(MEMRL_BIN) || !existsSync(resolve('dist/src/cli/main.js'))) throw new Error('run `npm run build` first (npm test does)');
}

/** Runs `memrl <args>` in `cwd` with no API key unless `env` gives one. */
export function runMemrl(args: string[], opts: { cwd: string; env?: Record<string, string>; timeoutMs?: number }): CliResult {
  const r = spawnSync(process.execPath, [MEMRL_BIN, ...args], {
    cwd: opts.cwd,
    encoding: 'utf8',
    env: { ...process.env, OPENAI_API_KEY: '', ...opts.env },
    timeout: opts.timeoutMs ?? 300_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * `memrl <args>` without blocking the event loop: for tests whose fake endpoint runs
 * in the test process, or that run long enough that blocking would keep the worker
 * from answering vitest. Environment as runMemrl's: no API key unless `env` gives one.
 */
export function runMemrlAsync(args: string[], opts: { cwd: string; env?: Record<string, string> }): Promise<CliResult> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [MEMRL_BIN, ...args], { cwd: opts.cwd, env: { ...process.env, OPENAI_API_KEY: '', ...opts.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}
