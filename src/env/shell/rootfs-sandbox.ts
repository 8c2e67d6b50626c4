/**
 * The local shell backend's sandbox: a throwaway root shell over a small Debian root
 * filesystem, one per task.
 *
 * How it is isolated:
 * - The task's writable layer lives on its own size-capped tmpfs, mounted on the
 *   host by us (root) in a fresh temp dir, with an overlay (rootfs read-only below,
 *   the tmpfs above) mounted next to it: a task that fills the disk fills only that.
 * - `unshare --map-users/--map-groups` (util-linux) creates a user namespace where
 *   uids/gids 0..65535 are host ids BASE..BASE+65535 (default 100000); the rootfs on
 *   disk is stored shifted by BASE (scripts/setup/rootfs.sh), so "root" inside owns
 *   it and can useradd, chown to new users, edit /etc. Nothing inside is the host's
 *   root: kernel checks against the host (RLIMIT_NPROC, capabilities) see an ordinary
 *   uid. As root we write the id maps ourselves (bin/newuidmap stands in for
 *   shadow's helper), so no /etc/subuid entry or uidmap package is needed.
 * - In that namespace, bubblewrap unshares network, PID, IPC, UTS and mounts, binds
 *   the overlay as / with fresh /proc, /dev, /dev/shm, and keeps `sleep infinity`
 *   running for the life of the task. Nothing of the host's filesystem is visible.
 * - Each command enters those namespaces with `nsenter` (as root inside), under
 *   prlimit (processes, file size, open files, memory, CPU), with exactly the
 *   sandbox's environment. The filesystem and background jobs persist across the
 *   commands of the task, as with `docker exec`. At the timeout the command's
 *   process group is SIGKILLed. dispose() kills the PID namespace's init (which takes
 *   every process of the sandbox with it) and unmounts and deletes the task's tree.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { existsSync, mkdtempSync, mkdirSync, chmodSync, chownSync, rmSync, statSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HarnessError } from '../../util/errors.js';
import { asset } from '../../util/paths.js';
import { DEFAULT_SHELL_LIMITS, PRLIMIT_PATH, SHELL_CPU_MARGIN_SEC, SHELL_SHM_BYTES, SHELL_START_TIMEOUT_MS, type ShellLimits } from '../limits.js';
import { shellEnv } from './contract.js';
import { ROOTFS_FIX, rootfsPath, rootfsUidBase } from './rootfs.js';
import { spawnShellCommand } from './spawn.js';

const ID_COUNT = 65536;

export interface ShellSandboxOptions {
  rootfs?: string;
  uidBase?: number;
  limits?: Partial<ShellLimits>;
  /** Folder that holds the per-task directories (default: the OS temp dir). */
  workRoot?: string;
}

export interface ShellRunResult {
  /** stdout and stderr of the command, interleaved as written. */
  output: string;
  exitCode: number | null;
  timedOut: boolean;
  truncated: boolean;
  durationMs: number;
}

function idmapBinDir(): string {
  return asset('src', 'env', 'shell', 'bin');
}

/** Errors of the machinery itself (not of the user's command) start with these. */
const INFRA_ERROR = /^(bwrap|unshare|nsenter|prlimit|newuidmap|newgidmap)[^\n]*:/m;

export class ShellSandboxError extends HarnessError {
  constructor(message: string) {
    super(message, 'shell_sandbox');
    this.name = 'ShellSandboxError';
  }
}

export class ShellSandbox {
  private disposed = false;
  private constructor(
    readonly rootfs: string,
    readonly uidBase: number,
    readonly limits: ShellLimits,
    /** Host folder of this task: upper/, work/ and merged/ of the overlay. */
    readonly taskDir: string,
    private readonly mounted: boolean,
    private readonly keeper: ChildProcess,
    /** Host pid of the sandbox's PID 1 (bwrap's init): commands enter its namespaces. */
    readonly initPid: number,
    private readonly pidNs: string,
    private readonly keeperErr: () => string,
  ) {}

  static async create(opts: ShellSandboxOptions = {}): Promise<ShellSandbox> {
    const rootfs = opts.rootfs ?? rootfsPath();
    const uidBase = opts.uidBase ?? rootfsUidBase();
    const limits = { ...DEFAULT_SHELL_LIMITS, ...opts.limits };
    if (!existsSync(join(rootfs, 'bin', 'bash'))) throw new ShellSandboxError(`no root filesystem at ${rootfs}; ${ROOTFS_FIX}`);
    if (process.getuid?.() !== 0) throw new ShellSandboxError('the os shell sandbox must be started as root (it maps a range of uids into a user namespace)');
    const taskDir = mkdtempSync(join(opts.workRoot ?? tmpdir(), 'memrl-shell-'));
    let mounted = false;
    let overlay = false;
    try {
      const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${Math.floor(limits.diskBytes)},mode=0711`, 'memrl-shell', taskDir], {
        encoding: 'utf8',
      });
      if (r.status !== 0) throw new ShellSandboxError(`cannot mount the task tmpfs on ${taskDir}: ${(r.stderr || r.error?.message || '').trim()}`);
      mounted = true;
      chmodSync(taskDir, 0o711);
      const root = statSync(rootfs);
      for (const name of ['upper', 'work', 'merged']) {
        const dir = join(taskDir, name);
        mkdirSync(dir);
        // upper/ becomes the merged root's own inode: same owner and mode as the rootfs root.
        chmodSync(dir, name === 'work' ? 0o700 : root.mode & 0o7777);
        chownSync(dir, root.uid, root.gid);
      }
      // The overlay is mounted here, on the host, by us (root); bwrap binds it as the sandbox's /.
      // (bwrap's own --overlay needs bubblewrap >= 0.9; Debian 12 ships 0.8.)
      const ov = spawnSync(
        'mount',
        ['-t', 'overlay', 'memrl-shell', '-o', `lowerdir=${rootfs},upperdir=${join(taskDir, 'upper')},workdir=${join(taskDir, 'work')}`, join(taskDir, 'merged')],
        { encoding: 'utf8' },
      );
      if (ov.status !== 0) throw new ShellSandboxError(`cannot mount the task overlay: ${(ov.stderr || ov.error?.message || '').trim()}`);
      overlay = true;
      const { keeper, initPid, stderr } = await startKeeper(join(taskDir, 'merged'), uidBase);
      const pidNs = readlinkSync(`/proc/${initPid}/ns/pid`);
      if (pidNs === readlinkSync('/proc/self/ns/pid')) throw new ShellSandboxError('shell sandbox has no PID namespace of its own');
      // Commands enter initPid's root: it must be the task's overlay, never the host's /.
      if (statSync(`/proc/${initPid}/root/`).dev !== statSync(join(taskDir, 'merged')).dev) {
        await stopKeeper(keeper, initPid);
        throw new ShellSandboxError('shell sandbox root is not the task overlay');
      }
      return new ShellSandbox(rootfs, uidBase, limits, taskDir, mounted, keeper, initPid, pidNs, stderr);
    } catch (err) {
      cleanupTaskDir(taskDir, mounted, overlay);
      throw err;
    }
  }

  /** argv (after `nsenter`) of one command run. */
  commandArgs(script: string, timeoutSec: number): string[] {
    const l = this.limits;
    const both = (n: number): string => `${Math.floor(n)}:${Math.floor(n)}`;
    return [
      '--target',
      String(this.initPid),
      '--user',
      '--mount',
      '--pid',
      '--net',
      '--ipc',
      '--uts',
      '--root',
      '--setuid',
      '0',
      '--setgid',
      '0',
      '--',
      PRLIMIT_PATH,
      `--nproc=${both(l.maxProcesses)}`,
      `--fsize=${both(l.fileSizeBytes)}`,
      `--as=${both(l.addressSpaceBytes)}`,
      `--nofile=${both(l.openFiles)}`,
      `--cpu=${both(Math.ceil(timeoutSec) + SHELL_CPU_MARGIN_SEC)}`,
      '--core=0:0',
      '--',
      '/bin/sh',
      '-c',
      'cd /root 2>/dev/null || cd /; exec /bin/bash -c "$1" 2>&1',
      'sh',
      script,
    ];
  }

  /**
   * The sandbox must still run, and initPid must still be its PID 1: were the pid
   * reused by a host process, nsenter would enter the host's namespaces.
   */
  private assertAlive(): void {
    let ns = '';
    try {
      ns = readlinkSync(`/proc/${this.initPid}/ns/pid`);
    } catch {
      // gone
    }
    if (this.keeper.exitCode !== null || this.keeper.signalCode !== null || ns !== this.pidNs) {
      throw new ShellSandboxError(
        `shell sandbox ended unexpectedly (exit ${this.keeper.exitCode ?? this.keeper.signalCode})${this.keeperErr() ? `: ${this.keeperErr()}` : ''}`,
      );
    }
  }

  /** Run one bash script in this task's sandbox. Throws only when the sandbox itself fails. */
  async run(script: string, timeoutSec: number): Promise<ShellRunResult> {
    if (this.disposed) throw new ShellSandboxError('shell sandbox already disposed');
    this.assertAlive();
    const r = await spawnShellCommand('nsenter', this.commandArgs(script, timeoutSec), {
      // nsenter passes its environment on: exactly the sandbox's, nothing of ours.
      env: shellEnv(),
      timeoutMs: timeoutSec * 1000,
      maxOutputBytes: this.limits.maxOutputBytes,
    });
    if (r.spawnError) throw new ShellSandboxError(`cannot start a command in the shell sandbox: ${r.spawnError}`);
    if (!r.timedOut && INFRA_ERROR.test(r.stderr)) {
      throw new ShellSandboxError(`shell sandbox failed: ${r.stderr.trim().slice(0, 500)}`);
    }
    return {
      output: r.stdout + r.stderr,
      exitCode: r.exitCode,
      timedOut: r.timedOut,
      truncated: r.truncated,
      durationMs: r.durationMs,
    };
  }

  /** Kill every process of the sandbox and discard its filesystem. Idempotent. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await stopKeeper(this.keeper, this.initPid, this.pidNs);
    cleanupTaskDir(this.taskDir, this.mounted, true);
  }
}

/**
 * Start the task's long-lived sandbox: a user namespace (uids shifted by the base),
 * then bwrap with its own PID, network, IPC, UTS and mount namespaces over the
 * merged overlay, running `sleep infinity` so the namespaces stay for the task.
 */
async function startKeeper(merged: string, uidBase: number): Promise<{ keeper: ChildProcess; initPid: number; stderr: () => string }> {
  const ids = `${uidBase},0,${ID_COUNT}`;
  const env = shellEnv();
  const args = [
    '--map-users',
    ids,
    '--map-groups',
    ids,
    '--setuid',
    '0',
    '--setgid',
    '0',
    '--',
    'bwrap',
    '--unshare-ipc',
    '--unshare-pid',
    '--unshare-net',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--hostname',
    'sandbox',
    '--die-with-parent',
    '--new-session',
    '--info-fd',
    '3',
    '--bind',
    merged,
    '/',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(SHELL_SHM_BYTES),
    '--tmpfs',
    '/dev/shm',
    '--chdir',
    '/root',
    '--clearenv',
    ...Object.entries(env).flatMap(([k, v]) => ['--setenv', k, v]),
    '--',
    '/bin/sh',
    '-c',
    'echo ready; exec /bin/sleep infinity',
  ];
  const keeper = spawn('unshare', args, {
    cwd: '/',
    env: { PATH: `${idmapBinDir()}:/usr/sbin:/usr/bin:/sbin:/bin` },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  keeper.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const info = keeper.stdio[3] as Readable;
  return new Promise((resolve, reject) => {
    let buf = '';
    let done = false;
    const fail = (why: string): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      try {
        if (keeper.pid) process.kill(-keeper.pid, 'SIGKILL');
      } catch {
        // gone
      }
      reject(new ShellSandboxError(`cannot start the shell sandbox: ${why}`));
    };
    const timer = setTimeout(() => fail(`no answer from bwrap after ${SHELL_START_TIMEOUT_MS / 1000} s ${stderr.trim()}`), SHELL_START_TIMEOUT_MS);
    keeper.on('error', (e) => fail(e.message));
    keeper.on('exit', () => setTimeout(() => fail(stderr.trim() || 'bwrap exited at once'), 50));
    // child-pid comes as soon as bwrap has forked, before the new root is in place;
    // "ready" comes from inside, once the sandbox is complete. Wait for both. The
    // pipes stay open (and drained): bwrap dies of SIGPIPE if its info fd closes.
    let initPid = 0;
    let ready = false;
    const maybeDone = (): void => {
      if (done || !initPid || !ready) return;
      done = true;
      clearTimeout(timer);
      resolve({ keeper, initPid, stderr: () => stderr.trim() });
    };
    info.on('data', (c: Buffer) => {
      buf += c.toString('utf8');
      const m = /"child-pid"\s*:\s*(\d+)/.exec(buf);
      if (m) initPid = Number(m[1]);
      maybeDone();
    });
    info.on('error', () => undefined);
    let out = '';
    keeper.stdout?.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      if (out.includes('ready')) ready = true;
      maybeDone();
    });
    keeper.stdout?.on('error', () => undefined);
  });
}

async function stopKeeper(keeper: ChildProcess, initPid: number, pidNs?: string): Promise<void> {
  // SIGKILL to a PID namespace's init kills every process in it.
  if (pidNs !== undefined) {
    try {
      if (readlinkSync(`/proc/${initPid}/ns/pid`) === pidNs) process.kill(initPid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  if (keeper.exitCode !== null || keeper.signalCode !== null) return;
  const exited = new Promise<void>((r) => keeper.once('exit', () => r()));
  try {
    if (keeper.pid) process.kill(-keeper.pid, 'SIGKILL');
  } catch {
    // gone
  }
  await Promise.race([exited, new Promise((r) => setTimeout(r, 3_000))]);
  for (const st of keeper.stdio) (st as Readable | null)?.destroy();
}

function cleanupTaskDir(dir: string, mounted: boolean, overlay: boolean): void {
  if (overlay) {
    const merged = join(dir, 'merged');
    if (spawnSync('umount', [merged]).status !== 0) spawnSync('umount', ['-l', merged]);
  }
  if (mounted) {
    const r = spawnSync('umount', [dir], { encoding: 'utf8' });
    if (r.status !== 0) spawnSync('umount', ['-l', dir]);
  }
  rmSync(dir, { recursive: true, force: true });
}
