/**
 * The local shell backend: each task gets a throwaway root shell over the Debian
 * rootfs in namespaces (rootfs-sandbox.ts). Nothing to open or close: each task's
 * sandbox is its own.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EnvCheck, EvaluatorFacts } from '../contract.js';
import { DEFAULT_SHELL_LIMITS, SHELL_SCRIPT_TIMEOUT_SEC } from '../limits.js';
import type { ShellEnvironment, ShellEnvironments, ShellExecResult, ShellSettings } from './contract.js';
import { ROOTFS_FIX, rootfsIdentity, rootfsPath, rootfsUidBase } from './rootfs.js';
import { ShellSandbox } from './rootfs-sandbox.js';

/** A fresh task system in the local sandbox. */
export async function createLocalShellEnvironment(opts: ShellSettings = {}): Promise<ShellEnvironment> {
  const sb = await ShellSandbox.create({
    ...(opts.rootfs !== undefined ? { rootfs: opts.rootfs } : {}),
    ...(opts.limits !== undefined ? { limits: opts.limits } : {}),
  });
  const scriptTimeout = opts.scriptTimeoutSec ?? SHELL_SCRIPT_TIMEOUT_SEC;
  return {
    async init(script: string): Promise<void> {
      if (script.trim() === '') return;
      await sb.run(script, scriptTimeout);
    },
    async exec(command: string, timeoutSec: number): Promise<ShellExecResult> {
      const r = await sb.run(command, timeoutSec);
      return { output: r.output, exitCode: r.exitCode, timedOut: r.timedOut };
    },
    async check(script: string): Promise<boolean> {
      const r = await sb.run(script, scriptTimeout);
      return !r.timedOut && r.exitCode === 0;
    },
    async dispose(): Promise<void> {
      await sb.dispose();
    },
  };
}

/** Is the local shell sandbox usable here? The reason names the fix (e.g. "build it with: sudo bash scripts/setup.sh rootfs"). */
export async function checkShellSandbox(opts: { rootfs?: string } = {}): Promise<{ ok: true } | { ok: false; reason: string }> {
  const rootfs = opts.rootfs ?? rootfsPath();
  if (process.platform !== 'linux') return { ok: false, reason: 'the os shell sandbox needs Linux (namespaces, overlayfs)' };
  if (process.getuid?.() !== 0) {
    return { ok: false, reason: 'the os shell sandbox must be started as root (it maps a range of uids into a user namespace); run memrl as root' };
  }
  for (const tool of ['unshare', 'bwrap', 'mount']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) {
      return { ok: false, reason: `${tool} not found; install it with: sudo bash scripts/setup.sh` };
    }
  }
  if (!existsSync(join(rootfs, 'bin', 'bash')) || !existsSync(`${rootfs}.stamp`)) {
    return { ok: false, reason: `no root filesystem at ${rootfs}; ${ROOTFS_FIX}` };
  }
  const stamp = readFileSync(`${rootfs}.stamp`, 'utf8');
  const base = /uid base (\d+)/.exec(stamp)?.[1];
  if (base !== undefined && Number(base) !== rootfsUidBase()) {
    return { ok: false, reason: `${rootfs} was built with uid base ${base} but MEMRL_ROOTFS_UID_BASE is ${rootfsUidBase()}` };
  }
  let sb: ShellSandbox | undefined;
  try {
    sb = await ShellSandbox.create({ rootfs });
    const r = await sb.run('id -u && touch /etc/memrl-probe && echo ok', 20);
    if (r.exitCode !== 0 || !/^0\nok/.test(r.output)) return { ok: false, reason: `shell sandbox probe failed: ${r.output.trim().slice(0, 300)}` };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  } finally {
    await sb?.dispose();
  }
  return { ok: true };
}

export class LocalShellEnvironments implements ShellEnvironments {
  readonly backend = 'local' as const;
  /** stdout and stderr are capped separately, then joined. */
  readonly maxOutputBytes: number;

  constructor(private readonly settings: ShellSettings = {}) {
    this.maxOutputBytes = 2 * { ...DEFAULT_SHELL_LIMITS, ...settings.limits }.maxOutputBytes;
  }

  create(): Promise<ShellEnvironment> {
    return createLocalShellEnvironment(this.settings);
  }

  async check(): Promise<EnvCheck> {
    const r = await checkShellSandbox(this.settings.rootfs !== undefined ? { rootfs: this.settings.rootfs } : {});
    return r.ok ? { ok: true, detail: 'rootfs and user namespaces usable' } : r;
  }

  async describe(): Promise<EvaluatorFacts> {
    return { backend: 'os-sandbox', rootfs: rootfsIdentity(this.settings.rootfs) };
  }

  async close(): Promise<void> {
    // Each task's sandbox is disposed by its task.
  }
}
