/**
 * Every limit put on the untrusted things memrl runs, in one place: the rlimits of
 * the bubblewrap sandbox, the root shell's limits, the caps and defaults of
 * containers, output caps and the timeouts of the machinery itself. Backends read
 * them from here; the config schema takes its container defaults from here too.
 */
import { totalmem } from 'node:os';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const KiB = 1024;

// ---------------------------------------------------------------------------
// The bubblewrap sandbox (python tests): rlimits applied with util-linux `prlimit`
// as the first program inside the sandbox, so they bind everything the untrusted
// code starts, and not bwrap's own setup.
//
// Soft and hard values are equal on purpose, with one rule for harnesses that set
// their own limits: they must clamp to the hard limit found here, never try to raise
// it, or setrlimit fails and the run dies at once looking like a crash or a timeout.
// ---------------------------------------------------------------------------

export interface SandboxLimits {
  /** RLIMIT_AS per process (virtual memory), bytes. */
  addressSpaceBytes: number;
  /**
   * RLIMIT_NPROC: processes + threads. Counted per user namespace on Linux ≥ 5.14,
   * and bwrap creates a fresh one per run, so this bounds one sandbox (fork bombs).
   */
  maxProcesses: number;
  /** RLIMIT_FSIZE: largest file a process may write, bytes. */
  fileSizeBytes: number;
  /** RLIMIT_CPU per process, seconds: a backstop behind the wall-clock timeout. */
  cpuSeconds: number;
  /** RLIMIT_NOFILE. */
  openFiles: number;
  /** Size cap of the writable tmpfs (/tmp and /dev/shm each), bytes. */
  tmpfsBytes: number;
}

/** The most address space a sandboxed run gets: what the largest test harness we run asks for itself (30 GiB). */
export const MAX_ADDRESS_SPACE_BYTES = 30 * GiB;

/**
 * Defaults for one run with a given wall-clock budget. Address space: a quarter of
 * the machine's RAM (at least 4 GiB, at most MAX_ADDRESS_SPACE_BYTES), so a couple of
 * runaway tests in parallel sandboxes hit MemoryError before the host's OOM killer.
 * Raise it through the limits option on machines with little RAM.
 */
export function defaultLimits(timeoutSec: number): SandboxLimits {
  const quarterRam = Math.floor(totalmem() / 4);
  return {
    addressSpaceBytes: Math.min(MAX_ADDRESS_SPACE_BYTES, Math.max(4 * GiB, quarterRam)),
    maxProcesses: 512,
    fileSizeBytes: 1 * GiB,
    cpuSeconds: Math.ceil(timeoutSec) + 30,
    openFiles: 4096,
    tmpfsBytes: 2 * GiB,
  };
}

export function resolveLimits(timeoutSec: number, overrides?: Partial<SandboxLimits>): SandboxLimits {
  const limits = { ...defaultLimits(timeoutSec), ...overrides };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isFinite(value) || value <= 0) throw new RangeError(`sandbox limit ${name} must be a positive number, got ${value}`);
  }
  return limits;
}

export const PRLIMIT_PATH = '/usr/bin/prlimit';

/** argv prefix that applies the limits, then execs the rest of the command line. */
export function prlimitPrefix(limits: SandboxLimits, prlimit = PRLIMIT_PATH): string[] {
  const both = (n: number): string => `${Math.floor(n)}:${Math.floor(n)}`;
  return [
    prlimit,
    `--as=${both(limits.addressSpaceBytes)}`,
    `--nproc=${both(limits.maxProcesses)}`,
    `--fsize=${both(limits.fileSizeBytes)}`,
    `--cpu=${both(limits.cpuSeconds)}`,
    `--nofile=${both(limits.openFiles)}`,
    '--core=0:0',
    '--',
  ];
}

/** Bytes kept of a sandboxed process's stdout and of its stderr each, unless the caller says. */
export const PROCESS_OUTPUT_BYTES = 64 * KiB;
/** After a kill, how long to wait for a process's pipes to close before giving up on them. */
export const KILL_GRACE_MS = 5_000;
/** Limits of the one trivial sandbox started to see whether bwrap works here. */
export const BWRAP_PROBE = { maxProcesses: 64, tmpfsBytes: 16 * MiB, timeoutMs: 20_000 } as const;

// ---------------------------------------------------------------------------
// Python test environments: helper programs (module probes, library versions,
// matplotlib's font list) and the result channel of a test run.
// ---------------------------------------------------------------------------

/** Wall clock of one helper program, seconds: the font list build is the slowest (~2 s here, more on a cold disk). */
export const PYTHON_HELPER_TIMEOUT_SEC = { fontList: 120, moduleProbe: 30, libraryVersions: 60 } as const;
/** Wall clock of a helper program in a container, seconds: it includes the container's start. */
export const CONTAINER_HELPER_TIMEOUT_SEC = 120;
/** Room for the font list script's output: ~100 KiB with Debian's fonts, more with many fonts installed. */
export const FONTLIST_MAX_BYTES = 32 * MiB;
/** Bytes kept of a helper's output (probes print one JSON line). */
export const HELPER_OUTPUT_BYTES = 1 * MiB;

/**
 * The fork server of warm test runs (env/python-tests/fork-server.ts): runs per
 * server before it is replaced, how long an idle one is kept, how long its warm-up
 * (imports) may take, the margin of our backstop over a run's own timeout, the
 * longest reply line, and the server's own CPU limit (each test child gets the run's).
 */
export const FORK_SERVER = {
  runsPerServer: 200,
  idleMs: 30_000,
  warmTimeoutMs: 180_000,
  replyMarginMs: 15_000,
  maxReplyBytes: 64 * MiB,
  serverCpuSeconds: 1_000_000,
  /** A fork server's container gets a test container's memory and process limits plus these, for the server and its templates. */
  containerExtraMb: 1024,
  containerExtraPids: 16,
} as const;

// ---------------------------------------------------------------------------
// The root shell (throwaway system per task): local rootfs sandbox and container.
// ---------------------------------------------------------------------------

export interface ShellLimits {
  /** RLIMIT_NPROC inside (per user namespace, so per sandbox): stops fork bombs. */
  maxProcesses: number;
  /** RLIMIT_FSIZE: largest file one process may write. */
  fileSizeBytes: number;
  /** Size of the tmpfs that holds the task's writable layer: all writes of the task together. */
  diskBytes: number;
  /** RLIMIT_AS per process. */
  addressSpaceBytes: number;
  openFiles: number;
  /** Bytes of output kept per command (the rest is read and dropped). */
  maxOutputBytes: number;
}

export const DEFAULT_SHELL_LIMITS: ShellLimits = {
  maxProcesses: 256,
  fileSizeBytes: 256 * MiB,
  diskBytes: 512 * MiB,
  addressSpaceBytes: 4 * GiB,
  openFiles: 1024,
  maxOutputBytes: 256 * KiB,
};

/** A command's RLIMIT_CPU is its wall-clock limit plus this, seconds: the wall clock decides first. */
export const SHELL_CPU_MARGIN_SEC = 10;
/** Time limit of a task's setup and check scripts, seconds. */
export const SHELL_SCRIPT_TIMEOUT_SEC = 60;
/** The local sandbox's /dev/shm. */
export const SHELL_SHM_BYTES = 64 * MiB;
/** How long the local sandbox may take to come up. */
export const SHELL_START_TIMEOUT_MS = 15_000;
/** After a command exits, how long its pending output may still drain. */
export const SHELL_DRAIN_MS = 150;
/** Margin of the container shell's host-side backstop over a command's own limit. */
export const SHELL_CONTAINER_BACKSTOP_MS = 15_000;

// ---------------------------------------------------------------------------
// Containers (every docker backend).
// ---------------------------------------------------------------------------

/** Memory and process limits of each container when memrl.evaluator.docker does not say (the config schema's defaults). */
export const CONTAINER_DEFAULTS = { memoryMb: 2048, pids: 512 } as const;
/** A container's /tmp when its spec names no tmpfs. */
export const CONTAINER_TMPFS_BYTES = 256 * MiB;
/** Bytes kept per stream of one exec, unless the caller says. */
export const EXEC_OUTPUT_BYTES = 1 * MiB;
/** Waiting for the engine to answer its version (three tries). */
export const ENGINE_CONNECT_TIMEOUT_MS = 20_000;
/** Pulling one image. */
export const IMAGE_PULL_TIMEOUT_MS = 10 * 60_000;

// ---------------------------------------------------------------------------
// SQL servers.
// ---------------------------------------------------------------------------

/** Margin of the client's backstop over the server's own statement limit. */
export const SQL_BACKSTOP_MARGIN_MS = 5_000;
/** Admin statements (setup, scoring, cleanup) have no server limit; this backstop still applies. */
export const SQL_ADMIN_BACKSTOP_MS = 120_000;
/** Bytes (characters for the local client) of one result kept; the rest of a runaway result set is dropped. */
export const SQL_MAX_RESULT_BYTES = 16 * MiB;
/** Bytes of the client's stderr kept per statement in a server container. */
export const SQL_MAX_ERROR_BYTES = 64 * KiB;
/** Client sessions per server container: statements of different tasks run side by side. */
export const SQL_MAX_SESSIONS = 8;
/** How long a server container may take to answer after its start. */
export const SQL_READY_TIMEOUT_MS = 180_000;
/** Servers started after the first one died under the run (killed from outside, engine restarted). */
export const SQL_MAX_RESTARTS = 3;
/** The server container's /tmp. */
export const SQL_TMPFS_BYTES = 256 * MiB;

// ---------------------------------------------------------------------------
// Bridges (a long-lived peer process speaking JSON lines).
// ---------------------------------------------------------------------------

/** The longest line a bridge may send; a longer one is a fault and the bridge is restarted. */
export const BRIDGE_MAX_LINE_BYTES = 64 * MiB;
/** How long to wait for the engine to say why a bridge container's stream ended. */
export const BRIDGE_STATE_WAIT_MS = 3_000;
/** A bridge asked to close gets this long before it is stopped. */
export const BRIDGE_CLOSE_GRACE_MS = 1_000;
