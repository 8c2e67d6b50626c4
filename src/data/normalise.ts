/**
 * Release files the hub serves in another form than memrl reads: Parquet rows become
 * JSON lines, one object per row with the manifest's columns in its order, written as
 * Python's `json.dumps` writes them by default (ASCII only, `", "` and `": "`). That is
 * how the release's own JSONL was made (BigCodeBench's writer is `json.dumps(x) + "\n"`),
 * so the records come out byte for byte as the release's and the pinned checksum holds.
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { parquetMetadata, parquetReadObjects, parquetSchema } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { UserError, errorMessage } from '../util/errors.js';
import type { DataRecord } from '../util/records.js';
import type { ParquetRows } from './manifest.js';

/** A string as json.dumps(ensure_ascii=True) quotes it: everything outside printable ASCII escaped, lowercase hex. */
function pythonString(s: string): string {
  return JSON.stringify(s).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A JSON value as Python's json.dumps writes it with its default settings (strings, integers, booleans, null, lists, objects). */
export function pythonJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return pythonString(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : value > 0 ? 'Infinity' : value < 0 ? '-Infinity' : 'NaN';
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (value instanceof Uint8Array) return pythonString(Buffer.from(value).toString('utf8'));
  return `{${Object.entries(value as object)
    .map(([k, v]) => `${pythonString(k)}: ${pythonJson(v)}`)
    .join(', ')}}`;
}

/** The Parquet file's rows as the release's JSON lines (gzipped when `gzip`). `what` names the file in errors. */
export async function parquetToJsonLines(parquetPath: string, rows: ParquetRows, gzip: boolean, what: string): Promise<Buffer> {
  const bytes = readFileSync(parquetPath);
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const unreadable = (err: unknown): UserError => new UserError(`${what}: the downloaded file is not readable Parquet (${errorMessage(err)})`, 'data_unreadable');
  let present: string[];
  try {
    present = parquetSchema(parquetMetadata(file)).children.map((c) => c.element.name);
  } catch (err) {
    throw unreadable(err);
  }
  const missing = rows.columns.filter((c) => !present.includes(c));
  if (missing.length) throw new UserError(`${what}: the downloaded Parquet lacks the column(s) ${missing.join(', ')}`, 'data_unreadable');
  let records: DataRecord[];
  try {
    records = (await parquetReadObjects({ file, compressors, columns: [...rows.columns] })) as DataRecord[];
  } catch (err) {
    throw unreadable(err);
  }
  const text = records.map((r) => `{${rows.columns.map((c) => `${pythonString(c)}: ${pythonJson(r[c])}`).join(', ')}}\n`).join('');
  const out = Buffer.from(text, 'utf8');
  return gzip ? gzipSync(out) : out;
}
