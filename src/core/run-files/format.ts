/**
 * The run-folder format: one number for the whole folder, recorded in run.json (and in
 * summary.json, which is also read on its own), that every run file's schema belongs to.
 * A file of an older format is read through its file's migration, which fills what that
 * format lacked with explicit values; a newer format than this memrl knows is refused
 * in one line naming the file and its format. checkpoint.json and spend.json carry
 * their own `version` (they changed apart from the folder); the line files (outcomes,
 * memories, q-history, journal, traces, transcripts) follow run.json.
 *
 *   1  memrl up to the typed run files (every run.json said 1; run.json written by hand
 *      says nothing and reads as 1)
 *   2  the typed run files: the same bytes as 1, every field the writers always write is
 *      required, and summary.json says its format too
 */
import type { z } from 'zod';
import { UserError } from '../../util/errors.js';

export const RUN_FORMAT = 2;
/** The oldest format this memrl reads (through the files' migrations). */
export const OLDEST_RUN_FORMAT = 1;

/** Where an older file lacks a text field that every current one has: said in the field, never guessed. */
export const NOT_RECORDED = 'not recorded';

/** A run file that cannot be read: one line naming the file and what is wrong with it. */
export class RunFileError extends UserError {
  constructor(message: string, code = 'run_file_invalid') {
    super(message, code);
    this.name = 'RunFileError';
  }
}

/**
 * The format a document says it has under `key` (absent: `absent`). A format this memrl
 * does not know is refused in one line naming the file and the format.
 */
export function formatOf(file: string, doc: unknown, opts: { key: string; newest: number; oldest: number; absent: number }): number {
  const v = typeof doc === 'object' && doc !== null ? (doc as { [k: string]: unknown })[opts.key] : undefined;
  if (v === undefined) return opts.absent;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
    throw new RunFileError(`${file}: ${opts.key} ${JSON.stringify(v)} is not a format number; this file was not written by memrl, or was edited`);
  }
  if (v > opts.newest) {
    throw new RunFileError(`${file}: ${opts.key} ${v} is newer than this memrl reads (${range(opts)}); read it with the memrl that wrote it, or upgrade memrl`, 'run_format_unknown');
  }
  if (v < opts.oldest) {
    throw new RunFileError(`${file}: ${opts.key} ${v} is older than this memrl reads (${range(opts)}); read it with an older memrl`, 'run_format_unknown');
  }
  return v;
}

function range(opts: { key: string; newest: number; oldest: number }): string {
  return opts.oldest === opts.newest ? `${opts.key} ${opts.newest}` : `${opts.key} ${opts.oldest} to ${opts.newest}`;
}

/** The run-folder format of run.json or summary.json. */
export function runFormatOf(file: string, doc: unknown): number {
  return formatOf(file, doc, { key: 'memrlRunFormat', newest: RUN_FORMAT, oldest: OLDEST_RUN_FORMAT, absent: OLDEST_RUN_FORMAT });
}

/** One line naming the file and the first field at fault. */
export function describeSchemaError(file: string, error: z.ZodError): string {
  const issue = error.issues[0];
  const at = issue?.path.join('.') || '(top level)';
  return `${file}: field \`${at}\`: ${issue?.message ?? 'invalid'}`;
}

/**
 * `value` checked against `schema`, or a RunFileError naming the file and the first field
 * at fault. The value itself is returned, not zod's rebuilt copy: the schemas here never
 * transform or strip, and a file rewritten from what was read keeps its writer's key order.
 */
export function parseRunFile<S extends z.ZodTypeAny>(schema: S, value: unknown, file: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new RunFileError(`${describeSchemaError(file, parsed.error)}; this run folder was not written by memrl, or was edited`);
  return value as z.output<S>;
}

type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * True when A and B are assignable both ways and have the same keys, optional ones
 * included, all the way down: a schema and the type its producer (in a lower layer)
 * declares cannot drift apart (a field added to one only, optional or not, fails the
 * check where it is made).
 */
export type Same<A, B> =
  Mutual<A, B> extends true
    ? [A] extends [object]
      ? [B] extends [object]
        ? Mutual<keyof A, keyof B> extends true
          ? false extends { [K in keyof A & keyof B]-?: Same<NonNullable<A[K]>, NonNullable<B[K]>> }[keyof A & keyof B]
            ? false
            : true
          : false
        : true
      : true
    : false;
