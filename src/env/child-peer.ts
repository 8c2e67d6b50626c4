/**
 * A child process of ours with its stdio on pipes, as a PeerProcess (a bridge, a
 * sandboxed fork server). An idle one does not keep node alive; requests in flight
 * hold timers of their own.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type { PeerProcess } from './contract.js';

/** `kill` ends it: the child itself, or its whole process group. */
export function childPeer(child: ChildProcessWithoutNullStreams, kill: () => void): PeerProcess {
  child.unref();
  for (const s of [child.stdin, child.stdout, child.stderr] as unknown as { unref?: () => void }[]) s.unref?.();
  child.stdin.on('error', () => undefined); // reported through `exited` / the write callback
  const ended = (): boolean => child.exitCode !== null || child.signalCode !== null;
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal ? `killed by ${signal}` : `exited with code ${code}`));
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
      return !ended() && !child.stdin.destroyed && child.stdin.writable;
    },
    async stop() {
      if (ended()) return;
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      // Unref'd, the child would not keep node alive until its exit is seen.
      child.ref();
      kill();
      await gone;
    },
  };
}
