/**
 * Python's notion of whitespace, for code that must cut text exactly where the
 * reference's Python does: `str.strip()` and the `\s` of a `re` pattern on str both
 * use str.isspace(), which differs from JavaScript's \s (Python adds \x1c-\x1f and
 * \x85; JavaScript adds \ufeff).
 */
export const PY_WS = '[\\t\\n\\v\\f\\r \\x1c-\\x1f\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';

const LEADING = new RegExp(`^${PY_WS}+`);
const TRAILING = new RegExp(`${PY_WS}+$`);

/** Python's str.strip() with no argument. */
export function pyStrip(text: string): string {
  return text.replace(LEADING, '').replace(TRAILING, '');
}

/** Letters Python's re.IGNORECASE also matches beyond the ASCII pair (its case folding, which JavaScript's /i lacks). */
const PY_FOLDS: Record<string, string> = { i: '\u0130\u0131', s: '\u017f', k: '\u212a' };

/** Regex source matching an ASCII word the way Python's re.IGNORECASE does. */
export function pyIgnoreCase(word: string): string {
  return [...word].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}${PY_FOLDS[c.toLowerCase()] ?? ''}]` : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
}

/** Python's len(): code points, not UTF-16 units. */
export function pyLen(text: string): number {
  return /[\uD800-\uDBFF]/.test(text) ? [...text].length : text.length;
}

/** Python's text[:n] for n >= 0. */
export function pySlice(text: string, n: number): string {
  return /[\uD800-\uDBFF]/.test(text) ? [...text].slice(0, n).join('') : text.slice(0, n);
}

/** Python truthiness of a JSON-like value. */
export function pyTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}
