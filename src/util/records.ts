/**
 * A dataset file as plain records, for benchmarks (plug-ins above all): JSON Lines,
 * a JSON array, or Parquet (the Hugging Face hub's format), with the file's sha256 for
 * the run manifest (LoadedTasks.sources). Bad input is a UserError naming the file and
 * the line or row; Parquet int64 values come back as numbers when they fit.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname } from 'node:path';
import { errorMessage, UserError } from './errors.js';

/** One record of a dataset file: open-ended, each dataset its own fields (a benchmark checks the ones it reads). */
export type DataRecord = Record<string, unknown>;

export interface RecordsFile {
  records: DataRecord[];
  /** For LoadedTasks.sources: the path as given and the file's sha256. */
  source: { path: string; sha256: string };
}

export const RECORD_FORMATS = ['.jsonl', '.json', '.parquet'] as const;

/** `hint` ends every message about a missing or unreadable file (e.g. where to download it). */
export async function readRecords(path: string, hint = ''): Promise<RecordsFile> {
  const tail = hint ? `; ${hint}` : '';
  if (!existsSync(path) || !statSync(path).isFile()) throw new UserError(`${path}: no such file${tail}`, 'data_missing');
  const bytes = readFileSync(path);
  const source = { path, sha256: createHash('sha256').update(bytes).digest('hex') };
  const ext = extname(path).toLowerCase();
  if (ext === '.jsonl') return { records: jsonLines(path, bytes.toString('utf8')), source };
  if (ext === '.json') return { records: jsonArray(path, bytes.toString('utf8')), source };
  if (ext === '.parquet') return { records: await parquet(path, bytes, tail), source };
  throw new UserError(`${path}: a ${ext || 'file without extension'} is not a dataset format memrl reads (${RECORD_FORMATS.join(', ')})${tail}`, 'data_invalid');
}

function isRecord(v: unknown): v is DataRecord {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function jsonLines(path: string, text: string): DataRecord[] {
  const out: DataRecord[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new UserError(`${path}:${i + 1}: not JSON (${errorMessage(err)}); each line holds one record`, 'data_invalid');
    }
    if (!isRecord(value)) throw new UserError(`${path}:${i + 1}: a ${Array.isArray(value) ? 'list' : typeof value}, not a record (an object)`, 'data_invalid');
    out.push(value);
  });
  return out;
}

function jsonArray(path: string, text: string): DataRecord[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UserError(`${path}: not JSON (${errorMessage(err)})`, 'data_invalid');
  }
  if (!Array.isArray(value)) throw new UserError(`${path}: holds a ${typeof value}, not a list of records`, 'data_invalid');
  value.forEach((v, i) => {
    if (!isRecord(v)) throw new UserError(`${path}: item ${i + 1} is not a record (an object)`, 'data_invalid');
  });
  return value as DataRecord[];
}

/** int64 columns arrive as bigint: numbers where exact, nested values included. */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (Array.isArray(value)) return value.map(plain);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

async function parquet(path: string, bytes: Buffer, tail: string): Promise<DataRecord[]> {
  const [{ parquetReadObjects }, { compressors }] = await Promise.all([import('hyparquet'), import('hyparquet-compressors')]);
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  try {
    const rows = (await parquetReadObjects({ file, compressors })) as DataRecord[];
    return rows.map((row) => plain(row) as DataRecord);
  } catch (err) {
    throw new UserError(`${path}: cannot read it as Parquet (${errorMessage(err)}); the file may be truncated or use a codec memrl cannot decompress${tail}`, 'data_invalid');
  }
}
