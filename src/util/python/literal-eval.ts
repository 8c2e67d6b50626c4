/**
 * Python's `ast.literal_eval`, which reads back ALFWorld's stored trajectories (the repr
 * of a list of dicts): a tokenizer as far as literals need one, and a parser that keeps
 * each value's Python type and raises where Python raises.
 */
import { isPySpace } from './text.js';
import { PyError, pyRepr, type PyValue } from './values.js';

const syntax = (what: string): PyError => new PyError('SyntaxError', what);
const malformed = (): PyError => new PyError('ValueError', 'malformed node or string');

const STRING_PREFIX = /^(?:[rRuUbBfF]|[bB][rR]|[rR][bB]|[fF][rR]|[rR][fF])(?=['"])/;

type Token =
  | { t: 'op'; v: string }
  | { t: 'name'; v: string }
  | { t: 'num'; v: PyValue; imag: boolean }
  | { t: 'str'; v: string; bytes: boolean; f: boolean }
  | { t: 'end' };

/** Python's tokenizer, as far as literals need it (brackets, strings, numbers, names, comments). */
function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let depth = 0;
  let lineStart = true;
  let firstLine = true;
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === '\n' || ch === '\r') {
      i++;
      lineStart = true;
      if (depth === 0) firstLine = false;
      continue;
    }
    if (ch === ' ' || ch === '\t' || ch === '\f') {
      // An indented line outside brackets (not the first one) is an IndentationError.
      if (lineStart && depth === 0 && !firstLine) {
        let j = i;
        while (j < src.length && (src[j] === ' ' || src[j] === '\t' || src[j] === '\f')) j++;
        if (j < src.length && src[j] !== '\n' && src[j] !== '\r' && src[j] !== '#') throw new PyError('IndentationError', 'unexpected indent');
      }
      i++;
      continue;
    }
    if (ch === '\\' && (src[i + 1] === '\n' || src[i + 1] === '\r')) {
      i += src[i + 1] === '\r' && src[i + 2] === '\n' ? 3 : 2;
      continue;
    }
    if (ch === '#') {
      while (i < src.length && src[i] !== '\n' && src[i] !== '\r') i++;
      continue;
    }
    // A second logical line outside brackets: literal_eval takes one expression.
    if (lineStart && depth === 0 && out.length > 0) throw syntax('invalid syntax');
    lineStart = false;
    const prefix = STRING_PREFIX.exec(src.slice(i, i + 3));
    if (ch === '"' || ch === "'" || prefix) {
      const p = (prefix?.[0] ?? '').toLowerCase();
      i += p.length;
      const [text, next] = readString(src, i, p.includes('r'), p.includes('b'));
      out.push({ t: 'str', v: text, bytes: p.includes('b'), f: p.includes('f') });
      i = next;
      continue;
    }
    if (/[0-9]/.test(ch) || (ch === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const [tok, next] = readNumber(src, i);
      out.push(tok);
      i = next;
      continue;
    }
    const isNameChar = (c: string): boolean => /[A-Za-z0-9_]/.test(c) || (c.charCodeAt(0) > 0x7f && !isPySpace(c));
    if (/[A-Za-z_]/.test(ch) || isNameChar(ch)) {
      let j = i;
      while (j < src.length && isNameChar(src[j]!)) j++;
      out.push({ t: 'name', v: src.slice(i, j) });
      i = j;
      continue;
    }
    if ('([{'.includes(ch)) depth++;
    if (')]}'.includes(ch)) depth = Math.max(0, depth - 1);
    // Other operators are valid tokens but never part of a literal; the parser rejects them.
    out.push({ t: 'op', v: ch });
    i++;
  }
  if (depth > 0) throw syntax('unexpected EOF');
  out.push({ t: 'end' });
  return out;
}

function readString(src: string, start: number, raw: boolean, bytes: boolean): [string, number] {
  const q = src[start]!;
  const triple = src.startsWith(q.repeat(3), start);
  const close = triple ? q.repeat(3) : q;
  let i = start + close.length;
  let out = '';
  for (;;) {
    if (i >= src.length) throw syntax('unterminated string literal');
    if (src.startsWith(close, i)) return [out, i + close.length];
    const ch = src[i]!;
    if (!triple && (ch === '\n' || ch === '\r')) throw syntax('unterminated string literal');
    if (bytes && ch.charCodeAt(0) > 0x7f) throw syntax('bytes can only contain ASCII literal characters');
    if (ch !== '\\') {
      out += ch;
      i++;
      continue;
    }
    const n = src[i + 1];
    if (n === undefined) throw syntax('unterminated string literal');
    if (raw) {
      // A raw string keeps the backslash; it still protects the next character from closing the string.
      out += ch + n;
      i += 2;
      continue;
    }
    i += 2;
    switch (n) {
      case '\n':
        break;
      case '\r':
        if (src[i] === '\n') i++;
        break;
      case '\\':
      case "'":
      case '"':
        out += n;
        break;
      case 'a':
        out += '\x07';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'v':
        out += '\v';
        break;
      case 'x': {
        const h = src.slice(i, i + 2);
        if (!/^[0-9a-fA-F]{2}$/.test(h)) throw syntax('truncated \\xXX escape');
        out += String.fromCharCode(parseInt(h, 16));
        i += 2;
        break;
      }
      case 'u':
      case 'U': {
        if (bytes) {
          out += `\\${n}`;
          break;
        }
        const w = n === 'u' ? 4 : 8;
        const h = src.slice(i, i + w);
        if (!new RegExp(`^[0-9a-fA-F]{${w}}$`).test(h)) throw syntax(`truncated \\${n} escape`);
        const cp = parseInt(h, 16);
        if (cp > 0x10ffff) throw syntax('illegal Unicode character');
        out += String.fromCodePoint(cp);
        i += w;
        break;
      }
      case 'N':
        if (bytes) {
          out += '\\N';
          break;
        }
        // Unicode names need Python's name table; no memory memrl writes uses them.
        throw new PyError('SyntaxError', 'unsupported \\N{...} escape');
      default:
        if (/[0-7]/.test(n)) {
          let o = n;
          while (o.length < 3 && /[0-7]/.test(src[i] ?? '')) o += src[i++];
          out += String.fromCharCode(parseInt(o, 8));
        } else {
          out += `\\${n}`;
        }
    }
  }
}

function readNumber(src: string, start: number): [Token, number] {
  const rest = src.slice(start);
  const radix = /^0([xX](?:_?[0-9a-fA-F])+|[oO](?:_?[0-7])+|[bB](?:_?[01])+)/.exec(rest);
  if (radix) {
    const body = radix[1]!.slice(1).replace(/_/g, '');
    const base = { x: 16, o: 8, b: 2 }[radix[1]![0]!.toLowerCase() as 'x' | 'o' | 'b'];
    let v = 0n;
    for (const d of body) v = v * BigInt(base) + BigInt(parseInt(d, base));
    return [{ t: 'num', v: { py: 'int', v }, imag: false }, start + radix[0].length];
  }
  const dec = /^(?:(?:[0-9](?:_?[0-9])*)?\.(?:[0-9](?:_?[0-9])*)?|[0-9](?:_?[0-9])*)(?:[eE][+-]?[0-9](?:_?[0-9])*)?([jJ])?/.exec(rest);
  if (!dec || dec[0] === '.') throw syntax('invalid decimal literal');
  const text = dec[0];
  const imag = dec[1] !== undefined;
  const body = (imag ? text.slice(0, -1) : text).replace(/_/g, '');
  const next = start + text.length;
  if (/[A-Za-z0-9_]/.test(src[next] ?? '')) throw syntax('invalid decimal literal');
  if (imag) return [{ t: 'num', v: { py: 'complex', re: 0, im: Number(body) }, imag: true }, next];
  if (/[.eE]/.test(body)) return [{ t: 'num', v: { py: 'float', v: Number(body) }, imag: false }, next];
  if (/^0+[0-9]/.test(body) && /[1-9]/.test(body)) throw syntax('leading zeros in decimal integer literals are not permitted');
  return [{ t: 'num', v: { py: 'int', v: BigInt(body) }, imag: false }, next];
}

const isNum = (v: PyValue): v is { py: 'int'; v: bigint } | { py: 'float'; v: number } =>
  typeof v === 'object' && v !== null && (v.py === 'int' || v.py === 'float');

/** Hashable values only may be dict keys or set items; others fail the build (TypeError). */
function hashKey(v: PyValue): string {
  if (typeof v === 'object' && v !== null && (v.py === 'list' || v.py === 'dict' || v.py === 'set')) throw new PyError('TypeError', `unhashable type: '${v.py}'`);
  if (typeof v === 'object' && v !== null && v.py === 'tuple') return `(${v.items.map(hashKey).join(',')})`;
  // Python: 1 == 1.0 == True share one key.
  if (v === true) return 'n:1';
  if (v === false) return 'n:0';
  if (isNum(v)) return `n:${typeof v.v === 'bigint' ? v.v.toString() : Number.isInteger(v.v) ? BigInt(v.v).toString() : String(v.v)}`;
  return pyRepr(v);
}

class Parser {
  private i = 0;
  constructor(private readonly toks: Token[]) {}

  private peek(): Token {
    return this.toks[this.i]!;
  }
  private next(): Token {
    return this.toks[this.i++]!;
  }
  private isOp(v: string): boolean {
    const t = this.peek();
    return t.t === 'op' && t.v === v;
  }
  private expect(v: string): void {
    if (!this.isOp(v)) throw syntax(`expected '${v}'`);
    this.i++;
  }

  /** The whole input: one expression, or a bare tuple. */
  top(): PyValue {
    if (this.peek().t === 'end') throw syntax('invalid syntax');
    const first = this.expr();
    let v = first;
    if (this.isOp(',')) {
      const items = [first];
      while (this.isOp(',')) {
        this.i++;
        if (this.peek().t === 'end') break;
        items.push(this.expr());
      }
      v = { py: 'tuple', items };
    }
    if (this.peek().t !== 'end') throw syntax('invalid syntax');
    return v;
  }

  /** A literal, a signed number, or `number ± imaginary`. */
  private expr(): PyValue {
    let left = this.unary();
    while (this.isOp('+') || this.isOp('-')) {
      const op = this.next() as { v: string };
      const right = this.unary();
      // literal_eval only allows a real number plus or minus an imaginary one.
      if (!isNum(left) || !(typeof right === 'object' && right !== null && right.py === 'complex' && right.re === 0)) throw malformed();
      const re = typeof left.v === 'bigint' ? Number(left.v) : left.v;
      left = { py: 'complex', re, im: op.v === '+' ? right.im : -right.im };
    }
    return left;
  }

  private unary(): PyValue {
    if (this.isOp('+') || this.isOp('-')) {
      const neg = (this.next() as { v: string }).v === '-';
      const t = this.peek();
      if (t.t !== 'num') {
        this.atom();
        throw malformed();
      }
      this.i++;
      const v = t.v;
      if (!neg) return v;
      if (typeof v === 'object' && v !== null) {
        if (v.py === 'int') return { py: 'int', v: -v.v };
        if (v.py === 'float') return { py: 'float', v: -v.v };
        if (v.py === 'complex') return { py: 'complex', re: -v.re, im: -v.im };
      }
      return v;
    }
    return this.atom();
  }

  private atom(): PyValue {
    const t = this.next();
    switch (t.t) {
      case 'num':
        return t.v;
      case 'str': {
        // Adjacent literals concatenate; an f-string is not a literal.
        let text = t.v;
        let f = t.f;
        while (this.peek().t === 'str') {
          const s = this.next() as Extract<Token, { t: 'str' }>;
          if (s.bytes !== t.bytes) throw syntax('cannot mix bytes and nonbytes literals');
          text += s.v;
          f ||= s.f;
        }
        if (f) throw malformed();
        return t.bytes ? { py: 'bytes', v: [...text].map((c) => c.charCodeAt(0)) } : text;
      }
      case 'name': {
        if (t.v === 'None') return null;
        if (t.v === 'True') return true;
        if (t.v === 'False') return false;
        if (t.v === 'set' && this.isOp('(')) {
          this.i++;
          if (this.isOp(')')) {
            this.i++;
            return { py: 'set', items: [] };
          }
          this.skipBalanced();
          throw malformed();
        }
        this.skipTrailers();
        throw malformed();
      }
      case 'op':
        if (t.v === '(') return this.group();
        if (t.v === '[') return { py: 'list', items: this.items(']') };
        if (t.v === '{') return this.brace();
        throw syntax('invalid syntax');
      default:
        throw syntax('unexpected EOF');
    }
  }

  /** Names may be followed by calls, subscripts, attributes: still valid syntax, never a literal. */
  private skipTrailers(): void {
    for (;;) {
      if (this.isOp('(')) {
        this.i++;
        this.skipBalanced();
      } else if (this.isOp('[')) {
        this.i++;
        this.skipBalanced();
      } else if (this.isOp('.') && this.toks[this.i + 1]?.t === 'name') {
        this.i += 2;
      } else return;
    }
  }

  /** Past the bracket that closes the one just opened. */
  private skipBalanced(): void {
    let depth = 1;
    while (depth > 0) {
      const t = this.next();
      if (t.t === 'end') throw syntax('unexpected EOF');
      if (t.t === 'op' && '([{'.includes(t.v)) depth++;
      if (t.t === 'op' && ')]}'.includes(t.v)) depth--;
    }
  }

  private items(close: string): PyValue[] {
    const out: PyValue[] = [];
    while (!this.isOp(close)) {
      out.push(this.expr());
      if (this.isOp(',')) this.i++;
      else if (!this.isOp(close)) throw syntax('invalid syntax');
    }
    this.i++;
    return out;
  }

  private group(): PyValue {
    if (this.isOp(')')) {
      this.i++;
      return { py: 'tuple', items: [] };
    }
    const first = this.expr();
    if (this.isOp(')')) {
      this.i++;
      return first;
    }
    this.expect(',');
    const rest = this.items(')');
    return { py: 'tuple', items: [first, ...rest] };
  }

  private brace(): PyValue {
    if (this.isOp('}')) {
      this.i++;
      return { py: 'dict', entries: [] };
    }
    const first = this.expr();
    if (this.isOp(':')) {
      this.i++;
      const pairs: [PyValue, PyValue][] = [[first, this.expr()]];
      while (this.isOp(',')) {
        this.i++;
        if (this.isOp('}')) break;
        const k = this.expr();
        this.expect(':');
        pairs.push([k, this.expr()]);
      }
      this.expect('}');
      return dictOf(pairs);
    }
    const rest = this.isOp(',') ? (this.i++, this.items('}')) : (this.expect('}'), []);
    return setOf([first, ...rest]);
  }
}

/** A dict display: later duplicates overwrite the value in the first key's position. */
function dictOf(pairs: readonly [PyValue, PyValue][]): PyValue {
  const entries: [PyValue, PyValue][] = [];
  const at = new Map<string, number>();
  for (const [k, v] of pairs) {
    const h = hashKey(k);
    const pos = at.get(h);
    if (pos === undefined) {
      at.set(h, entries.length);
      entries.push([k, v]);
    } else entries[pos] = [entries[pos]![0], v];
  }
  return { py: 'dict', entries };
}

/** A set display: the first of equal values stays. */
function setOf(values: readonly PyValue[]): PyValue {
  const items: PyValue[] = [];
  const seen = new Set<string>();
  for (const v of values) {
    const h = hashKey(v);
    if (!seen.has(h)) {
      seen.add(h);
      items.push(v);
    }
  }
  return { py: 'set', items };
}

/** Python's `ast.literal_eval(text)`; throws PyError (SyntaxError, ValueError, ...) where Python raises. */
export function literalEval(text: string): PyValue {
  // literal_eval strips leading spaces and tabs before parsing.
  const src = text.replace(/^[ \t]+/, '');
  return new Parser(tokenize(src)).top();
}
