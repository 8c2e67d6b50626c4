/**
 * One evaluator container: create with the hardened defaults, start, exec with
 * stdin and demultiplexed stdout/stderr, kill, remove. Every docker backend (python
 * tests, SQL server, shell, bridge) goes through this file.
 *
 * Defaults (a spec may loosen them where a task needs it): no network, memory and
 * process limits, no-new-privileges, every capability dropped, read-only root with a
 * tmpfs at /tmp, labels naming the run.
 */
import { PassThrough, type Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { describeError, type Engine } from './engine.js';
import { containerLabels, type ContainerRole } from './labels.js';
import { onAbort } from '../../util/abort.js';
import { HarnessError } from '../../util/errors.js';
import { CONTAINER_TMPFS_BYTES, EXEC_OUTPUT_BYTES } from '../limits.js';

export interface BoxSpec {
  image: string;
  role: ContainerRole;
  /** Command of the container's main process (default: the image's; `sleep infinity` keeps a box warm for execs). */
  cmd?: string[];
  entrypoint?: string[];
  env?: Record<string, string>;
  user?: string;
  workdir?: string;
  /** Default false: no network at all (loopback only). */
  network?: boolean;
  memoryBytes: number;
  pids: number;
  /** Capabilities to keep (default none). */
  capAdd?: string[];
  /** Default true. */
  readOnlyRoot?: boolean;
  /** tmpfs mounts: path → size in bytes (default /tmp of 256 MiB). */
  tmpfs?: Record<string, number>;
  /** Keep stdin open for attach (bridges that speak over stdio). */
  openStdin?: boolean;
}

export interface ExecOptions {
  input?: string | Buffer;
  env?: Record<string, string>;
  user?: string;
  workdir?: string;
  /** Host-side wall clock limit; on expiry the result says timedOut and the stream is dropped. */
  timeoutMs: number;
  /** Bytes kept per stream (default 1 MiB); the rest is counted and dropped. */
  maxOutputBytes?: number;
  signal?: AbortSignal;
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  /** null when the exec did not finish (timeout, abort, container gone). */
  exitCode: number | null;
  timedOut: boolean;
  aborted: boolean;
  truncated: boolean;
  durationMs: number;
}

/** The container went away under us (killed from outside, engine restarted). */
export class ContainerGoneError extends HarnessError {
  constructor(id: string, detail: string) {
    super(`container ${id.slice(0, 12)} is gone (${detail}); it was killed from outside or the engine restarted`, 'container_gone');
    this.name = 'ContainerGoneError';
  }
}

/** The engine refused or failed an operation on a container (start, exec) that is still there. */
export class ContainerFault extends HarnessError {
  constructor(message: string) {
    super(message, 'container_failed');
    this.name = 'ContainerFault';
  }
}

export function hostConfigOf(spec: BoxSpec): Docker.HostConfig {
  const tmpfs = spec.tmpfs ?? { '/tmp': CONTAINER_TMPFS_BYTES };
  return {
    NetworkMode: spec.network ? 'bridge' : 'none',
    Memory: spec.memoryBytes,
    // Same as Memory: no swap on top of the limit.
    MemorySwap: spec.memoryBytes,
    PidsLimit: spec.pids,
    CapDrop: ['ALL'],
    ...(spec.capAdd?.length ? { CapAdd: spec.capAdd } : {}),
    SecurityOpt: ['no-new-privileges'],
    ReadonlyRootfs: spec.readOnlyRoot ?? true,
    Tmpfs: Object.fromEntries(Object.entries(tmpfs).map(([path, bytes]) => [path, `rw,nosuid,nodev,size=${bytes}`])),
    AutoRemove: false,
  };
}

export class Box {
  private removed = false;

  private constructor(
    readonly engine: Engine,
    readonly container: Docker.Container,
    readonly id: string,
    readonly spec: BoxSpec,
  ) {}

  /** Creates (not starts) a container; the image must exist (see ensureImage). */
  static async create(engine: Engine, spec: BoxSpec): Promise<Box> {
    const container = await engine.docker.createContainer({
      Image: spec.image,
      ...(spec.cmd ? { Cmd: spec.cmd } : {}),
      ...(spec.entrypoint ? { Entrypoint: spec.entrypoint } : {}),
      Env: Object.entries(spec.env ?? {}).map(([k, v]) => `${k}=${v}`),
      ...(spec.user ? { User: spec.user } : {}),
      ...(spec.workdir ? { WorkingDir: spec.workdir } : {}),
      Labels: containerLabels(spec.role),
      ...(spec.openStdin ? { OpenStdin: true, StdinOnce: false, AttachStdin: true, AttachStdout: true, AttachStderr: true } : {}),
      HostConfig: hostConfigOf(spec),
    });
    return new Box(engine, container, container.id, spec);
  }

  /** Creates and starts; removes the container again if the start fails. */
  static async start(engine: Engine, spec: BoxSpec): Promise<Box> {
    const box = await Box.create(engine, spec);
    try {
      await box.container.start();
    } catch (err) {
      await box.remove();
      throw new ContainerFault(`cannot start a ${spec.role} container from ${spec.image}: ${describeError(err)}`);
    }
    return box;
  }

  get shortId(): string {
    return this.id.slice(0, 12);
  }

  /** Runs a command inside; never throws for the command's own failure. Throws ContainerGoneError. */
  async exec(cmd: string[], opts: ExecOptions): Promise<ExecResult> {
    const started = Date.now();
    const max = opts.maxOutputBytes ?? EXEC_OUTPUT_BYTES;
    let exec: Docker.Exec;
    let stream: Duplex;
    try {
      exec = await this.container.exec({
        Cmd: cmd,
        AttachStdin: opts.input !== undefined,
        AttachStdout: true,
        AttachStderr: true,
        ...(opts.env ? { Env: Object.entries(opts.env).map(([k, v]) => `${k}=${v}`) } : {}),
        ...(opts.user ? { User: opts.user } : {}),
        ...(opts.workdir ? { WorkingDir: opts.workdir } : {}),
      });
      stream = (await exec.start({ hijack: true, stdin: opts.input !== undefined })) as Duplex;
    } catch (err) {
      throw await this.goneOr(err);
    }
    const out = collector(max);
    const err = collector(max);
    this.engine.docker.modem.demuxStream(stream, out.sink, err.sink);
    let timedOut = false;
    let aborted = false;
    const ended = new Promise<void>((resolveEnd) => {
      stream.once('end', () => resolveEnd());
      stream.once('close', () => resolveEnd());
      stream.once('error', () => resolveEnd());
    });
    const timer = setTimeout(() => {
      timedOut = true;
      stream.destroy();
    }, opts.timeoutMs);
    const stopWaiting = opts.signal
      ? onAbort(opts.signal, () => {
          aborted = true;
          stream.destroy();
        })
      : () => undefined;
    if (opts.input !== undefined) stream.end(opts.input);
    await ended;
    clearTimeout(timer);
    stopWaiting();
    let exitCode: number | null = null;
    if (!timedOut && !aborted) {
      try {
        const info = await exec.inspect();
        exitCode = info.Running ? null : (info.ExitCode ?? null);
      } catch (e) {
        throw await this.goneOr(e);
      }
      if (exitCode === null || exitCode >= 128) {
        // Unfinished or killed by a signal: the command's own fate, or the container died under it?
        const state = await this.state();
        if (!state.running) throw new ContainerGoneError(this.id, state.detail);
      }
    }
    return {
      stdout: out.text(),
      stderr: err.text(),
      exitCode,
      timedOut,
      aborted,
      truncated: out.truncated() || err.truncated(),
      durationMs: Date.now() - started,
    };
  }

  /** Is the container still running? */
  async state(): Promise<{ running: boolean; detail: string }> {
    try {
      const info = await this.container.inspect();
      const s = info.State;
      return { running: s.Running, detail: s.Running ? 'running' : `exited with ${s.ExitCode}${s.OOMKilled ? ', out of memory' : ''}` };
    } catch (err) {
      return { running: false, detail: describeError(err) };
    }
  }

  private async goneOr(err: unknown): Promise<Error> {
    const state = await this.state();
    if (!state.running) return new ContainerGoneError(this.id, state.detail);
    return new ContainerFault(`container ${this.shortId}: ${describeError(err)}`);
  }

  /** Attach to the main process's stdio (before start, for openStdin boxes). */
  async attach(): Promise<{ stdin: Duplex; stdout: PassThrough; stderr: PassThrough }> {
    const stream = (await this.container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as Duplex;
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    this.engine.docker.modem.demuxStream(stream, stdout, stderr);
    stream.once('end', () => {
      stdout.end();
      stderr.end();
    });
    return { stdin: stream, stdout, stderr };
  }

  /** Copies files into the container (a tar made here); works before start. */
  async putFiles(dir: string, files: { name: string; content: string | Buffer; mode?: number }[]): Promise<void> {
    const { pack } = await import('tar-stream');
    const p = pack();
    for (const f of files) p.entry({ name: f.name, mode: f.mode ?? 0o644 }, f.content);
    p.finalize();
    const chunks: Buffer[] = [];
    for await (const c of p) chunks.push(c as Buffer);
    await this.container.putArchive(Buffer.concat(chunks), { path: dir });
  }

  async kill(): Promise<void> {
    try {
      await this.container.kill({ signal: 'SIGKILL' });
    } catch {
      // already stopped or gone
    }
  }

  /**
   * Force-removes the container. Idempotent; never throws. A busy engine can refuse
   * (e.g. removal already in progress): a few tries, until it says the container is gone.
   */
  async remove(): Promise<void> {
    if (this.removed) return;
    this.removed = true;
    for (let attempt = 1; attempt <= 4; attempt++) {
      try {
        await this.container.remove({ force: true, v: true });
        return;
      } catch (err) {
        if ((err as { statusCode?: number }).statusCode === 404) return;
        if (attempt < 4) await new Promise((r) => setTimeout(r, 250 * attempt));
      }
    }
  }
}

function collector(max: number): { sink: PassThrough; text: () => string; truncated: () => boolean } {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  sink.on('data', (b: Buffer) => {
    const room = max - kept;
    if (room <= 0) {
      dropped += b.length;
      return;
    }
    const part = b.length > room ? b.subarray(0, room) : b;
    chunks.push(part);
    kept += part.length;
    dropped += b.length - part.length;
  });
  return { sink, text: () => Buffer.concat(chunks).toString('utf8'), truncated: () => dropped > 0 };
}
