/**
 * The two ways a plug-in fails at the boundary, each one line naming the plug-in, the
 * function and the field:
 *
 *   ContractViolation  what it exported or returned does not fit its contract's schema
 *   PluginCrash        its own code threw (not a MemrlError); the stack is kept as the
 *                      cause, logged to the run's log.jsonl, printed with --verbose
 *
 * Both are user faults (exit 2): the fix is in the plug-in.
 */
import { z } from 'zod';
import { closest } from '../../config/issues.js';
import { errorMessage, MemrlError } from '../../util/errors.js';
import { nameOf, typeText, unwrapField } from '../../util/contract-text.js';

const REFERENCE = 'docs/plugin-reference.md';

export class ContractViolation extends MemrlError {
  constructor(message: string) {
    super('user', 'plugin_contract', message);
    this.name = 'ContractViolation';
  }
}

export class PluginCrash extends MemrlError {
  constructor(message: string, cause: unknown) {
    super('user', 'plugin_crashed', message, { cause });
    this.name = 'PluginCrash';
  }
}

/** Who is at fault: the plug-in file as given and the entry, e.g. `plugin x.ts: benchmark "arith"`. */
export interface Culprit {
  origin: string;
  entry: string;
}

/**
 * What was checked: a module's export (`where` is empty), what a function returned
 * (`where` is the call, e.g. "episode(arith/3)"), or what it passed to memrl
 * ("ctx.model.chat(request)").
 */
export interface Checked {
  where: string;
  what: 'export' | 'returned' | 'passed' | 'read';
}

export function violation(who: Culprit, checked: Checked, error: z.ZodError, schema: z.ZodTypeAny): ContractViolation {
  const issues = flatten(error.issues);
  const first = issues[0]!;
  const contractName = outermostName(schema, first.path);
  const see = contractName ? `; see ${REFERENCE}#${contractName.toLowerCase()}` : '';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  const path = pathText(first.path);
  const problem = problemText(first, schema);
  let text: string;
  if (checked.what === 'export') text = path ? `\`${path}\` ${problem}` : problem;
  else if (checked.what === 'read') text = `\`${[checked.where, path].filter(Boolean).join('.')}\` ${problem}`;
  else if (!path) text = `${checked.where} ${checked.what} ${rootProblem(first, schema, problem)}`;
  else text = `${checked.where} ${checked.what} a bad ${contractName ?? 'value'}: \`${path}\` ${problem}`;
  return new ContractViolation(`plugin ${who.origin}: ${who.entry}: ${text}${more}${see}`);
}

/** The outermost contract along the path to the field at fault: the value's own, or its items' (a list of retrievals). */
function outermostName(schema: z.ZodTypeAny, path: readonly (string | number)[]): string | undefined {
  for (let i = 0; i <= path.length; i++) {
    const at = schemaAt(schema, path.slice(0, i));
    const name = at && (nameOf(unwrapField(at)) ?? nameOf(deepUnwrap(at)));
    if (name) return name;
  }
  return undefined;
}

/** A problem with the value itself, not a field of it: "a string, expected Retrieval[]". */
function rootProblem(issue: z.ZodIssue, schema: z.ZodTypeAny, problem: string): string {
  if (issue.code === 'invalid_type') return `${article(issue.received)}, expected ${typeText(unwrapField(deepUnwrap(schema)))}`;
  return `a value that ${problem}`;
}

/** A violation that is not a schema's (a relation between values), in the same shape. */
export function violationLine(who: Culprit, problem: string, contractName?: string): ContractViolation {
  const see = contractName ? `; see ${REFERENCE}#${contractName.toLowerCase()}` : '';
  return new ContractViolation(`plugin ${who.origin}: ${who.entry}: ${problem}${see}`);
}

export function crash(who: Culprit, where: string, err: unknown): PluginCrash {
  const at = pluginFrame(err);
  return new PluginCrash(`plugin ${who.origin}: ${who.entry}: ${where} threw: ${firstLine(err)}${at ? ` (at ${at})` : ''}; the stack is in the run's log.jsonl, or rerun with --verbose`, err);
}

function firstLine(err: unknown): string {
  const name = err instanceof Error && err.name !== 'Error' ? `${err.name}: ` : '';
  return `${name}${errorMessage(err).split('\n')[0]}`;
}

/** The first stack frame outside memrl and node: where in the plug-in it threw. */
function pluginFrame(err: unknown): string | undefined {
  const stack = err instanceof Error ? err.stack ?? '' : '';
  for (const line of stack.split('\n').slice(1)) {
    const m = /\(?((?:file:\/\/)?[^()\s]+):(\d+):(\d+)\)?\s*$/.exec(line.trim());
    if (!m) continue;
    const file = m[1]!.replace(/^file:\/\//, '');
    if (file.startsWith('node:') || /\/memrl\/dist\/|\/dist\/src\/|\/node_modules\//.test(file) || file.includes('/src/app/plugin-guard/')) continue;
    return `${file.split('/').slice(-2).join('/')}:${m[2]}`;
  }
  return undefined;
}

/**
 * Union errors hold one error per option: keep the option the value got furthest in
 * (the longest path; at equal depth, a wrong type counts as less far than a wrong value).
 * For `X | Promise<X>` that is X's, not "expected a promise".
 */
function flatten(issues: readonly z.ZodIssue[]): z.ZodIssue[] {
  return issues.flatMap((issue) => {
    if (issue.code !== 'invalid_union') return [issue];
    const options = issue.unionErrors.map((e) => flatten(e.issues));
    const depth = (list: z.ZodIssue[]) => Math.max(...list.map((i) => i.path.length + (i.code === 'invalid_type' ? 0 : 0.5)));
    const best = options.sort((a, b) => depth(b) - depth(a))[0];
    return best && best.length ? best : [issue];
  });
}

const pathText = (path: readonly (string | number)[]): string => path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');

/** The schema a path leads to, for the type a message says was expected. */
function schemaAt(schema: z.ZodTypeAny, path: readonly (string | number)[]): z.ZodTypeAny | undefined {
  let s: z.ZodTypeAny | undefined = schema;
  for (const key of path) {
    s = s && deepUnwrap(s);
    if (s instanceof z.ZodObject) s = (s.shape as Record<string, z.ZodTypeAny>)[key];
    else if (s instanceof z.ZodArray) s = s._def.type as z.ZodTypeAny;
    else if (s instanceof z.ZodRecord) s = s._def.valueType as z.ZodTypeAny;
    else return undefined;
  }
  return s;
}

function deepUnwrap(s: z.ZodTypeAny): z.ZodTypeAny {
  for (;;) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodReadonly || s instanceof z.ZodDefault) s = s._def.innerType as z.ZodTypeAny;
    else if (s instanceof z.ZodEffects) s = s._def.schema as z.ZodTypeAny;
    else if (s instanceof z.ZodPromise) s = s._def.type as z.ZodTypeAny;
    else if (s instanceof z.ZodUnion && s._def.options.length === 2 && s._def.options[0] instanceof z.ZodPromise) s = s._def.options[1] as z.ZodTypeAny;
    else return s;
  }
}

function shown(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** One issue as a predicate on its field: "is missing (expected string)". */
function problemText(issue: z.ZodIssue, root: z.ZodTypeAny): string {
  const at = schemaAt(root, issue.path);
  const expected = at ? typeText(unwrapField(at)) : undefined;
  switch (issue.code) {
    case 'invalid_type':
      if (issue.received === 'undefined') return `is missing${expected ? ` (expected ${expected})` : ''}`;
      return `is ${article(issue.received)}, expected ${expected ?? issue.expected}`;
    case 'invalid_literal':
      return `is ${shown(issue.received)}, expected ${shown(issue.expected)}`;
    case 'invalid_enum_value':
      return `is ${shown(issue.received)}, expected one of ${issue.options.map((o) => `'${String(o)}'`).join(', ')}`;
    case 'unrecognized_keys': {
      const object = at && deepUnwrap(at);
      const known = object instanceof z.ZodObject ? Object.keys(object.shape as object) : [];
      const key = issue.keys[0]!;
      const near = closest(key, known);
      return `has an unknown field \`${key}\`${near ? ` (did you mean \`${near}\`?)` : ''}`;
    }
    case 'too_small':
      if (issue.type === 'string') return 'is empty';
      if (issue.type === 'array') return `is empty (at least ${String(issue.minimum)} needed)`;
      return `is below ${String(issue.minimum)}`;
    case 'too_big':
      return `is above ${String(issue.maximum)}`;
    case 'invalid_string':
      return `is not ${issue.message}`;
    case 'not_finite':
      return 'is not a finite number';
    case 'custom':
      return issue.message;
    default:
      return `: ${issue.message}`;
  }
}

function article(type: string): string {
  if (type === 'null' || type === 'undefined' || type === 'nan') return type;
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
