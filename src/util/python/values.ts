/**
 * Python values as text, which ALFWorld's memory format depends on. The reference stores
 * an episode's trajectory as `str(messages)` (the repr of a list of dicts) and reads it
 * back with `ast.literal_eval`; its parsers strip with `str.strip()`. This module gives
 * memrl the same: repr of values (the literal parser is ./literal-eval.ts, strip is in ./text.ts).
 * Values parsed from Python literals keep their Python type (int vs float, tuple vs
 * list, dict order) so that printing them again gives what Python would print.
 */

/** An exception the reference would raise, by its Python type name (e.g. 'AttributeError'). */
export class PyError extends Error {
  constructor(
    readonly pyType: string,
    message: string,
  ) {
    super(`${pyType}: ${message}`);
    this.name = 'PyError';
  }
}

export type PyValue =
  | string
  | boolean
  | null
  | { py: 'int'; v: bigint }
  | { py: 'float'; v: number }
  | { py: 'complex'; re: number; im: number }
  | { py: 'bytes'; v: number[] }
  | { py: 'list' | 'tuple' | 'set'; items: PyValue[] }
  | { py: 'dict'; entries: [PyValue, PyValue][] };

export type PyDict = { py: 'dict'; entries: [PyValue, PyValue][] };

// ---------------------------------------------------------------------------
// repr / str

const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/** Python's repr() of a str. */
export function pyReprStr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (c < 0x20 || c === 0x7f) out += `\\x${hex(c, 2)}`;
    else if (c < 0x7f) out += ch;
    else if (!NON_PRINTABLE.test(ch)) out += ch;
    else if (c <= 0xff) out += `\\x${hex(c, 2)}`;
    else if (c <= 0xffff) out += `\\u${hex(c, 4)}`;
    else out += `\\U${hex(c, 8)}`;
  }
  return out + quote;
}

/** Python's repr() of a float. */
export function pyReprFloat(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  // toExponential() gives the shortest round-trip digits, as Python's repr does.
  const [mant, expText] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mant.replace('.', '');
  const exp = Number(expText);
  const decpt = exp + 1;
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
    if (decpt >= digits.length) return `${sign}${digits}${'0'.repeat(decpt - digits.length)}.0`;
    return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
  }
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

function reprComplex(re: number, im: number): string {
  const part = (x: number): string => {
    const r = pyReprFloat(x);
    return r.endsWith('.0') ? r.slice(0, -2) : r;
  };
  if (re === 0 && !Object.is(re, -0)) return `${part(im)}j`;
  const imText = part(im);
  return `(${part(re)}${imText.startsWith('-') ? '' : '+'}${imText}j)`;
}

function reprBytes(v: number[]): string {
  const hasSingle = v.includes(0x27);
  const quote = hasSingle && !v.includes(0x22) ? '"' : "'";
  let out = `b${quote}`;
  for (const c of v) {
    const ch = String.fromCharCode(c);
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (c < 0x20 || c >= 0x7f) out += `\\x${hex(c, 2)}`;
    else out += ch;
  }
  return out + quote;
}

/** Python's repr() of a value. */
export function pyRepr(v: PyValue): string {
  if (typeof v === 'string') return pyReprStr(v);
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  switch (v.py) {
    case 'int':
      return v.v.toString();
    case 'float':
      return pyReprFloat(v.v);
    case 'complex':
      return reprComplex(v.re, v.im);
    case 'bytes':
      return reprBytes(v.v);
    case 'list':
      return `[${v.items.map(pyRepr).join(', ')}]`;
    case 'tuple':
      return v.items.length === 1 ? `(${pyRepr(v.items[0]!)},)` : `(${v.items.map(pyRepr).join(', ')})`;
    case 'set':
      return v.items.length === 0 ? 'set()' : `{${v.items.map(pyRepr).join(', ')}}`;
    case 'dict':
      return `{${v.entries.map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(', ')}}`;
  }
}

/** Python's str() of a value (what an f-string interpolates). */
export function pyStr(v: PyValue): string {
  return typeof v === 'string' ? v : pyRepr(v);
}

/** `str(messages)` for a list of {'role', 'content'} dicts: how the reference stores a trajectory. */
export function reprMessages(messages: readonly { role: string; content: string }[]): string {
  return pyRepr({ py: 'list', items: messages.map((m) => ({ py: 'dict', entries: [['role', m.role], ['content', m.content]] })) });
}

/** `json.dumps(messages, ensure_ascii=False)` for a list of {'role', 'content'} dicts (Python's ", " and ": " separators). */
export function jsonDumpsMessages(messages: readonly { role: string; content: string }[]): string {
  return `[${messages.map((m) => `{"role": ${JSON.stringify(m.role)}, "content": ${JSON.stringify(m.content)}}`).join(', ')}]`;
}

// ---------------------------------------------------------------------------
// dict access and iteration, as the reference's loops do them

export function isDict(v: PyValue): v is PyDict {
  return typeof v === 'object' && v !== null && v.py === 'dict';
}

function typeName(v: PyValue): string {
  if (typeof v === 'string') return 'str';
  if (v === null) return 'NoneType';
  if (typeof v === 'boolean') return 'bool';
  return v.py;
}

/** `d.get(key, fallback)` for a str key; AttributeError on anything but a dict. */
export function pyGet(d: PyValue, key: string, fallback: PyValue = null): PyValue {
  if (!isDict(d)) throw new PyError('AttributeError', `'${typeName(d)}' object has no attribute 'get'`);
  for (let i = d.entries.length - 1; i >= 0; i--) {
    const [k, v] = d.entries[i]!;
    if (k === key) return v;
  }
  return fallback;
}

/** `d[key]`: KeyError when missing. */
export function pyItem(d: PyDict, key: string): PyValue {
  for (let i = d.entries.length - 1; i >= 0; i--) if (d.entries[i]![0] === key) return d.entries[i]![1];
  throw new PyError('KeyError', pyReprStr(key));
}

/** The items `for x in v` visits; TypeError for what is not iterable. */
export function pyIter(v: PyValue): PyValue[] {
  if (typeof v === 'string') return [...v];
  if (v === null || typeof v === 'boolean') throw new PyError('TypeError', `'${typeName(v)}' object is not iterable`);
  switch (v.py) {
    case 'list':
    case 'tuple':
    case 'set':
      return v.items;
    case 'dict':
      return v.entries.map(([k]) => k);
    case 'bytes':
      return v.v.map((n) => ({ py: 'int' as const, v: BigInt(n) }));
    default:
      throw new PyError('TypeError', `'${typeName(v)}' object is not iterable`);
  }
}

/** Python truthiness. */
export function pyValueTruthy(v: PyValue): boolean {
  if (typeof v === 'string') return v.length > 0;
  if (v === null) return false;
  if (typeof v === 'boolean') return v;
  switch (v.py) {
    case 'int':
      return v.v !== 0n;
    case 'float':
      return v.v !== 0;
    case 'complex':
      return v.re !== 0 || v.im !== 0;
    case 'bytes':
      return v.v.length > 0;
    case 'dict':
      return v.entries.length > 0;
    default:
      return v.items.length > 0;
  }
}
