/** Turning a zod validation failure into one line a user can act on. */
import type { z } from 'zod';
import { objectAt, schemaLeaves, typeLabel } from './schema-walk.js';
import type { KeyPath } from './yaml-source.js';

export interface IssueContext {
  /** The schema that was checked (for "did you mean" and expected types). */
  schema: z.ZodTypeAny;
  /** Message prefix for a key path: "configs/x.yaml:12" or "--temperature". */
  where(path: KeyPath): string;
  /** The value the user wrote at `path` (before coercion), for "got ...". */
  rawAt(path: KeyPath): unknown;
}

export function formatIssues(error: z.ZodError, ctx: IssueContext): string {
  const [first, ...rest] = error.issues;
  if (!first) return 'invalid configuration';
  const extra = rest.length + (first.code === 'unrecognized_keys' ? first.keys.length - 1 : 0);
  const more = extra > 0 ? ` (and ${extra} more problem${extra === 1 ? '' : 's'})` : '';
  return formatIssue(first, ctx) + more;
}

export function formatIssue(issue: z.ZodIssue, ctx: IssueContext): string {
  const key = dotted(issue.path);
  const got = () => describeValue(ctx.rawAt(issue.path));
  switch (issue.code) {
    case 'unrecognized_keys': {
      const name = issue.keys[0]!;
      const full = dotted([...issue.path, name]);
      const hint = suggestKey(ctx.schema, issue.path, name);
      return `${ctx.where([...issue.path, name])}: unknown key \`${full}\`${hint ? ` (${hint})` : ''}`;
    }
    case 'invalid_type': {
      if (issue.received === 'undefined') return `${ctx.where(issue.path)}: \`${key}\` is required`;
      return `${ctx.where(issue.path)}: \`${key}\` must be ${expectedLabel(expectedAt(ctx.schema, issue.path, issue.expected))}, got ${got()}`;
    }
    case 'invalid_enum_value': {
      const options = issue.options.map(String);
      const near = closest(String(issue.received), options);
      const hint = near ? ` (did you mean \`${near}\`?)` : '';
      return `${ctx.where(issue.path)}: \`${key}\` must be one of ${options.join(', ')}, got ${got()}${hint}`;
    }
    case 'too_small':
    case 'too_big': {
      if (issue.type === 'number' || issue.type === 'bigint') {
        const small = issue.code === 'too_small';
        const op = small ? (issue.inclusive ? '>=' : '>') : issue.inclusive ? '<=' : '<';
        const bound = small ? (issue as z.ZodTooSmallIssue).minimum : (issue as z.ZodTooBigIssue).maximum;
        return `${ctx.where(issue.path)}: \`${key}\` must be ${op} ${String(bound)}, got ${got()}`;
      }
      if (issue.code === 'too_small' && issue.type === 'string') return `${ctx.where(issue.path)}: \`${key}\` must not be empty`;
      return `${ctx.where(issue.path)}: \`${key}\`: ${issue.message}`;
    }
    case 'not_finite':
      return `${ctx.where(issue.path)}: \`${key}\` must be a finite number, got ${got()}`;
    case 'custom':
      return `${ctx.where(issue.path)}: \`${key}\` is ${plain(ctx.rawAt(issue.path))}: ${issue.message}`;
    default:
      return `${ctx.where(issue.path)}: \`${key}\`: ${issue.message}`;
  }
}

export function dotted(path: KeyPath): string {
  return path.map(String).join('.') || '(top level)';
}

/** zod says "number" for a non-number even where the field wants an integer. */
function expectedAt(schema: z.ZodTypeAny, path: KeyPath, expected: string): string {
  if (expected !== 'number') return expected;
  const parent = objectAt(schema, path.slice(0, -1));
  const field = parent?.shape[String(path[path.length - 1])] as z.ZodTypeAny | undefined;
  return field && typeLabel(field).startsWith('integer') ? 'integer' : expected;
}

function expectedLabel(expected: string): string {
  switch (expected) {
    case 'number':
      return 'a number';
    case 'integer':
      return 'an integer';
    case 'string':
      return 'a string';
    case 'boolean':
      return 'true or false';
    case 'object':
      return 'a mapping (indented `key: value` lines)';
    case 'array':
      return 'a list';
    default:
      return expected;
  }
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}

function plain(value: unknown): string {
  return typeof value === 'string' ? value : describeValue(value);
}

/** "did you mean `x`?" for a misspelt key: a sibling first, then the same name in another section. */
function suggestKey(schema: z.ZodTypeAny, parent: KeyPath, name: string): string | undefined {
  const siblings = Object.keys(objectAt(schema, parent)?.shape ?? {});
  const near = closest(name, siblings);
  if (near) return `did you mean \`${dotted([...parent, near])}\`?`;
  const elsewhere = schemaLeaves(schema)
    .map((leaf) => leaf.path)
    .filter((path) => path.split('.').pop() === name);
  if (elsewhere.length) return `it belongs in \`${elsewhere[0]}\``;
  if (parent.length === 0) return `sections are: ${siblings.join(', ')}`;
  return undefined;
}

/** The candidate nearest to `word` by edit distance, if near enough to be a typo. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = editDistance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  const tolerance = Math.max(1, Math.floor(word.length / 3));
  if (bestDistance <= tolerance) return best;
  // A truncated spelling ("procedural" for "proceduralization") is a typo too.
  if (lower.length >= 4) return candidates.find((c) => c.toLowerCase().startsWith(lower));
  return undefined;
}

/** Optimal string alignment distance (a swap of neighbours counts as one edit). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}
