/**
 * Spawn a process tree with a wall-clock limit and bounded output capture.
 *
 * The child gets its own process group (`detached`), so a timeout or an abort can
 * SIGKILL the whole group at once, not just the direct child. Inside bubblewrap the
 * group holds bwrap and the PID-namespace init; killing those tears down every
 * process of the namespace, including grandchildren that started new sessions.
 */
import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { KILL_GRACE_MS, PROCESS_OUTPUT_BYTES } from '../limits.js';
import { onAbort } from '../../util/abort.js';

export interface RunProcessOptions {
  /** Environment of the child: exactly this, nothing inherited. */
  env: Record<string, string>;
  cwd?: string;
  /** Written to stdin, then stdin is closed. */
  input?: string | Buffer;
  /** Wall-clock limit; the process group is SIGKILLed when it passes. */
  timeoutMs: number;
  /** Bytes kept from stdout and from stderr each; the rest is read and dropped. Default PROCESS_OUTPUT_BYTES. */
  maxOutputBytes?: number;
  /**
   * Also open fd 3 in the child as a pipe and capture it (up to this many bytes).
   * Used as a result channel that the program's own output cannot flood.
   */
  resultFdBytes?: number;
  /** Run as this uid/gid (only when we are root). */
  uid?: number;
  gid?: number;
  signal?: AbortSignal;
}

export interface RunProcessResult {
  exitCode: number | null;
  /** Signal that ended the process, if any (SIGKILL after a timeout). */
  exitSignal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Contents of fd 3 when `resultFdBytes` was set. */
  result: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  /** Set when the process could not be started at all (e.g. ENOENT). */
  spawnError?: string;
}

/** Collects up to `cap` bytes of a stream and keeps draining the rest so the writer never blocks. */
class CappedSink {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly cap: number) {}

  attach(stream: Readable | null | undefined): void {
    stream?.on('data', (chunk: Buffer) => this.push(chunk));
    stream?.on('error', () => undefined);
  }

  private push(chunk: Buffer): void {
    const room = this.cap - this.size;
    if (room <= 0) {
      this.truncated = true;
      return;
    }
    if (chunk.length > room) {
      this.chunks.push(chunk.subarray(0, room));
      this.size += room;
      this.truncated = true;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

export function runProcess(command: string, args: string[], opts: RunProcessOptions): Promise<RunProcessResult> {
  const started = Date.now();
  const stdout = new CappedSink(opts.maxOutputBytes ?? PROCESS_OUTPUT_BYTES);
  const stderr = new CappedSink(opts.maxOutputBytes ?? PROCESS_OUTPUT_BYTES);
  const result = new CappedSink(opts.resultFdBytes ?? 0);
  const withResultFd = opts.resultFdBytes !== undefined;

  return new Promise<RunProcessResult>((resolve) => {
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let spawnError: string | undefined;

    const child = spawn(command, args, {
      cwd: opts.cwd ?? '/',
      env: opts.env,
      detached: true,
      stdio: withResultFd ? ['pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe'],
      ...(opts.uid !== undefined ? { uid: opts.uid } : {}),
      ...(opts.gid !== undefined ? { gid: opts.gid } : {}),
    });

    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };

    stdout.attach(child.stdout);
    stderr.attach(child.stderr);
    if (withResultFd) result.attach(child.stdio[3] as Readable);

    const finish = (exitCode: number | null, exitSignal: NodeJS.Signals | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      stopWaiting();
      // Leftovers in the group (if the leader exited first) must not outlive the run.
      killGroup();
      resolve({
        exitCode,
        exitSignal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        result: result.text(),
        stdoutTruncated: stdout.truncated,
        stderrTruncated: stderr.truncated,
        timedOut,
        aborted,
        durationMs: Date.now() - started,
        ...(spawnError !== undefined ? { spawnError } : {}),
      });
    };

    let graceTimer: NodeJS.Timeout | undefined;
    let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const stopAfterKill = (): void => {
      killGroup();
      // 'close' waits for every pipe holder; if something keeps a pipe open, stop waiting.
      graceTimer = setTimeout(() => {
        for (const s of child.stdio) (s as Readable | Writable | null)?.destroy();
        finish(exitInfo?.code ?? null, exitInfo?.signal ?? 'SIGKILL');
      }, KILL_GRACE_MS);
    };

    const timer = setTimeout(() => {
      timedOut = true;
      stopAfterKill();
    }, Math.max(1, opts.timeoutMs));

    const abort = (): void => {
      aborted = true;
      stopAfterKill();
    };
    const stopWaiting = opts.signal ? onAbort(opts.signal, abort) : () => undefined;
    if (opts.signal?.aborted) abort();

    child.on('error', (err) => {
      spawnError = err.message;
      finish(null, null);
    });
    child.on('exit', (code, signal) => {
      exitInfo = { code, signal };
    });
    child.on('close', (code, signal) => finish(code, signal));

    child.stdin?.on('error', () => undefined); // the child may exit without reading its input
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    else child.stdin?.end();
  });
}
