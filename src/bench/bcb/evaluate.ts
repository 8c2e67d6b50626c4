/**
 * Verdict of one BigCodeBench solution: its task's unit tests run by
 * python/bcb_harness.py (BigCodeBench's evaluator semantics) in a python-tests
 * environment (env/python-tests: the local sandbox or a container). The harness
 * input and the rules that turn a run into a verdict are the same whatever the
 * environment; evaluator.ts picks it through the env registry.
 *
 * Modes: `reference` runs the code as given (the MemRL reference runner);
 * `calibrated` puts the task's code_prompt (imports, constants, signature) with a
 * `pass` body in front, as BigCodeBench's official evaluator does: an answer that
 * forgot an import still finds it, and a bare function body becomes the body of
 * the stub. Runs record which mode they used.
 *
 * Independently of the mode, `sanitize` (switch `bcb.sanitize`) has the harness run
 * BigCodeBench's sanitizer on the code after the syntax check, as BigCodeBench's own
 * pipeline does before it evaluates (the prefix is never sanitized).
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { OutcomeStatus } from '../../core/index.js';
import type { EvaluatorFacts } from '../../env/contract.js';
import type { SandboxLimits } from '../../env/limits.js';
import type { PythonWarmup } from '../../env/python-tests/contract.js';
import type { MatplotlibFontList } from '../../env/python-tests/fontlist.js';
import { asset } from '../../util/paths.js';
import type { BcbTask } from './dataset.js';
import { BCB_MODULES } from './libraries.js';

export type BcbEvalMode = 'reference' | 'calibrated';

/** The per-task budget the reference's runner asks for (--eval_timeout). */
export const DEFAULT_TIMEOUT_SEC = 60;
/** BigCodeBench's own time limit (untrusted_check: TIMEOUT_LIMIT 240 s, plus 1): no budget goes beyond it. */
export const MAX_TIMEOUT_SEC = 241;

/**
 * The budget a test run gets (switch bcb.time-limit). The reference passes
 * --eval_timeout to BigCodeBench as gt_time_limit, which BigCodeBench raises to its own
 * TIMEOUT_LIMIT of 240 s (plus 1); the runner's outer join (--untrusted_hard_timeout,
 * 120 s) so ends every run first, start-up and imports included. memrl's fix applies
 * the configured eval_timeout, capped by the hard timeout.
 */
export function testTimeLimit(evalTimeoutS: number, hardTimeoutS: number, referenceLimit: boolean): number {
  return referenceLimit ? Math.min(hardTimeoutS, Math.max(MAX_TIMEOUT_SEC - 1, evalTimeoutS) + 1) : Math.min(evalTimeoutS, hardTimeoutS);
}

export interface BcbEvalOptions {
  /** Wall-clock budget of the whole run (start-up, imports, tests), clamped to [1, 241] s. Default 60. */
  timeoutSec?: number;
  mode?: BcbEvalMode;
  /** Run BigCodeBench's sanitizer on the code (after the syntax check). Default false, as in the reference. */
  sanitize?: boolean;
  signal?: AbortSignal;
  /** Overrides of the sandbox limits (defaults: env/limits.ts). */
  limits?: Partial<SandboxLimits>;
  /** Interpreter inside the sandbox. Default /usr/bin/python3 (or $MEMRL_SANDBOX_PYTHON). */
  python?: string;
  /**
   * For a caller that knows its queue (PythonRunRequest.affinity): the worker running
   * this task, and how many more tasks of its importGroup that worker will run.
   */
  placement?: { worker: number; groupAhead: number };
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

/**
 * BigCodeBench's own evaluator limits, sent to the harness, which applies them
 * clamped to the environment's hard limits (env/limits.ts).
 */
export const BCB_LIMITS = {
  addressSpaceBytes: 30 * 1024 ** 3,
  dataBytes: 30 * 1024 ** 3,
  stackBytes: 10 * 1024 ** 2,
} as const;

/** Where bcb_harness.py is shipped. */
export function harnessPath(): string {
  return asset('src', 'bench', 'bcb', 'python', 'bcb_harness.py');
}

let harnessText: string | undefined;
/** Source of bcb_harness.py (sent with every run; no environment needs it on disk). */
export function harnessSource(): string {
  harnessText ??= readFileSync(harnessPath(), 'utf8');
  return harnessText;
}

export function harnessSha256(): string {
  return createHash('sha256').update(harnessSource()).digest('hex');
}

/** What goes before the code: in calibrated mode the task's code_prompt with a `pass` body. */
export function prefixFor(task: Pick<BcbTask, 'code_prompt'>, mode: BcbEvalMode): string {
  return mode === 'calibrated' ? `${task.code_prompt}\n    pass\n` : '';
}

/** The program the tests run against, unsanitized (what the harness joins with the test code). */
export function programFor(task: Pick<BcbTask, 'code_prompt'>, code: string, mode: BcbEvalMode): string {
  return prefixFor(task, mode) + code;
}

/** The entry point the sanitizer keeps (BigCodeBench's tasks all use task_func). */
export function entryPointOf(task: Partial<Pick<BcbTask, 'entry_point'>>): string {
  return task.entry_point || 'task_func';
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

/** Bytes kept of the harness's result channel. */
export const RESULT_CHANNEL_BYTES = 256 * 1024;
/** Bytes kept of the program's own output (its last line explains a crash). */
export const PROGRAM_OUTPUT_BYTES = 16 * 1024;

/** The harness's stdin for one run (see bcb_harness.py). */
export function harnessPayload(
  task: Pick<BcbTask, 'code_prompt' | 'test'> & Partial<Pick<BcbTask, 'entry_point'>>,
  code: string,
  mode: BcbEvalMode,
  nonce: string,
  fontlist: MatplotlibFontList | null,
  sanitize = false,
): string {
  return JSON.stringify({
    nonce,
    code,
    prefix: prefixFor(task, mode),
    sanitize: sanitize ? entryPointOf(task) : null,
    test: task.test,
    limits: { address_space: BCB_LIMITS.addressSpaceBytes, data: BCB_LIMITS.dataBytes, stack: BCB_LIMITS.stackBytes },
    mpl_fontlist: fontlist,
  });
}

/**
 * Modules a task's own code imports unconditionally (top-level `import` and `from …
 * import` lines of its code_prompt and tests): a fork server keeps them imported for
 * the task's runs. Indented (conditional) imports are left to the run itself.
 */
export function taskImports(task: Pick<BcbTask, 'code_prompt' | 'test'>): string[] {
  const found = new Set<string>();
  for (const line of `${task.code_prompt}\n${task.test}`.split('\n')) {
    const from = /^from\s+([A-Za-z_][\w.]*)\s+import\b/.exec(line);
    if (from) {
      found.add(from[1]!);
      continue;
    }
    const plain = /^import\s+(.+)$/.exec(line);
    if (!plain) continue;
    for (const part of plain[1]!.split('#')[0]!.split(',')) {
      const name = /^\s*([A-Za-z_][\w.]*)/.exec(part)?.[1];
      if (name) found.add(name);
    }
  }
  return [...found].sort();
}

/**
 * Third-party packages every fork server has imported in its warm-up: matplotlib and
 * what it imports (Debian's versions). Only placement depends on it: a wrong guess
 * splits or merges groups, never changes a verdict.
 */
const WARM_PACKAGES = new Set(['matplotlib', 'numpy', 'PIL', 'dateutil']);
const BCB_THIRD_PARTY = new Set(BCB_MODULES);

/**
 * The task's imports that a fork server would keep in a template (third-party ones it
 * has not imported in its warm-up), as one key; undefined when there are none. Tasks
 * with the same key are best run by the same server.
 */
export function importGroup(task: Pick<BcbTask, 'code_prompt' | 'test'>): string | undefined {
  const own = taskImports(task).filter((m) => {
    const top = m.split('.')[0] as string;
    return BCB_THIRD_PARTY.has(top) && !WARM_PACKAGES.has(top);
  });
  return own.length > 0 ? own.join(' ') : undefined;
}

/** The fork server's warm-up: the harness as module __warm__ (matplotlib with this font list). */
export function harnessWarmup(fontlist: MatplotlibFontList | null): PythonWarmup {
  return { program: harnessSource(), input: JSON.stringify({ mpl_fontlist: fontlist }) };
}

export function newNonce(): string {
  return randomBytes(16).toString('hex');
}

/** What one harness run left behind, whichever environment ran it. */
export interface HarnessRun {
  /** Text of the result channel (fd 3). */
  result: string;
  stderr: string;
  timedOut: boolean;
  exitCode: number | null;
  exitSignal: string | null;
  durationMs: number;
}

/** The verdict of a finished (or killed) harness run, whichever environment ran it. */
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
