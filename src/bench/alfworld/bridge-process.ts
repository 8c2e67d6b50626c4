/**
 * Where a bridge runs: the "process" half of the bridge client. The client
 * (bridge-client.ts) owns the protocol, timeouts, restarts and error recording; a
 * transport only starts one `python3 -u bridge.py` with its stdio and says when it
 * ended. Two transports: a local child process (here) and a container
 * (bridge-container.ts).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { HarnessError } from '../../util/errors.js';
import { asset } from '../../util/paths.js';

export const BRIDGE_DIR = asset('src', 'bench', 'alfworld', 'python');
export const BRIDGE_SCRIPT = asset('src', 'bench', 'alfworld', 'python', 'bridge.py');

/** The bridge process crashed, was killed or hung, or could not be started; it is restarted on the next request. */
export class BridgeFault extends HarnessError {
  constructor(message: string) {
    super(message, 'bridge_fault');
    this.name = 'BridgeFault';
  }
}

/** One running bridge. */
export interface BridgeProcess {
  /** For logs: { pid } or { container }. */
  readonly where: Record<string, string | number>;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Resolves once the process is gone, with why ("killed by SIGKILL", "exited with code 1"). */
  readonly exited: Promise<string>;
  /** False once it ended or its stdin can no longer be written. */
  readonly running: boolean;
  /** Stops it at once and releases what it holds (a container is removed). Idempotent, never throws. */
  stop(): Promise<void>;
}

export interface BridgeTransport {
  readonly kind: 'local' | 'docker';
  /**
   * Starts a bridge. Throws BridgeFault when it cannot start (the episode becomes an
   * error), or a UserError for a setup problem that stops the run (no engine, no image).
   */
  launch(): Promise<BridgeProcess>;
  /** Releases everything still held (containers). */
  close(): Promise<void>;
  /** Facts for the run manifest. */
  describe(): Promise<Record<string, unknown>>;
}

export interface LocalTransportOptions {
  python?: string;
  script?: string;
  /** Extra environment variables for the child (PYTHONPATH for tests). */
  extraEnv?: Record<string, string>;
}

const live = new Set<ChildProcessWithoutNullStreams>();
let exitHook = false;

/** `python3 -u bridge.py` as a child of this process. */
export function localTransport(opts: LocalTransportOptions = {}): BridgeTransport {
  const python = opts.python ?? 'python3';
  return {
    kind: 'local',
    async launch() {
      const child = spawn(python, ['-u', opts.script ?? BRIDGE_SCRIPT], {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, ...(opts.extraEnv ?? {}) },
      });
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', (err) => reject(new BridgeFault(`cannot start the ALFWorld bridge with ${python}: ${err.message}`)));
      });
      live.add(child);
      if (!exitHook) {
        exitHook = true;
        process.once('exit', () => {
          for (const c of live) c.kill('SIGKILL');
        });
      }
      // An idle bridge must not keep node alive; pending requests hold a timer.
      child.unref();
      for (const s of [child.stdin, child.stdout, child.stderr] as unknown as { unref?: () => void }[]) s.unref?.();
      child.stdin.on('error', () => undefined); // reported through `exited` / the write callback
      const exited = new Promise<string>((resolve) => {
        child.once('exit', (code, signal) => {
          live.delete(child);
          resolve(signal ? `killed by ${signal}` : `exited with code ${code}`);
        });
        // Output closed first: the process is dying; do not wait for its exit status.
        child.stdout.once('close', () => resolve('closed its output (it died)'));
      });
      return {
        where: { pid: child.pid ?? -1 },
        stdin: child.stdin,
        stdout: child.stdout,
        stderr: child.stderr,
        exited,
        get running() {
          return child.exitCode === null && child.signalCode === null && !child.stdin.destroyed && child.stdin.writable;
        },
        async stop() {
          if (child.exitCode === null && child.signalCode === null) {
            const gone = new Promise<void>((r) => child.once('exit', () => r()));
            // Unref'd, the child would not keep node alive until its exit is seen.
            child.ref();
            child.kill('SIGKILL');
            await gone;
          }
        },
      };
    },
    close: async () => undefined,
    describe: async () => ({ backend: 'local', python }),
  };
}
