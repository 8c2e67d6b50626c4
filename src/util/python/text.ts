/**
 * Python's text semantics, for code that must cut, compare and count exactly where the
 * reference's Python does (the fidelity work of src/bench/*): what `str.strip()`,
 * `str.split()` and a `re` pattern's `\s` treat as whitespace (str.isspace(): Python
 * adds \x1c-\x1f and \x85 to JavaScript's \s and leaves out \ufeff), `len()` and
 * slicing by code point, `re.IGNORECASE` folding, `float()`, `math.isclose` and
 * truthiness of JSON-shaped values.
 */

/** Characters for which Python's `str.isspace()` is true, as a regex class body. */
export const PY_SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
/** The same as a bracketed class, for building patterns. */
export const PY_WS = `[${PY_SPACE}]`;
const LEADING = new RegExp(`^${PY_WS}+`);
const TRAILING = new RegExp(`${PY_WS}+$`);
const RUNS = new RegExp(`${PY_WS}+`);
const ONE = new RegExp(`^${PY_WS}$`);

/** `ch.isspace()` for one character. */
export const isPySpace = (ch: string): boolean => ONE.test(ch);
export const pyLstrip = (s: string): string => s.replace(LEADING, '');
export const pyRstrip = (s: string): string => s.replace(TRAILING, '');
/** `s.strip()` with no argument. */
export const pyStrip = (s: string): string => pyRstrip(pyLstrip(s));

/** `s.split()`: words between runs of whitespace. */
export function pySplitWords(s: string): string[] {
  return s.split(RUNS).filter((w) => w !== '');
}

/** `len(s)`: code points, not UTF-16 units. */
export function pyLen(s: string): number {
  return /[\uD800-\uDBFF]/.test(s) ? [...s].length : s.length;
}

/** `s[:n]` for n >= 0. */
export function pySlice(s: string, n: number): string {
  return /[\uD800-\uDBFF]/.test(s) ? [...s].slice(0, n).join('') : s.slice(0, n);
}

/** Letters Python's re.IGNORECASE also matches beyond the ASCII pair (its case folding, which JavaScript's /i lacks). */
const PY_FOLDS: Record<string, string> = { i: '\u0130\u0131', s: '\u017f', k: '\u212a' };

/** Regex source matching an ASCII word the way Python's re.IGNORECASE does. */
export function pyIgnoreCase(word: string): string {
  return [...word].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}${PY_FOLDS[c.toLowerCase()] ?? ''}]` : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
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
