/**
 * Is bubblewrap usable here, and if not, why (in words a user can act on)?
 * The result is cached per process: the probe spawns a real sandbox.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { promisify } from 'node:util';
import { BWRAP_PROBE, PRLIMIT_PATH } from '../limits.js';
import { baseSandboxEnv, bwrapArgs, parseBwrapFeatures, sandboxRunAs, type BwrapFeatures } from './bwrap-args.js';
import { runProcess } from './process.js';

const execFileAsync = promisify(execFile);

export const SETUP_HINT = 'install with: sudo bash scripts/setup.sh';

export type BwrapCheck = { ok: true; path: string; features: BwrapFeatures } | { ok: false; reason: string };

function findExecutable(name: string, dirs = ['/usr/bin', '/usr/local/bin', '/bin']): string | undefined {
  for (const dir of dirs) {
    const p = `${dir}/${name}`;
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // next
    }
  }
  return undefined;
}

let bwrapCheck: Promise<BwrapCheck> | undefined;

/** Finds bwrap and prlimit and starts one trivial sandbox with the real settings. */
export function checkBwrap(): Promise<BwrapCheck> {
  bwrapCheck ??= probeBwrap();
  return bwrapCheck;
}

async function probeBwrap(): Promise<BwrapCheck> {
  if (process.platform !== 'linux') return { ok: false, reason: `bubblewrap needs Linux (this is ${process.platform}); use the container backend` };
  const path = findExecutable('bwrap');
  if (!path) return { ok: false, reason: `bubblewrap (bwrap) is not installed; ${SETUP_HINT}` };
  if (!findExecutable('prlimit')) return { ok: false, reason: `prlimit (util-linux) is not installed at ${PRLIMIT_PATH}; ${SETUP_HINT}` };
  let help: string;
  try {
    const out = await execFileAsync(path, ['--help'], { timeout: 10_000 });
    help = out.stdout + out.stderr;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    help = (e.stdout ?? '') + (e.stderr ?? '');
    if (!help) return { ok: false, reason: `${path} --help failed: ${e.message}` };
  }
  const features = parseBwrapFeatures(help);
  const env = baseSandboxEnv();
  const res = await runProcess(
    path,
    bwrapArgs({ command: [PRLIMIT_PATH, `--nproc=${BWRAP_PROBE.maxProcesses}:${BWRAP_PROBE.maxProcesses}`, '--', '/bin/sh', '-c', 'echo ok'], env, tmpfsBytes: BWRAP_PROBE.tmpfsBytes, features }),
    { env, timeoutMs: BWRAP_PROBE.timeoutMs, ...sandboxRunAs() },
  );
  if (res.stdout.trim() === 'ok') return { ok: true, path, features };
  const detail = (res.spawnError ?? res.stderr.trim().split('\n')[0]) || `exit code ${res.exitCode}`;
  return {
    ok: false,
    reason:
      `bwrap cannot create a sandbox here (${detail}); unprivileged user namespaces may be disabled ` +
      `(try: sysctl kernel.unprivileged_userns_clone=1 / user.max_user_namespaces) or use the container backend`,
  };
}

/** For tests: forget the cached probe result. */
export function resetBwrapCheck(): void {
  bwrapCheck = undefined;
}
