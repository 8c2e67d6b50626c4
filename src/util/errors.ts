/**
 * memrl's faults. Every error memrl raises on purpose is a MemrlError with a stable
 * `code` (what happened, for programs and tests) and a `kind` (whose fault it is):
 *
 *   user     what the user gave is wrong (a file, key, flag, plugin): fix it and rerun
 *   harness  memrl's own machinery failed (sandbox, container, bridge, database)
 *   model    the model endpoint failed or refused
 *   task     the task itself cannot be run as given (its data)
 *
 * Exit codes follow from kind and code by one table (exitCodeFor, below), applied by
 * the CLI entry alone; only the runner turns faults into `error` outcome rows. Nobody
 * matches on message text: branch on `code` or on the class.
 *
 * This module sits in util/ so every layer can throw these; src/core re-exports them
 * as part of the contract plug-ins rely on.
 */
export type FaultKind = 'user' | 'harness' | 'model' | 'task';

export class MemrlError extends Error {
  constructor(
    readonly kind: FaultKind,
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MemrlError';
  }

  /** The exit code the CLI ends with on this fault (see exitCodeFor). */
  get exitCode(): number {
    return exitCodeFor(this);
  }
}

/**
 *   0  done           1  memrl's own fault (harness), a task's, or a bug
 *   2  bad input: a file, key, flag or plug-in, or a model endpoint that refuses (key, model name) or stops answering
 *   3  stopped by --budget-usd / --budget-tokens (resumable)
 *   130 interrupted (Ctrl-C; resumable)
 */
export const EXIT = { ok: 0, fault: 1, badInput: 2, budget: 3, interrupted: 130 } as const;

/** The one table from faults to exit codes. */
export function exitCodeFor(err: unknown): number {
  if (!(err instanceof MemrlError)) return EXIT.fault;
  if (err.code === 'interrupted') return EXIT.interrupted;
  if (err.code === 'budget_reached') return EXIT.budget;
  return err.kind === 'user' || err.kind === 'model' ? EXIT.badInput : EXIT.fault;
}

/**
 * Something the user can fix: printed as one line (no stack). The message names the
 * file, key, flag or task at fault and what to do.
 */
export class UserError extends MemrlError {
  constructor(message: string, code = 'bad_input') {
    super('user', code, message);
    this.name = 'UserError';
  }
}

/** memrl's machinery (sandbox, container engine, bridge, SQL server) failed; not the model's or the user's doing. */
export class HarnessError extends MemrlError {
  constructor(message: string, code = 'harness_fault', options?: { cause?: unknown }) {
    super('harness', code, message, options);
    this.name = 'HarnessError';
  }
}

/** A run stopped on request (Ctrl-C, SIGTERM) before it finished; resumable. */
export class InterruptedError extends MemrlError {
  constructor(message = 'interrupted') {
    super('user', 'interrupted', message);
    this.name = 'InterruptedError';
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The fault's code, or undefined for an error memrl did not raise on purpose. */
export function faultCode(err: unknown): string | undefined {
  return err instanceof MemrlError ? err.code : undefined;
}
