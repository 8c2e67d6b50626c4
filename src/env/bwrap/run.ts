/**
 * Run one untrusted program in the local sandbox: bubblewrap for isolation,
 * prlimit for resource limits, a process group for the wall-clock kill.
 */
import { UserError } from '../../util/errors.js';
import { prlimitPrefix, type SandboxLimits } from '../limits.js';
import { baseSandboxEnv, bwrapArgs, sandboxRunAs } from './bwrap-args.js';
import { checkBwrap } from './check.js';
import { runProcess, type RunProcessResult } from './process.js';

export interface SandboxRunOptions {
  /** argv inside the sandbox; the first element is an absolute path. */
  command: string[];
  /** Added to (or overriding) the base sandbox environment. */
  env?: Record<string, string>;
  input?: string | Buffer;
  timeoutMs: number;
  limits: SandboxLimits;
  maxOutputBytes?: number;
  /** Capture fd 3 as a result channel of at most this many bytes. */
  resultFdBytes?: number;
  roBinds?: { src: string; dest: string }[];
  signal?: AbortSignal;
}

export class SandboxUnavailableError extends UserError {
  constructor(reason: string) {
    super(`local sandbox unavailable: ${reason}`);
    this.name = 'SandboxUnavailableError';
  }
}

/**
 * bwrap's path, its argv and the environment of a sandboxed command: the clean base
 * environment plus `env`, prlimit's rlimits first inside. Throws when there is no
 * usable bubblewrap here.
 */
export async function sandboxInvocation(opts: {
  command: string[];
  env?: Record<string, string>;
  limits: SandboxLimits;
  roBinds?: { src: string; dest: string }[];
  asPid1?: boolean;
}): Promise<{ path: string; args: string[]; env: Record<string, string> }> {
  const bwrap = await checkBwrap();
  if (!bwrap.ok) throw new SandboxUnavailableError(bwrap.reason);
  const env = { ...baseSandboxEnv(), ...opts.env };
  const args = bwrapArgs({
    command: [...prlimitPrefix(opts.limits), ...opts.command],
    env,
    tmpfsBytes: opts.limits.tmpfsBytes,
    features: bwrap.features,
    ...(opts.roBinds ? { roBinds: opts.roBinds } : {}),
    ...(opts.asPid1 ? { asPid1: true } : {}),
  });
  return { path: bwrap.path, args, env };
}

export async function runSandboxed(opts: SandboxRunOptions): Promise<RunProcessResult> {
  const { path, args, env } = await sandboxInvocation(opts);
  return runProcess(path, args, {
    // bwrap itself gets the same clean environment: nothing of ours leaks through it.
    env,
    timeoutMs: opts.timeoutMs,
    ...(opts.input !== undefined ? { input: opts.input } : {}),
    ...(opts.maxOutputBytes !== undefined ? { maxOutputBytes: opts.maxOutputBytes } : {}),
    ...(opts.resultFdBytes !== undefined ? { resultFdBytes: opts.resultFdBytes } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...sandboxRunAs(),
  });
}
