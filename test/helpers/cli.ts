/** Running the built `memrl` binary as a user would (npm test builds it first). */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export const MEMRL_BIN = resolve('bin/memrl.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The child's pid (to find what it left behind). */
  pid?: number;
}

export function assertBuilt(): void {
  if (!existsSync(MEMRL_BIN) || !existsSync(resolve('dist/src/cli/main.js'))) throw new Error('run `npm run build` first (npm test does)');
}

export interface RunOptions {
  cwd?: string;
  /** The whole environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** On expiry the child gets SIGKILL and the result has code null, as with spawnSync. */
  timeoutMs?: number;
  /** Written to stdin, which is then closed (closed at once without it). */
  input?: string;
}

/**
 * `cmd <args>` to completion, as spawnSync would, without blocking the event loop: a
 * worker blocked for a minute cannot answer vitest's calls (`Timeout calling "onTaskUpdate"`).
 * Rejects only if the command cannot be started.
 */
export function runAsync(cmd: string, args: string[], opts: RunOptions = {}): Promise<CliResult> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdin.on('error', () => {}); // a child that exits without reading its input
    child.stdin.end(opts.input);
    const timer =
      opts.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            child.kill('SIGKILL');
            // A grandchild could hold the pipes open; spawnSync stops reading at the kill too.
            child.stdout.destroy();
            child.stderr.destroy();
          }, opts.timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      fail(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, pid: child.pid });
    });
  });
}

/** Runs `memrl <args>` in `cwd` with no API key unless `env` gives one. */
export function runMemrl(args: string[], opts: { cwd: string; env?: Record<string, string>; timeoutMs?: number; input?: string }): Promise<CliResult> {
  return runAsync(process.execPath, [MEMRL_BIN, ...args], {
    cwd: opts.cwd,
    env: { ...process.env, OPENAI_API_KEY: '', ...opts.env },
    timeoutMs: opts.timeoutMs ?? 300_000,
    input: opts.input,
  });
}
