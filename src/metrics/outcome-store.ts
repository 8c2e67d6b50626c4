/**
 * outcomes.jsonl: the append-only log of outcome rows, one JSON object per line.
 *
 * Each row is written with one synchronous write as soon as its episode finishes,
 * so a crash keeps every finished row. A crash in the middle of a write can leave a
 * partial last line: readers ignore it (and say so), and a writer reopening the file
 * cuts it off before appending, so the file never holds a broken line in the middle.
 */
import { closeSync, existsSync, fdatasyncSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { parseOutcomeRow, type OutcomeRow } from './outcome-row.js';
import { writeAllSync } from '../util/fs.js';

export interface TruncatedTail {
  /** 1-based line number of the partial line. */
  line: number;
  /** Byte offset where the partial line starts (the length of the intact part). */
  offset: number;
  /** The partial text, shortened for messages. */
  text: string;
}

export interface ReadOutcomesResult {
  rows: OutcomeRow[];
  /** Set when the last line was cut short (a crash mid-write) and was ignored. */
  truncatedTail?: TruncatedTail;
}

/**
 * Read outcomes.jsonl. A last line without its newline that is not a valid row is
 * reported in `truncatedTail` and ignored; any other bad line throws (file:line).
 * A missing file reads as no rows.
 */
export function readOutcomeRows(path: string): ReadOutcomesResult {
  if (!existsSync(path)) return { rows: [] };
  const text = readFileSync(path, 'utf8');
  const rows: OutcomeRow[] = [];
  let start = 0;
  let lineNo = 0;
  while (start < text.length) {
    lineNo++;
    const nl = text.indexOf('\n', start);
    const complete = nl >= 0;
    const line = text.slice(start, complete ? nl : text.length);
    const lineStart = start;
    start = complete ? nl + 1 : text.length;
    if (line.trim() === '') continue;
    const row = tryParseLine(line);
    if (row.ok) {
      rows.push(row.value);
    } else if (!complete) {
      return {
        rows,
        truncatedTail: {
          line: lineNo,
          offset: Buffer.byteLength(text.slice(0, lineStart), 'utf8'),
          text: line.length > 80 ? line.slice(0, 80) + '…' : line,
        },
      };
    } else {
      throw new Error(`${path}:${lineNo}: ${row.error}`);
    }
  }
  return { rows };
}

type LineParse = { ok: true; value: OutcomeRow } | { ok: false; error: string };

function tryParseLine(line: string): LineParse {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (err) {
    return { ok: false, error: `not JSON (${(err as Error).message})` };
  }
  try {
    return { ok: true, value: parseOutcomeRow(json, 'row') };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

export interface OutcomeLogOptions {
  /**
   * fdatasync after every row (default true) so rows also survive a power loss, not
   * only a process crash. Cheap next to an episode; turn off for bulk rewrites.
   */
  syncEachRow?: boolean;
}

/** Appends rows to outcomes.jsonl, one synchronous write per row. */
export class OutcomeLog {
  readonly path: string;
  /** What opening the file found: a partial last line that was cut off, if any. */
  readonly repairedTail?: TruncatedTail;
  private fd: number | null;
  private readonly syncEachRow: boolean;

  constructor(path: string, opts: OutcomeLogOptions = {}) {
    this.path = path;
    this.syncEachRow = opts.syncEachRow ?? true;
    // Read first: it validates the existing rows and finds a partial tail.
    const existing = readOutcomeRows(path);
    this.fd = openSync(path, 'a');
    if (existing.truncatedTail) {
      ftruncateSync(this.fd, existing.truncatedTail.offset);
      this.repairedTail = existing.truncatedTail;
    } else if (existsSync(path)) {
      // A complete row that lost only its newline: terminate it instead of gluing the next row on.
      const text = readFileSync(path, 'utf8');
      if (text.length > 0 && !text.endsWith('\n')) writeSync(this.fd, '\n');
    }
  }

  /** Validate and append one row; returns the validated row. */
  append(row: OutcomeRow): OutcomeRow {
    if (this.fd === null) throw new Error(`OutcomeLog: ${this.path} is closed`);
    const valid = parseOutcomeRow(row, `OutcomeLog(${this.path})`);
    writeAllSync(this.fd, Buffer.from(JSON.stringify(valid) + '\n', 'utf8'));
    if (this.syncEachRow) fdatasyncSync(this.fd);
    return valid;
  }

  /** Ask the OS to put appended rows on disk (rows are already safe from a process crash). */
  flush(): void {
    if (this.fd !== null) fdatasyncSync(this.fd);
  }

  close(): void {
    if (this.fd === null) return;
    this.flush();
    closeSync(this.fd);
    this.fd = null;
  }
}
