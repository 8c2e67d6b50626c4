/**
 * The few Python semantics LifelongAgentBench's parsing and scoring rely on, so the
 * reference profile reproduces them character for character: what `str.strip()`
 * and `str.split()` treat as whitespace, what `float()` accepts, `math.isclose`,
 * truthiness, and a code-point length.
 */

/** Characters for which Python's `str.isspace()` is true (strip/split without arguments), as a regex class body. */
export const PY_SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const LEADING = new RegExp(`^[${PY_SPACE}]+`);
const TRAILING = new RegExp(`[${PY_SPACE}]+$`);
const RUNS = new RegExp(`[${PY_SPACE}]+`);

export const pyLstrip = (s: string): string => s.replace(LEADING, '');
export const pyRstrip = (s: string): string => s.replace(TRAILING, '');
export const pyStrip = (s: string): string => pyRstrip(pyLstrip(s));

/** `s.split()`: words between runs of whitespace. */
export function pySplitWords(s: string): string[] {
  return s.split(RUNS).filter((w) => w !== '');
}

/** `len(s)`: code points, not UTF-16 units. */
export function pyLen(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** `bool(v)` for JSON-shaped values. */
export function pyTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v as object).length > 0;
  return true;
}

const DIGITS = '\\d(?:_?\\d)*';
const FLOAT_SYNTAX = new RegExp(`^[+-]?(?:(?:${DIGITS}(?:\\.(?:${DIGITS})?)?|\\.${DIGITS})(?:[eE][+-]?${DIGITS})?|inf(?:inity)?|nan)$`, 'i');

/** `float(s)` for ASCII input: null where Python raises ValueError. */
export function pyFloat(s: string): number | null {
  const t = pyStrip(s);
  if (!FLOAT_SYNTAX.test(t)) return null;
  const body = t.replace(/_/g, '');
  const sign = body.startsWith('-') ? -1 : 1;
  const bare = body.replace(/^[+-]/, '').toLowerCase();
  if (bare.startsWith('inf')) return sign * Infinity;
  if (bare === 'nan') return NaN;
  return Number(body);
}

/** `math.isclose(a, b, rel_tol=rel, abs_tol=abs)`. */
export function pyIsClose(a: number, b: number, rel: number, abs: number): boolean {
  if (a === b) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  const diff = Math.abs(b - a);
  return diff <= Math.abs(rel * b) || diff <= Math.abs(rel * a) || diff <= abs;
}
