/**
 * How memrl's contracts are written: each is one zod schema. Its TypeScript type is
 * `z.infer` of it, the plug-in boundary (app/plugin-guard) checks what a plug-in
 * exports and returns against it, and its `.describe()` texts are the reference page
 * (docs/plugin-reference.md, written by scripts/plugin-reference.ts).
 *
 * zod knows neither the names of a function's parameters nor the name of an opaque
 * value's type (a logger, a config tree), and its inferred function types cannot have
 * optional parameters. These helpers fill that in: a contract's name, a function's
 * declared signature (its return type checked against the returns schema) with named
 * parameters, an opaque value's type name. The extra facts ride on the schema's `_def`,
 * which zod copies when a schema is described again.
 */
import { z } from 'zod';

export interface SchemaMeta {
  /** A contract's name: the reference page gives it a section and links fields of its type there. */
  name?: string;
  /** A function's parameters, by name. */
  params?: readonly (readonly [string, z.ZodTypeAny])[];
  /** A function's result. */
  returns?: z.ZodTypeAny;
  /** How the page writes an opaque value's type. */
  type?: string;
}

const KEY = 'memrlContract';

/** A schema's definition with our facts on it. */
type DefWithMeta = { [KEY]?: SchemaMeta };

function withMeta<T extends z.ZodTypeAny>(schema: T, meta: SchemaMeta): T {
  (schema._def as DefWithMeta)[KEY] = { ...metaOf(schema), ...meta };
  return schema;
}

export function metaOf(schema: z.ZodTypeAny): SchemaMeta {
  return (schema._def as DefWithMeta)[KEY] ?? {};
}

/** A contract: an object schema with its name and what it is for. */
export function contract<T extends z.ZodRawShape>(name: string, description: string, shape: T): z.ZodObject<T> {
  return withMeta(z.object(shape).describe(description), { name });
}

/** Names an existing schema as a contract. */
export function named<T extends z.ZodTypeAny>(name: string, schema: T): T {
  return withMeta(schema, { name });
}

type Param = readonly [name: string, schema: z.ZodTypeAny];

/**
 * A function field. `F` is its signature (named, optional parameters allowed); the
 * returns schema must produce what `F` returns, which the compiler checks, and is what
 * the plug-in boundary checks a plug-in's results against.
 */
export function fn<F extends (...args: never[]) => unknown>(params: readonly Param[], returns: z.ZodType<ReturnType<F>, z.ZodTypeDef, unknown>): z.ZodType<F, z.ZodTypeDef, F> {
  const args = params.map(([, s]) => s) as [z.ZodTypeAny, ...z.ZodTypeAny[]] | [];
  const schema = z.function(z.tuple(args), returns as z.ZodTypeAny);
  return withMeta(schema, { params, returns }) as unknown as z.ZodType<F, z.ZodTypeDef, F>;
}

/** What a function returns either directly or as a promise. */
export function maybeAsync<T extends z.ZodTypeAny>(schema: T): z.ZodType<z.output<T> | Promise<z.output<T>>, z.ZodTypeDef, unknown> {
  return z.union([z.promise(schema), schema]);
}

/**
 * A value the boundary does not look inside (a logger, a resolved config, a plug-in's
 * own settings), with the type name the reference page shows. `check`, if given, is
 * what makes it valid; `problem` says what is wrong otherwise ("is not a function").
 */
export function opaque<T>(type: string, check?: (value: unknown) => boolean, problem?: string): z.ZodType<T, z.ZodTypeDef, T> {
  const schema = check ? z.custom<T>((v) => check(v), { message: problem ?? `is not ${type}` }) : z.custom<T>(() => true);
  return withMeta(schema, { type });
}

/** Plain JSON: what is journaled or checkpointed must come back the same after a restart. */
export function isPlainJson(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((v) => isPlainJson(v, depth + 1));
  if (typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value).every((v) => v === undefined || isPlainJson(v, depth + 1));
}

/** A zod schema of plain JSON (objects, arrays, strings, finite numbers, booleans, null). */
export function plainJson<T = unknown>(type = 'JSON'): z.ZodType<T, z.ZodTypeDef, T> {
  return opaque<T>(type, (v) => isPlainJson(v), 'is not plain JSON (no functions, Maps, Sets, class instances, undefined in arrays, NaN or Infinity)');
}
