/**
 * Run one command of a shell task: like env/bwrap/process.ts runProcess, with the
 * semantics of `docker exec` that shell tasks rely on. The command gets its own
 * process group; at the timeout the whole group is SIGKILLed. When the command
 * ends by itself, background jobs it started (`cmd &`) keep running inside the
 * task's sandbox (a later command or the evaluation may wait for them); they die
 * with the sandbox at dispose(). Output is captured once the command has exited
 * (a short grace lets pending output drain; a background job holding the pipe
 * does not keep the command open).
 */
import { spawn } from 'node:child_process';
import { KILL_GRACE_MS, SHELL_DRAIN_MS } from '../limits.js';

export interface ShellSpawnResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
  truncated: boolean;
  durationMs: number;
  spawnError?: string;
}


class Sink {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly cap: number) {}
  push(chunk: Buffer): void {
    const room = this.cap - this.size;
    if (room <= 0) {
      this.truncated = true;
      return;
    }
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (part !== chunk) this.truncated = true;
    this.chunks.push(part);
    this.size += part.length;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

export function spawnShellCommand(
  command: string,
  args: string[],
  opts: { env: Record<string, string>; timeoutMs: number; maxOutputBytes: number },
): Promise<ShellSpawnResult> {
  const started = Date.now();
  const out = new Sink(opts.maxOutputBytes);
  const err = new Sink(opts.maxOutputBytes);
  return new Promise((resolve) => {
    let settled = false;
    let timedOut = false;
    let spawnError: string | undefined;
    const child = spawn(command, args, { cwd: '/', env: opts.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.stdout.on('error', () => undefined);
    child.stderr.on('error', () => undefined);
    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone
      }
    };
    const finish = (code: number | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.stdout.destroy();
      child.stderr.destroy();
      resolve({
        stdout: out.text(),
        stderr: err.text(),
        exitCode: timedOut ? null : code,
        timedOut,
        truncated: out.truncated || err.truncated,
        durationMs: Date.now() - started,
        ...(spawnError !== undefined ? { spawnError } : {}),
      });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
      setTimeout(() => finish(null), KILL_GRACE_MS).unref();
    }, Math.max(1, opts.timeoutMs));
    child.on('error', (e) => {
      spawnError = e.message;
      finish(null);
    });
    let closed = 0;
    let exitCode: number | null = null;
    let exited = false;
    const onClose = (): void => {
      if (++closed === 2 && exited) finish(exitCode);
    };
    child.stdout.on('close', onClose);
    child.stderr.on('close', onClose);
    child.on('exit', (code) => {
      exited = true;
      exitCode = code;
      if (timedOut) {
        setTimeout(() => finish(null), SHELL_DRAIN_MS);
        return;
      }
      if (closed === 2) finish(code);
      else setTimeout(() => finish(code), SHELL_DRAIN_MS);
    });
  });
}
