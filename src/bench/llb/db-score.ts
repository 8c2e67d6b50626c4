/**
 * LLB db scoring and observation text.
 *
 * md5 tasks (INSERT/UPDATE/DELETE): the table state hash of LLB,
 *   MD5(GROUP_CONCAT(rowhash ORDER BY rowhash)) over
 *   SUBSTRING(MD5(CONCAT_WS(',', <all columns in order>)), 1, 5),
 * computed by the server with MySQL 8's default group_concat_max_len (1024) so the
 * stored hashes of large tables reproduce (MariaDB's own default is 1 MiB).
 *
 * direct tasks (SELECT): the agent's `Final Answer:` is parsed as a Python/JSON
 * literal (tuples, Decimal('x'), None accepted) and compared with `direct` cell by
 * cell: numbers within 1e-6, strings after removing up to 2 pairs of surrounding
 * quotes. Row order matters only when the gold SQL has an ORDER BY: MariaDB returns
 * GROUP BY results sorted where MySQL 8 does not, so an order-free gold answer is
 * compared as a multiset of rows.
 */
import type { DbTask } from './dataset.js';
import type { SqlDialect, SqlResult } from '../../env/sql/contract.js';
import { quoteIdent, sqlLiteral } from '../../env/sql/sql-text.js';

/**
 * The task's table. On MariaDB it gets the hidden insertion-order column of the
 * MySQL 8 emulation (tieBreak); a real MySQL server gets LLB's table as it is.
 */
export function tableSetupSql(task: DbTask, dialect: SqlDialect = 'mariadb'): string {
  const t = task.table;
  const cols = t.columns.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(', ');
  const hidden = dialect === 'mariadb' ? `${quoteIdent(ROW_COLUMN)} INT NOT NULL AUTO_INCREMENT INVISIBLE, UNIQUE KEY (${quoteIdent(ROW_COLUMN)})` : '';
  const lines = [`CREATE TABLE ${quoteIdent(t.name)} (${[cols, hidden].filter(Boolean).join(', ')});`];
  const chunk = 200;
  for (let i = 0; i < t.rows.length; i += chunk) {
    const values = t.rows.slice(i, i + chunk).map((r) => `(${r.map(sqlLiteral).join(', ')})`);
    lines.push(`INSERT INTO ${quoteIdent(t.name)} (${t.columns.map((c) => quoteIdent(c.name)).join(', ')}) VALUES ${values.join(', ')};`);
  }
  return lines.join('\n');
}

/**
 * The reference's table-state query (db_bench/task.py:DBBench._get_task_output), as
 * it writes it: column names in backticks, unescaped.
 */
export function md5HashQuery(table: string, columns: readonly string[]): string {
  const cols = columns.map((c) => `\`${c}\``).join(',');
  return (
    'select md5(group_concat(rowhash order by rowhash)) as hash ' +
    `from( SELECT substring(MD5(CONCAT_WS(',', ${cols})), 1, 5) AS rowhash FROM \`${table}\`) as sub;`
  );
}

/** What memrl sends: MySQL 8's group_concat_max_len first (MariaDB's default is larger), then the reference's query. */
export function tableHashSql(task: DbTask): string {
  return `SET SESSION group_concat_max_len = 1024;\n${md5HashQuery(task.table.name, task.table.columns.map((c) => c.name))}`;
}

/** The result could not be read as a hash (the reference raises TaskEnvironmentException: the task counts as failed). */
export class Md5ResultError extends Error {
  override name = 'Md5ResultError';
}

/**
 * The reference's reading of the hash query's result, str(cursor.fetchall()) or the
 * error text: the first `('…',)` (quotes optional), so `[(None,)]` gives 'None'.
 */
export function md5AnswerFromResult(result: string): string {
  const m = /\('?([^\n]*?)'?,\)/.exec(result);
  if (!m) throw new Md5ResultError(`cannot read a hash from ${JSON.stringify(result.slice(0, 200))}`);
  return m[1] as string;
}

/**
 * MySQL 8 compatibility for MariaDB: MariaDB returns GROUP BY results sorted by the
 * group key, MySQL 8 in scan order. A SELECT with GROUP BY and no ORDER BY gets
 * `ORDER BY NULL` (before its LIMIT, if any), which makes MariaDB skip the sort and
 * return MySQL 8's order: then `LIMIT/OFFSET` over groups picks the same rows.
 * With an ORDER BY, insertion order breaks ties as MySQL 8 does (tieBreak).
 * Also `DELETE FROM t AS a ...` (accepted by MySQL >= 8.0.16, rejected by MariaDB
 * 10.11) becomes `DELETE a FROM t AS a ...`. Applied to agent SQL and gold SQL alike.
 */
export function mysql8Compat(sql: string): string {
  // `DELETE FROM t AS a WHERE ...` (MySQL >= 8.0.16) → MariaDB's multi-table form `DELETE a FROM t AS a WHERE ...`.
  const del = /^\s*DELETE\s+FROM\s+(`[^`]+`|\w+)\s+AS\s+(`[^`]+`|\w+)\s+(WHERE\b[^]*)$/i.exec(sql);
  if (del && !/\b(order\s+by|limit)\b/i.test(del[3] as string)) return `DELETE ${del[2]} FROM ${del[1]} AS ${del[2]} ${del[3]}`;
  const body = sql.trim().replace(/;\s*$/, '');
  if (!/^\s*\(?\s*select\b/i.test(body) || body.includes(';')) return sql;
  const group = body.search(/\bgroup\s+by\b/i);
  if (group < 0) return /\border\s+by\b/i.test(body) ? tieBreak(sql, body, false) : sql;
  if (/\border\s+by\b/i.test(body)) return tieBreak(sql, body, true);
  const limitRe = /\blimit\b/gi;
  let limit = -1;
  for (let m = limitRe.exec(body); m; m = limitRe.exec(body)) limit = m.index;
  if (limit > group && !/\)/.test(body.slice(limit))) return `${body.slice(0, limit)}ORDER BY NULL ${body.slice(limit)};`;
  if (/\)\s*$/.test(body) && /^\s*\(/.test(body)) return sql;
  return `${body} ORDER BY NULL;`;
}

/** Agent and gold SQL as sent to the server: MariaDB gets the MySQL 8 emulation, MySQL runs it as written. */
export function adaptSql(sql: string, dialect: SqlDialect): string {
  return dialect === 'mariadb' ? mysql8Compat(sql) : sql;
}

/** Hidden insertion-order column of every task table (MariaDB INVISIBLE: not in SELECT *, INSERT without a column list, or the md5). */
export const ROW_COLUMN = '__memrl_row';

/**
 * Ties under ORDER BY: MySQL 8 leaves tied rows in scan order (for GROUP BY: the
 * groups' first-appearance order); MariaDB's sort leaves them in an arbitrary order
 * that even changes between runs. For a flat single-table SELECT the insertion order
 * is appended as the last ORDER BY key: `__memrl_row` without GROUP BY,
 * `MIN(__memrl_row)` with it. Skipped for joins, subqueries, UNION, DISTINCT, ROLLUP.
 */
function tieBreak(sql: string, body: string, grouped: boolean): string {
  if (/\(\s*select\b|\bwith\s+rollup\b|\bunion\b|\bdistinct\b|\bjoin\b/i.test(body)) return sql;
  const from = /\bfrom\s+([^]*?)(\s+(where|group|having|order|limit)\b|$)/i.exec(body);
  if (!from || (from[1] as string).includes(',')) return sql;
  const m = /^([^]*?\border\s+by\s+)([^]*?)(\s+limit\b[^]*)?$/i.exec(body);
  if (!m || /\border\s+by\b/i.test(m[2] as string)) return sql;
  if (!grouped && /\b(count|sum|avg|min|max|group_concat)\s*\(/i.test(body.slice(0, from.index))) return sql;
  const key = grouped ? `MIN(${ROW_COLUMN})` : ROW_COLUMN;
  return `${m[1]}${(m[2] as string).trim()}, ${key}${m[3] ?? ''};`;
}

export function goldIsOrdered(sql: string): boolean {
  return /\border\s+by\b/i.test(sql);
}

// ---------- Python-style rendering of a result set (str(cursor.fetchall())) ----------

function pyStr(s: string): string {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    if (ch === '\\') out += '\\\\';
    else if (ch === q) out += '\\' + q;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else out += ch;
  }
  return q + out + q;
}

/**
 * One text cell as Python would print it. The CLI client gives text only, so the
 * type is inferred: integers bare, decimals as Decimal('x') (what MySQL returns for
 * SUM/AVG over INT columns), NULL as None, everything else a str. A TEXT cell that
 * holds only digits therefore prints like a number (the LLB tables use INT and TEXT).
 */
export function pyCell(v: string | null): string {
  if (v === null) return 'None';
  if (/^-?\d+$/.test(v)) return v;
  if (/^-?\d+\.\d+$/.test(v)) return `Decimal('${v}')`;
  return pyStr(v);
}

export function renderRows(rows: (string | null)[][]): string {
  return '[' + rows.map((r) => '(' + r.map(pyCell).join(', ') + (r.length === 1 ? ',' : '') + ')').join(', ') + ']';
}

/**
 * The next user message after a statement, as the reference's str(cursor.fetchall())
 * or str(error) of mysql.connector: the rows, or `errno (sqlstate): message`.
 */
export function observationOf(r: SqlResult): string {
  if (r.ok) return renderRows(r.rows);
  if (r.errorCode !== undefined && r.errorMessage !== undefined) return r.sqlState ? `${r.errorCode} (${r.sqlState}): ${r.errorMessage}` : `${r.errorCode}: ${r.errorMessage}`;
  return r.error ?? 'Error';
}

// ---------- parsing an answer ----------

type Val = string | number | null | boolean | Val[];

/** A small Python/JSON literal parser: lists, tuples, strings, numbers, None/True/False, Decimal('x'). Null on failure. */
export function parseLiteral(text: string): Val | undefined {
  let i = 0;
  const s = text;
  const ws = () => {
    while (i < s.length && /\s/.test(s[i] as string)) i++;
  };
  const value = (): Val => {
    ws();
    const c = s[i];
    if (c === '[' || c === '(') {
      const close = c === '[' ? ']' : ')';
      i++;
      const items: Val[] = [];
      ws();
      while (s[i] !== close) {
        items.push(value());
        ws();
        if (s[i] === ',') {
          i++;
          ws();
        } else if (s[i] !== close) throw new Error('expected , or close');
      }
      i++;
      return items;
    }
    if (c === "'" || c === '"') {
      const q = c;
      i++;
      let out = '';
      while (i < s.length && s[i] !== q) {
        if (s[i] === '\\' && i + 1 < s.length) {
          const n = s[i + 1] as string;
          out += n === 'n' ? '\n' : n === 't' ? '\t' : n;
          i += 2;
        } else out += s[i++];
      }
      if (s[i] !== q) throw new Error('unterminated string');
      i++;
      return out;
    }
    const dec = /^Decimal\(\s*(['"])(.*?)\1\s*\)/.exec(s.slice(i));
    if (dec) {
      i += dec[0].length;
      return Number(dec[2]);
    }
    const num = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(s.slice(i));
    if (num) {
      i += num[0].length;
      return Number(num[0]);
    }
    for (const [word, v] of [['None', null], ['null', null], ['True', true], ['False', false], ['true', true], ['false', false]] as const) {
      if (s.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    throw new Error(`unexpected ${c ?? 'end'}`);
  };
  try {
    const v = value();
    ws();
    if (i !== s.length) return undefined;
    return v;
  } catch {
    return undefined;
  }
}

function stripQuotes(s: string): string {
  let t = s.trim();
  for (let k = 0; k < 2; k++) {
    const m = /^(['"])([^]*)\1$/.exec(t);
    if (!m) break;
    t = (m[2] as string).trim();
  }
  return t;
}

type Cell = number | string | null;

function normCell(v: unknown): Cell {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  const t = stripQuotes(String(v));
  if (t === 'None' || t === 'NULL') return null;
  if (/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) return Number(t);
  return t;
}

function cellEq(a: Cell, b: Cell): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));
  return a === b;
}

function cellKey(c: Cell): string {
  if (typeof c === 'number') return `n:${Math.round(c * 1e4) / 1e4}`;
  return c === null ? 'z:' : `s:${c}`;
}

/** Shapes a parsed answer into rows like the gold's: scalar → [[x]], flat list → one column or one row. */
function toRows(v: unknown, gold: unknown[][]): Cell[][] {
  if (!Array.isArray(v)) return [[normCell(v)]];
  if (v.every((x) => Array.isArray(x))) return (v as unknown[][]).map((r) => r.map(normCell));
  const flat = v.map(normCell);
  const width = gold[0]?.length ?? 1;
  if (width === 1) return flat.map((x) => [x]);
  if (gold.length === 1 && flat.length === width) return [flat];
  const rows: Cell[][] = [];
  for (let k = 0; k < flat.length; k += width) rows.push(flat.slice(k, k + width));
  return rows;
}

/** Parses a Final Answer text into rows (or undefined when empty). Non-literals become one comma-split row. */
export function parseAnswerRows(answer: string, gold: unknown[][]): Cell[][] | undefined {
  const text = answer.trim();
  if (!text) return undefined;
  const lit = parseLiteral(text);
  if (lit !== undefined) return toRows(lit, gold);
  const parts = text.split(',').map((p) => p.trim());
  return toRows(parts.length === 1 ? parts[0] : parts, gold);
}

/** Do the answer rows equal the gold rows? Order-free unless `ordered`. */
export function rowsMatch(answer: readonly unknown[][], gold: readonly unknown[][], ordered: boolean): boolean {
  const a = answer.map((r) => r.map(normCell));
  const g = gold.map((r) => r.map(normCell));
  if (a.length !== g.length) return false;
  const rowEq = (x: Cell[], y: Cell[]) => x.length === y.length && x.every((c, k) => cellEq(c, y[k] as Cell));
  if (ordered) return a.every((r, k) => rowEq(r, g[k] as Cell[]));
  const used = new Array<boolean>(g.length).fill(false);
  const sortKey = (r: Cell[]) => r.map(cellKey).join('\u0001');
  const order = a.map((r) => ({ r, k: sortKey(r) })).sort((x, y) => (x.k < y.k ? -1 : x.k > y.k ? 1 : 0));
  for (const { r } of order) {
    const j = g.findIndex((gr, idx) => !used[idx] && rowEq(r, gr));
    if (j < 0) return false;
    used[j] = true;
  }
  return true;
}

/** memrl's check of a Final Answer text against gold rows (order-free unless `ordered`). */
export function memrlDirectMatches(answer: string, gold: unknown[][], ordered: boolean): boolean {
  const rows = parseAnswerRows(answer, gold);
  if (!rows) return gold.length === 0;
  return rowsMatch(rows, gold, ordered);
}

/** memrl's direct-answer check of a task (row order counts when the gold SQL has ORDER BY). */
export function directAnswerMatches(task: DbTask, answer: string): boolean {
  return memrlDirectMatches(answer, task.answer.direct ?? [], goldIsOrdered(task.answer.sql));
}
