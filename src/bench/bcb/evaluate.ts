/**
 * Verdict of one BigCodeBench solution: its task's unit tests run in the local
 * sandbox by src/sandbox/python/bcb_harness.py. The harness input and the rules
 * that turn a run into a verdict are shared with the container backend
 * (evaluate-docker.ts); evaluator.ts picks the backend.
 *
 * Modes: `reference` runs the code as given (the MemRL reference runner);
 * `calibrated` puts the task's code_prompt (imports, constants, signature) with a
 * `pass` body in front, as BigCodeBench's official evaluator does: an answer that
 * forgot an import still finds it, and a bare function body becomes the body of
 * the stub. Runs record which mode they used.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { OutcomeStatus } from '../../core/index.js';
import { asset } from '../../util/paths.js';
import { BCB_LIMITS, resolveLimits, type SandboxLimits } from '../../sandbox/limits.js';
import { checkBwrap } from '../../sandbox/check.js';
import { checkPythonLibs, DEFAULT_SANDBOX_PYTHON } from '../../sandbox/python-libs.js';
import { pythonLibraryVersions } from '../../sandbox/python-versions.js';
import { matplotlibFontList, type MatplotlibFontList } from '../../sandbox/mpl-fontlist.js';
import { runSandboxed } from '../../sandbox/run.js';
import type { BcbTask } from './dataset.js';

export type BcbEvalMode = 'reference' | 'calibrated';

/** BigCodeBench's default per-task budget. */
export const DEFAULT_TIMEOUT_SEC = 60;
/** BigCodeBench's hard kill: no budget goes beyond this. */
export const MAX_TIMEOUT_SEC = 120;

export interface BcbEvalOptions {
  /** Wall-clock budget of the whole run (start-up, imports, tests), clamped to [1, 120] s. Default 60. */
  timeoutSec?: number;
  mode?: BcbEvalMode;
  signal?: AbortSignal;
  /** Overrides of the sandbox limits (defaults: limits.ts). */
  limits?: Partial<SandboxLimits>;
  /** Interpreter inside the sandbox. Default /usr/bin/python3 (or $MEMRL_SANDBOX_PYTHON). */
  python?: string;
}

export interface BcbIssue {
  test: string;
  kind: 'failure' | 'error';
  message: string;
}

export interface BcbEvalResult {
  status: Exclude<OutcomeStatus, 'skipped'>;
  /** First line of the first problem (syntax error, exception, failing test). */
  firstError?: string;
  durationMs: number;
  testsRun?: number;
  failures?: number;
  errors?: number;
  /** The first few failing tests. */
  issues?: BcbIssue[];
  mode: BcbEvalMode;
  timeoutSec: number;
}

/** What the harness prints on its result channel. */
interface HarnessRecord {
  nonce: string | null;
  status: 'pass' | 'fail' | 'syntax_error' | 'runtime_error' | 'error';
  tests_run?: number;
  failures?: number;
  errors?: number;
  first_error?: string | null;
  issues?: BcbIssue[];
}

let harnessText: string | undefined;
/** Source of bcb_harness.py (sent with every run; neither backend needs it on disk). */
export function harnessSource(): string {
  harnessText ??= readFileSync(asset('src', 'sandbox', 'python', 'bcb_harness.py'), 'utf8');
  return harnessText;
}

export function harnessSha256(): string {
  return createHash('sha256').update(harnessSource()).digest('hex');
}

/** The program the tests run against (what the harness joins with the test code). */
export function programFor(task: Pick<BcbTask, 'code_prompt'>, code: string, mode: BcbEvalMode): string {
  return mode === 'calibrated' ? `${task.code_prompt}\n    pass\n${code}` : code;
}

export function clampTimeout(sec: number | undefined): number {
  const t = sec ?? DEFAULT_TIMEOUT_SEC;
  if (!Number.isFinite(t)) return DEFAULT_TIMEOUT_SEC;
  return Math.min(MAX_TIMEOUT_SEC, Math.max(1, t));
}

function lastLine(text: string): string | undefined {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.length ? lines[lines.length - 1] : undefined;
}

/** Environment of the harness on top of the sandbox's base environment (both backends). */
export const HARNESS_ENV: Readonly<Record<string, string>> = {
  MPLBACKEND: 'Agg',
  MPLCONFIGDIR: '/tmp/.config/matplotlib',
  XDG_CACHE_HOME: '/tmp/.cache',
  PYTHONDONTWRITEBYTECODE: '1',
};

/** Bytes kept of the harness's result channel. */
export const RESULT_CHANNEL_BYTES = 256 * 1024;

/** The harness's stdin for one run (see bcb_harness.py). */
export function harnessPayload(
  task: Pick<BcbTask, 'code_prompt' | 'test'>,
  code: string,
  mode: BcbEvalMode,
  nonce: string,
  fontlist: MatplotlibFontList | null,
): string {
  return JSON.stringify({
    nonce,
    code: programFor(task, code, mode),
    test: task.test,
    limits: { address_space: BCB_LIMITS.addressSpaceBytes, data: BCB_LIMITS.dataBytes, stack: BCB_LIMITS.stackBytes },
    mpl_fontlist: fontlist,
  });
}

export function newNonce(): string {
  return randomBytes(16).toString('hex');
}

/** What one harness run left behind, whichever backend ran it. */
export interface HarnessRun {
  /** Text of the result channel (fd 3). */
  result: string;
  stderr: string;
  timedOut: boolean;
  exitCode: number | null;
  exitSignal: string | null;
  durationMs: number;
}

/** The verdict of a finished (or killed) harness run: shared by the local and the container backend. */
export function verdictOf(run: HarnessRun, nonce: string, mode: BcbEvalMode, timeoutSec: number): BcbEvalResult {
  const base = { durationMs: run.durationMs, mode, timeoutSec };
  let record: HarnessRecord | undefined;
  for (const line of run.result.split('\n')) {
    if (!line.trim()) continue;
    try {
      const parsed = JSON.parse(line) as HarnessRecord;
      if (parsed.nonce === nonce || (parsed.nonce === null && parsed.status === 'error')) record = parsed;
    } catch {
      // Not ours: something else wrote to the channel.
    }
  }

  if (!record) {
    if (run.timedOut) return { ...base, status: 'timeout', firstError: `timed out after ${timeoutSec} s` };
    // The process died before reporting: a hard crash, a resource limit, os._exit() ...
    const how = run.exitSignal ? `killed by ${run.exitSignal}` : `exited with code ${run.exitCode}`;
    const detail = lastLine(run.stderr);
    return { ...base, status: 'runtime_error', firstError: detail ? `${how}: ${detail}` : `${how} without a test result` };
  }
  return {
    ...base,
    status: record.status,
    ...(record.first_error ? { firstError: record.first_error } : {}),
    ...(record.tests_run !== undefined ? { testsRun: record.tests_run } : {}),
    ...(record.failures !== undefined ? { failures: record.failures } : {}),
    ...(record.errors !== undefined ? { errors: record.errors } : {}),
    ...(record.issues?.length ? { issues: record.issues } : {}),
  };
}

/** One run in the local bubblewrap sandbox. */
export async function evaluateBcb(
  task: Pick<BcbTask, 'code_prompt' | 'test'>,
  code: string,
  opts: BcbEvalOptions = {},
): Promise<BcbEvalResult> {
  const mode = opts.mode ?? 'reference';
  const timeoutSec = clampTimeout(opts.timeoutSec);
  const limits = resolveLimits(timeoutSec, opts.limits);
  const python = opts.python ?? DEFAULT_SANDBOX_PYTHON;
  const nonce = newNonce();
  const payload = harnessPayload(task, code, mode, nonce, await matplotlibFontList(python));

  const run = await runSandboxed({
    command: [python, '-B', '-c', harnessSource()],
    env: { ...HARNESS_ENV },
    input: payload,
    timeoutMs: timeoutSec * 1000,
    limits,
    resultFdBytes: RESULT_CHANNEL_BYTES,
    maxOutputBytes: 16 * 1024,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const base = { durationMs: run.durationMs, mode, timeoutSec };

  if (run.spawnError) return { ...base, status: 'error', firstError: `sandbox failed to start: ${run.spawnError}` };
  if (run.aborted) return { ...base, status: 'error', firstError: 'aborted' };
  return verdictOf(run, nonce, mode, timeoutSec);
}

/**
 * Facts about the evaluator for a run manifest: interpreter and version, libraries
 * it lacks, limits, harness checksum. Never throws; an unusable sandbox is reported.
 */
export async function describeBcbEvaluator(opts: { python?: string; timeoutSec?: number } = {}): Promise<Record<string, unknown>> {
  const python = opts.python ?? DEFAULT_SANDBOX_PYTHON;
  const timeoutSec = clampTimeout(opts.timeoutSec);
  const bwrap = await checkBwrap();
  const libs = await checkPythonLibs(python);
  return {
    sandbox: bwrap.ok ? { bwrap: bwrap.path, ...bwrap.features } : { unavailable: bwrap.reason },
    python,
    pythonVersion: libs.version ?? null,
    missingLibs: libs.missing,
    libraryVersions: await pythonLibraryVersions(python),
    ...(libs.ok ? {} : { problem: libs.reason }),
    timeoutSec,
    limits: resolveLimits(timeoutSec),
    harnessSha256: harnessSha256(),
  };
}
