/**
 * LifelongAgentBench's check of a direct (SELECT) answer, as the reference runs it
 * (db_bench/task.py:DirectTypeAnswerValidator.validate), quirks included:
 * - rows are found by parentheses (a `Decimal(` is skipped, once); no parentheses at
 *   all means one row made of the whole answer; unbalanced ones fail;
 * - a row's cells are split at every comma (a string holding a comma cannot match);
 * - rows are compared in order, and their counts must be equal;
 * - a number cell: `Decimal(...)` unwrapped, then one stray character on each side
 *   may be cut (the reference's loop is off by one: `'-55'` keeps its quotes and
 *   fails), then Python's float() and isclose(rel 1e-6, abs 1e-6);
 * - a text cell equal to the gold one, or longer by one or two quote characters at
 *   its ends.
 * Gold cells are JSON values: numbers and booleans take the number path (a Python
 * bool is an int), strings the text path, anything else fails.
 */
import { pyFloat, pyIsClose, pyLen, pyStrip } from '../../util/python/text.js';

function tuplePositions(answer: string): [number, number][] | null {
  const out: [number, number][] = [];
  let start: number | null = null;
  let end: number | null = null;
  let inDecimal = false;
  const word = 'Decimal';
  for (let i = 0; i < answer.length; i++) {
    const ch = answer[i];
    if (ch === '(') {
      if (i >= word.length && answer.slice(i - word.length, i) === word) {
        if (inDecimal) return null;
        inDecimal = true;
        continue;
      }
      start = i;
    } else if (ch === ')') {
      if (inDecimal) {
        inDecimal = false;
        continue;
      }
      end = i;
      if (start === null) return null;
      out.push([start, end]);
      start = null;
      end = null;
    }
  }
  if (start !== null || end !== null) return null;
  return out;
}

const NUMBER_CHARS = '0123456789.-';

/** The reference's trim of a number cell (one non-number character at most, each side). */
function numberText(cell: string): string {
  const s = cell.replace(/^Decimal\((["']?)([^\n]*?)(["']?)\)$/, '$2');
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (NUMBER_CHARS.includes(s[i] as string)) break;
    start = i;
  }
  let end = s.length;
  for (let i = s.length - 1; i >= 0; i--) {
    if (NUMBER_CHARS.includes(s[i] as string)) break;
    end = i + 1;
  }
  return s.slice(start, end);
}

function textCellMatches(cell: string, gold: string): boolean {
  let agent = cell;
  const extra = pyLen(agent) - pyLen(gold);
  if (extra > 0 && extra <= 2) {
    let head = false;
    let tail = false;
    for (const q of ["'", '"']) {
      if (agent.startsWith(q) && !gold.startsWith(q) && !head) {
        agent = agent.slice(1);
        head = true;
      }
      if (agent.endsWith(q) && !gold.endsWith(q) && !tail) {
        agent = agent.slice(0, -1);
        tail = true;
      }
    }
  }
  return agent === gold;
}

function rowMatches(rowText: string, gold: readonly unknown[]): boolean {
  const cells = rowText
    .split(/\s*,\s*/)
    .map(pyStrip)
    .filter((c) => c !== '');
  if (cells.length !== gold.length) return false;
  return cells.every((cell, k) => {
    const g = gold[k];
    if (typeof g === 'number' || typeof g === 'boolean') {
      const v = pyFloat(numberText(cell));
      return v !== null && pyIsClose(v, Number(g), 1e-6, 1e-6);
    }
    if (typeof g === 'string') return textCellMatches(cell, g);
    return false;
  });
}

/** Is `answer` (the Final Answer text, '' when there was none) the gold rows, by the reference's rules? */
export function referenceDirectMatches(answer: string, gold: readonly (readonly unknown[])[]): boolean {
  const positions = tuplePositions(answer);
  if (positions === null) return false;
  if (positions.length === 0) {
    if (gold.length === 0) return true;
    if (gold.length !== 1) return false;
    return rowMatches(answer, gold[0] as readonly unknown[]);
  }
  if (positions.length !== gold.length) return false;
  return positions.every(([s, e], k) => rowMatches(answer.slice(s + 1, e), gold[k] as readonly unknown[]));
}
