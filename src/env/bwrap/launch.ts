/**
 * A long-lived program in the local sandbox, its stdio on pipes: the same
 * bubblewrap sandbox and rlimits as runSandboxed, but the caller talks to the
 * program for as long as it lives instead of waiting for its exit. Its process
 * group is SIGKILLed by stop(), and bwrap's --die-with-parent takes it down with us.
 */
import { spawn } from 'node:child_process';
import { childPeer } from '../child-peer.js';
import type { PeerProcess } from '../contract.js';
import type { SandboxLimits } from '../limits.js';
import { sandboxRunAs } from './bwrap-args.js';
import { sandboxInvocation, SandboxUnavailableError } from './run.js';

export interface SandboxLaunchOptions {
  command: string[];
  env?: Record<string, string>;
  limits: SandboxLimits;
  /** The command is PID 1 of the sandbox (see BwrapCommandOptions.asPid1). */
  asPid1?: boolean;
}

export async function launchSandboxed(opts: SandboxLaunchOptions): Promise<PeerProcess> {
  const { path, args, env } = await sandboxInvocation(opts);
  const child = spawn(path, args, { cwd: '/', env, detached: true, stdio: ['pipe', 'pipe', 'pipe'], ...sandboxRunAs() });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (err) => reject(new SandboxUnavailableError(`cannot start bubblewrap: ${err.message}`)));
  });
  return childPeer(child, () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  });
}
