/**
 * The python-tests kind: run one untrusted Python program (a test harness with the
 * code under test) under limits, with its input on stdin and its verdict on a
 * result channel the program's own output cannot reach. What the program is and how
 * its result is read belong to the caller (a benchmark's harness and verdict rules);
 * this contract is where and how it runs.
 */
import type { EnvBackendName, OpenedEnv } from '../contract.js';
import type { ContainerPlacement } from '../container/backend.js';
import type { SandboxLimits } from '../limits.js';
import type { MatplotlibFontList } from './fontlist.js';

/**
 * The environment of every test run and helper, on top of the sandbox's clean base:
 * matplotlib without a display, caches on the private tmpfs, no bytecode files.
 */
export const PYTHON_TEST_ENV: Readonly<Record<string, string>> = {
  MPLBACKEND: 'Agg',
  MPLCONFIGDIR: '/tmp/.config/matplotlib',
  XDG_CACHE_HOME: '/tmp/.cache',
  PYTHONDONTWRITEBYTECODE: '1',
};

export interface PythonTestsSettings {
  /** Interpreter of the local sandbox (default /usr/bin/python3, or $MEMRL_SANDBOX_PYTHON). Containers use the image's python3. */
  python?: string;
  /** Containers: engine, image, role label, pool size (docker only). */
  docker?: ContainerPlacement;
  /** Wall-clock budget the manifest's limits are reported for, seconds (default 60). */
  timeoutSec?: number;
  /** Runs that bring a warm-up go to a fork server (default true; false: a fresh sandbox or container and interpreter per run). */
  forkServer?: boolean;
}

export interface PythonRunRequest {
  /** Python source, run as `python -B -c <program>`. */
  program: string;
  /** Written to the program's stdin. */
  input: string;
  /** Added to the environment's own (PYTHON_TEST_ENV on top of the sandbox's clean base). */
  env?: Record<string, string>;
  /** Wall-clock limit of the whole run, seconds: everything it started is killed then. */
  timeoutSec: number;
  /** Overrides of the rlimits (defaults: env/limits.ts). */
  limits?: Partial<SandboxLimits>;
  /** Bytes kept of the result channel (fd 3 inside). */
  resultBytes: number;
  /** Bytes kept of the program's own stdout and stderr (a container exec keeps resultBytes of each stream). */
  outputBytes: number;
  signal?: AbortSignal;
  /**
   * Lets a backend with a fork server run the program in a warm interpreter: the
   * warm-up is run once per server (imports, caches), and `preload` names modules
   * the program will import (kept imported for later runs that name them too). A
   * backend without one ignores both; the result must not depend on them.
   */
  warm?: PythonWarmup;
  preload?: readonly string[];
  /**
   * Where the caller's queue is known (a gold check): runs with the same `affinity`
   * go to the same warm server while it is free, and `preloadAhead` says how many more
   * runs with this preload list will follow with it, so that a server can keep the
   * list's imports from its first run on. Ignored like `preload`.
   */
  affinity?: number;
  preloadAhead?: number;
}

/** A program run once in a fresh server before it takes runs, as module `__warm__`, `input` on its stdin. */
export interface PythonWarmup {
  program: string;
  input: string;
}

export interface PythonRunResult {
  /**
   * Set when our side failed (the sandbox did not start, the container went away,
   * the run was aborted): the run then says nothing about the program.
   */
  fault?: string;
  /** Text of the result channel. */
  result: string;
  /** The program's own output (stdout and stderr; in a container both arrive on stderr). */
  stderr: string;
  timedOut: boolean;
  exitCode: number | null;
  /** Signal that ended the program when the backend sees it (local); containers report 128 + n as the exit code. */
  exitSignal: string | null;
  durationMs: number;
}

/** What a helper program (a probe, the font list) printed. */
export interface HelperResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  truncated: boolean;
}

/** Which of the asked modules the interpreter has (found, not imported). */
export type PythonModules =
  | { ok: true; python: string; version: string; missing: string[] }
  | { ok: false; python: string; version?: string; missing: string[]; reason: string };

export interface PythonModulesQuery {
  modules: readonly string[];
  /** Same library, other import name: a module counts as found when its alias is (e.g. Crypto → Cryptodome). */
  aliases?: Record<string, string>;
  /** Modules without which the environment is not usable: ok is false when one is missing. */
  required?: readonly string[];
}

export interface PythonTestRunner extends OpenedEnv {
  readonly backend: EnvBackendName;
  /**
   * Throws a UserError when the environment cannot be reached at all (no sandbox here,
   * no engine, no image); connects once otherwise.
   */
  ready(): Promise<void>;
  /** One run; never throws for the program's fate. The local sandbox missing is a UserError. */
  run(req: PythonRunRequest): Promise<PythonRunResult>;
  /** A helper program: argv after the interpreter. Throws when it cannot run at all. */
  helper(args: string[], opts: { timeoutSec: number; maxOutputBytes: number }): Promise<HelperResult>;
  /** matplotlib's font list, built once for this environment (null without matplotlib); see fontlist.ts. Throws like ready(). */
  fontList(): Promise<MatplotlibFontList | null>;
  /** Interpreter version and missing modules, cached. Throws like ready() (the docker backend also when its python3 cannot run). */
  pythonModules(query: PythonModulesQuery): Promise<PythonModules>;
  /** Module → "<distribution> <version>" for the modules installed, or why they could not be read. Never throws. */
  libraryVersions(query: PythonModulesQuery): Promise<Record<string, string> | { error: string }>;
}
