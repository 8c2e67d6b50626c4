/**
 * The shell kind: a throwaway root shell over a small Linux system, one per task.
 * The filesystem (users, /etc, /home, /var, /tmp ...) persists across the task's
 * setup script, its commands and its check script, and so do background jobs a
 * command leaves running (as with `docker exec`); dispose() kills them and discards
 * everything. Shell state (cwd, variables) does not persist: every command is a
 * fresh `bash -c` with stdout and stderr interleaved, killed with its whole process
 * group at its time limit.
 */
import type { EnvBackendName, EnvCheck, OpenedEnv } from '../contract.js';
import type { ContainerPlacement } from '../container/backend.js';
import type { ShellLimits } from '../limits.js';

export interface ShellExecResult {
  /** stdout and stderr interleaved. */
  output: string;
  /** null when the command timed out. */
  exitCode: number | null;
  timedOut: boolean;
}

/** One task's system. Methods throw (a HarnessError) only when the environment itself fails. */
export interface ShellEnvironment {
  /** Runs the task's setup script (its failure is not an error: the script's own business). */
  init(script: string): Promise<void>;
  /** Runs one command with a wall-clock limit; the whole process tree is killed at the limit. */
  exec(command: string, timeoutSec: number): Promise<ShellExecResult>;
  /** Runs a check script: true when it exits 0 within the script time limit. */
  check(script: string): Promise<boolean>;
  /** Discards the task's system. Idempotent. */
  dispose(): Promise<void>;
}

export interface ShellSettings {
  /** Time limit of the setup and check scripts, seconds (default SHELL_SCRIPT_TIMEOUT_SEC). */
  scriptTimeoutSec?: number;
  /** Local: the root filesystem (default MEMRL_ROOTFS or /var/lib/memrl/rootfs-bookworm). */
  rootfs?: string;
  /** Local: overrides of the shell limits (env/limits.ts). */
  limits?: Partial<ShellLimits>;
  /** Containers: engine, image, role label, warm pool size (docker only). */
  docker?: ContainerPlacement;
  /** Containers: capabilities kept for root (default SHELL_CAPABILITIES); for measuring what tasks need. */
  capabilities?: string[];
}

/** An opened shell backend: a factory of fresh task systems. */
export interface ShellEnvironments extends OpenedEnv {
  readonly backend: EnvBackendName;
  /** The most output one command can return, bytes (the backend's cap). */
  readonly maxOutputBytes: number;
  /** A fresh system for one task; the caller disposes it. */
  create(): Promise<ShellEnvironment>;
  /** Root, a writable /etc, the usual tools: one throwaway system. */
  check(): Promise<EnvCheck>;
}

/** Environment inside: a root login shell's basics, nothing from ours. */
export function shellEnv(): Record<string, string> {
  return {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: '/root',
    USER: 'root',
    LOGNAME: 'root',
    SHELL: '/bin/bash',
    TERM: 'dumb',
    LANG: 'C.UTF-8',
    TZ: 'UTC',
  };
}
