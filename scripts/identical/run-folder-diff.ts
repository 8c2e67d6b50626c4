/**
 * Two run folders of the same command, compared file by file after masking only what
 * differs between any two runs of it: wall-clock times and durations, the folder's own
 * path and name, the memrl commit. Everything else must be equal byte for byte.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { readOutcomesArrow } from '../../src/metrics/outcome-arrow.js';

/**
 * Keys whose values are wall-clock times or durations: row and call latencies, BCB's
 * evaluation time, commit and finish times (memories, Mem0's ops, the checkpoint,
 * spend.json, run.json's start, resumes and observed facts), and the commit memrl was
 * built from.
 */
const MASKED_KEYS = new Set(['latencyMs', 'evalMs', 'finishedAt', 'createdAt', 'updatedAt', 'savedAt', 'startedAt', 'at', 'gitCommit']);

/** The clock as a task's own program printed it (a BigCodeBench test failing on `datetime.now()`). */
const CLOCK_IN_TEXT = [/datetime\.datetime\(\d{4}, \d{1,2}, \d{1,2}, \d{1,2}, \d{1,2}, \d{1,2}(, \d+)?/g, /\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?/g];

/** What makes one side's paths and run name its own, replaced by placeholders. */
export interface Side {
  /** The folder every path of this side's runs starts with. */
  root: string;
  /** The run folder's name (start time, random suffix). */
  runName: string;
  /** More keys to mask in this case (see Case.alsoMasked in check-identical.ts). */
  alsoMasked?: readonly string[];
  /** Keys left out altogether (check-identical's --ignore-keys: a deliberate change of the files' format). */
  ignored?: readonly string[];
}

function maskValue(value: unknown, also: readonly string[], ignored: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((v) => maskValue(v, also, ignored));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (ignored.includes(k)) continue;
    out[k] = MASKED_KEYS.has(k) || also.includes(k) ? '<masked>' : maskValue(v, also, ignored);
  }
  return out;
}

function maskText(text: string, side: Side): string {
  const own = text.split(side.root).join('<root>').split(side.runName).join('<run>');
  // unittest shortens a long repr as `<start>[N chars]<end>`: N varies with the clock it held.
  return CLOCK_IN_TEXT.reduce((t, re) => t.replace(re, '<clock>'), own).replace(/<clock>[^[\]"]{0,40}\[\d+ chars\]/g, '<clock>[… chars]');
}

const maskJson = (text: string, side: Side): string => maskText(JSON.stringify(maskValue(JSON.parse(text), side.alsoMasked ?? [], side.ignored ?? [])), side);
const maskJsonLines = (text: string, side: Side): string[] =>
  text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => maskJson(l, side));

/** One file's comparable form: a list of lines (JSON masked), or null when the file is absent. */
type Reader = (dir: string, side: Side) => string[] | null;

const ifExists =
  (name: string, read: (path: string, side: Side) => string[]): Reader =>
  (dir, side) =>
    existsSync(join(dir, name)) ? read(join(dir, name), side) : null;

const jsonFile = (name: string): Reader => ifExists(name, (p, side) => [maskJson(readFileSync(p, 'utf8'), side)]);
const jsonLinesFile = (name: string): Reader => ifExists(name, (p, side) => maskJsonLines(readFileSync(p, 'utf8'), side));
const gzJsonLinesFile = (name: string): Reader => ifExists(name, (p, side) => maskJsonLines(gunzipSync(readFileSync(p)).toString('utf8'), side));

/** The run's reply recording: written as replies arrive, so in an order concurrency decides. Compared as a multiset. */
const sortedJsonLinesFile = (name: string): Reader => ifExists(name, (p, side) => maskJsonLines(readFileSync(p, 'utf8'), side).sort());

const arrowFile = (name: string): Reader => ifExists(name, (p, side) => readOutcomesArrow(p).map((r) => maskJson(JSON.stringify(r), side)));

/** Every TensorBoard event with its wall_time (field 1 of Event) cut out, as hex. */
const tensorboard: Reader = (dir) => {
  const tb = join(dir, 'tb');
  if (!existsSync(tb)) return null;
  const files = readdirSync(tb).filter((f) => f.startsWith('events.out.tfevents'));
  return [`${files.length} event file(s)`, ...files.flatMap((f) => eventsOf(readFileSync(join(tb, f))))];
};

function eventsOf(buf: Buffer): string[] {
  const out: string[] = [];
  for (let off = 0; off < buf.length; ) {
    const len = Number(buf.readBigUInt64LE(off));
    out.push(withoutField(buf.subarray(off + 12, off + 12 + len), 1).toString('hex'));
    off += 12 + len + 4;
  }
  return out;
}

/** A protobuf message without its top-level field `drop`. */
function withoutField(msg: Buffer, drop: number): Buffer {
  const kept: Buffer[] = [];
  let p = 0;
  const varint = (): number => {
    let n = 0;
    for (let shift = 0; ; shift += 7) {
      const b = msg[p++] as number;
      n += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return n;
    }
  };
  while (p < msg.length) {
    const start = p;
    const key = varint();
    const wire = key % 8;
    if (wire === 0) varint();
    else if (wire === 1) p += 8;
    else if (wire === 5) p += 4;
    else if (wire === 2) {
      const n = varint(); // read first: `p += varint()` would add to p as it was before the length
      p += n;
    }
    else throw new Error(`tfevents: unexpected wire type ${wire}`);
    if (Math.floor(key / 8) !== drop) kept.push(msg.subarray(start, p));
  }
  return Buffer.concat(kept);
}

/** The run folder's file names (the event file's name holds a time and the host). */
const fileList: Reader = (dir) => readdirSync(dir).filter((f) => f !== 'tb').sort();

/** What is compared, by name. log.jsonl is not: pino's lines carry times and the pid. */
export const COMPARED: Record<string, Reader> = {
  files: fileList,
  'run.json': jsonFile('run.json'),
  'outcomes.jsonl': jsonLinesFile('outcomes.jsonl'),
  'outcomes.arrow': arrowFile('outcomes.arrow'),
  'traces.jsonl': jsonLinesFile('traces.jsonl'),
  'transcripts.jsonl.gz': gzJsonLinesFile('transcripts.jsonl.gz'),
  'transcript-parts.jsonl.gz': gzJsonLinesFile('transcript-parts.jsonl.gz'),
  'memories.jsonl': jsonLinesFile('memories.jsonl'),
  'checkpoint.json': jsonFile('checkpoint.json'),
  'checkpoint.prev.json': jsonFile('checkpoint.prev.json'),
  'metrics.json': jsonFile('metrics.json'),
  'q-history.jsonl': jsonLinesFile('q-history.jsonl'),
  'summary.json': jsonFile('summary.json'),
  'spend.json': jsonFile('spend.json'),
  'responses.jsonl': sortedJsonLinesFile('responses.jsonl'),
  'journal.jsonl': jsonLinesFile('journal.jsonl'),
  tb: tensorboard,
};

/** Where two lists of lines first differ, in a line a person can read; undefined when equal. */
export function firstDifference(a: readonly string[] | null, b: readonly string[] | null): string | undefined {
  if (a === null || b === null) return a === b ? undefined : `present only in the ${a === null ? 'candidate' : 'baseline'}`;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const [x, y] = [a[i], b[i]];
    if (x === y) continue;
    if (x === undefined || y === undefined) return `line ${i + 1}: ${x === undefined ? 'only in the candidate' : 'only in the baseline'} (${a.length} vs ${b.length} lines)`;
    let c = 0;
    while (x[c] === y[c]) c++;
    const around = (s: string) => s.slice(Math.max(0, c - 60), c + 80);
    return `line ${i + 1}, char ${c + 1}:\n      baseline:  …${around(x)}\n      candidate: …${around(y)}`;
  }
  return undefined;
}

/** Every difference between the baseline's run folder and the candidate's, by file (but those in `skip`). */
export function compareRunFolders(base: { dir: string; side: Side }, cand: { dir: string; side: Side }, skip: readonly string[] = []): string[] {
  const diffs: string[] = [];
  for (const [name, read] of Object.entries(COMPARED)) {
    if (skip.includes(name)) continue;
    const d = firstDifference(read(base.dir, base.side), read(cand.dir, cand.side));
    if (d) diffs.push(`${name}: ${d}`);
  }
  return diffs;
}

/** A run's terminal output with paths, the run name and durations masked. */
export function maskStderr(text: string, side: Side): string[] {
  return maskText(text, side)
    .split('\n')
    .map((l) => l.replace(/\b\d+(\.\d+)?\s?(ms|s|min)\b/g, '<duration>'));
}
