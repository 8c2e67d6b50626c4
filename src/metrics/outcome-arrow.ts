/**
 * outcomes.arrow: the outcome rows as an Apache Arrow IPC file, for pandas/polars/
 * DuckDB users. Column names are the JSON field names; arrays are List columns and
 * `extra` (free-form) is a JSON string column.
 */
import { readFileSync } from 'node:fs';
import {
  Bool,
  Field,
  Float64,
  Int32,
  List,
  RecordBatch,
  Schema,
  Struct,
  Table,
  Utf8,
  makeData,
  tableFromIPC,
  tableToIPC,
  type Data,
  type DataType,
} from 'apache-arrow';
import { parseOutcomeRow, type OutcomeRow } from './outcome-row.js';
import { writeFileAtomic } from '../util/fs.js';

interface Column {
  name: keyof OutcomeRow;
  type: DataType;
  nullable: boolean;
  get: (row: OutcomeRow) => unknown;
}

const utf8List = () => new List(new Field('item', new Utf8(), false));
const f64List = () => new List(new Field('item', new Float64(), false));

const COLUMNS: Column[] = [
  { name: 'runId', type: new Utf8(), nullable: true, get: (r) => r.runId },
  { name: 'benchmark', type: new Utf8(), nullable: false, get: (r) => r.benchmark },
  { name: 'taskId', type: new Utf8(), nullable: false, get: (r) => r.taskId },
  { name: 'taskIndex', type: new Int32(), nullable: false, get: (r) => r.taskIndex },
  { name: 'epoch', type: new Int32(), nullable: false, get: (r) => r.epoch },
  { name: 'phase', type: new Utf8(), nullable: false, get: (r) => r.phase },
  { name: 'status', type: new Utf8(), nullable: false, get: (r) => r.status },
  { name: 'success', type: new Bool(), nullable: false, get: (r) => r.success },
  { name: 'reward', type: new Float64(), nullable: false, get: (r) => r.reward },
  { name: 'steps', type: new Int32(), nullable: false, get: (r) => r.steps },
  { name: 'error', type: new Utf8(), nullable: true, get: (r) => r.error },
  { name: 'retrievedIds', type: utf8List(), nullable: false, get: (r) => r.retrievedIds },
  { name: 'retrievedQ', type: f64List(), nullable: true, get: (r) => r.retrievedQ },
  { name: 'retrievedSim', type: f64List(), nullable: true, get: (r) => r.retrievedSim },
  { name: 'pool', type: new Int32(), nullable: true, get: (r) => r.pool },
  { name: 'explored', type: new Bool(), nullable: true, get: (r) => r.explored },
  // Per-episode token counts fit Int32 comfortably; Int64 would force BigInt on readers.
  { name: 'promptTokens', type: new Int32(), nullable: false, get: (r) => r.promptTokens },
  { name: 'completionTokens', type: new Int32(), nullable: false, get: (r) => r.completionTokens },
  { name: 'totalTokens', type: new Int32(), nullable: false, get: (r) => r.totalTokens },
  { name: 'latencyMs', type: new Float64(), nullable: true, get: (r) => r.latencyMs },
  { name: 'memoryId', type: new Utf8(), nullable: true, get: (r) => r.memoryId },
  { name: 'finishedAt', type: new Utf8(), nullable: true, get: (r) => r.finishedAt },
  { name: 'extra', type: new Utf8(), nullable: true, get: (r) => (r.extra === undefined ? undefined : JSON.stringify(r.extra)) },
];

const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -(2 ** 31);

/** Where rows came from, as columns of an export (so exports of many runs concatenate). */
export interface RunColumns {
  runId: string;
  method: string;
  model: string;
  seed: number | null;
  simulated: boolean;
}

interface ExtraColumn {
  name: string;
  type: DataType;
  nullable: boolean;
  get: () => unknown;
}

function runColumns(run: RunColumns): ExtraColumn[] {
  return [
    { name: 'method', type: new Utf8(), nullable: false, get: () => run.method },
    { name: 'model', type: new Utf8(), nullable: false, get: () => run.model },
    { name: 'seed', type: new Int32(), nullable: true, get: () => run.seed },
    { name: 'simulated', type: new Bool(), nullable: false, get: () => run.simulated },
  ];
}

/** The rows as an Arrow table; with `run`, rows without a runId get the run's, and the run's method, model, seed and simulated columns follow runId. */
export function outcomesToArrowTable(rows: readonly OutcomeRow[], run?: RunColumns): Table {
  const own: (Column | ExtraColumn)[] = run ? COLUMNS.map((c) => (c.name === 'runId' ? { ...c, get: (r: OutcomeRow) => r.runId ?? run.runId } : c)) : COLUMNS;
  const columns = run ? [own[0]!, ...runColumns(run), ...own.slice(1)] : own;
  const fields = columns.map((c) => new Field(c.name, c.type, c.nullable));
  const schema = new Schema(fields);
  const children = columns.map((c) => {
    const values = rows.map((row) => (c.get as (r: OutcomeRow) => unknown)(row));
    if (c.type instanceof Int32) {
      const i = values.findIndex((v) => typeof v === 'number' && (v > INT32_MAX || v < INT32_MIN));
      if (i >= 0) throw new Error(`outcomes.arrow: ${c.name}=${String(values[i])} of task ${rows[i]!.taskId} does not fit Int32`);
    }
    return columnData(c.type, values);
  });
  const data = makeData({ type: new Struct(fields), length: rows.length, nullCount: 0, children });
  return new Table(schema, new RecordBatch(schema, data));
}

/**
 * A column's Arrow data, laid out directly: values, validity bitmap, offsets. With
 * Arrow's generic builders, writing 1024 rows the first time in a process (at the end of
 * every run) took 56–78 ms; this way 23–28 ms, most of it the file's encoding and fsync.
 */
function columnData(type: DataType, values: readonly unknown[]): Data {
  const n = values.length;
  // Bit i set when row i has a value (Arrow's validity bitmap, least significant bit first).
  const bitmap = new Uint8Array((n + 7) >> 3);
  let nullCount = 0;
  for (let i = 0; i < n; i++) {
    if (values[i] === null || values[i] === undefined) nullCount++;
    else bitmap[i >> 3]! |= 1 << (i & 7);
  }
  const validity = nullCount > 0 ? { nullCount, nullBitmap: bitmap } : { nullCount: 0 };
  if (type instanceof Int32) return makeData({ type, length: n, ...validity, data: Int32Array.from(values, (v) => (v as number | null) ?? 0) });
  if (type instanceof Float64) return makeData({ type, length: n, ...validity, data: Float64Array.from(values, (v) => (v as number | null) ?? 0) });
  if (type instanceof Bool) {
    const bits = new Uint8Array((n + 7) >> 3);
    for (let i = 0; i < n; i++) if (values[i] === true) bits[i >> 3]! |= 1 << (i & 7);
    return makeData({ type, length: n, ...validity, data: bits });
  }
  const valueOffsets = new Int32Array(n + 1);
  if (type instanceof Utf8) {
    const texts = values.map((v) => (v === null || v === undefined ? '' : String(v)));
    let bytes = 0;
    for (let i = 0; i < n; i++) {
      valueOffsets[i] = bytes;
      bytes += Buffer.byteLength(texts[i]!, 'utf8');
    }
    valueOffsets[n] = bytes;
    const data = Buffer.allocUnsafe(bytes);
    for (let i = 0; i < n; i++) data.write(texts[i]!, valueOffsets[i]!, 'utf8');
    return makeData({ type, length: n, ...validity, valueOffsets, data });
  }
  if (type instanceof List) {
    const items: unknown[] = [];
    for (let i = 0; i < n; i++) {
      valueOffsets[i] = items.length;
      for (const x of (values[i] as readonly unknown[] | null | undefined) ?? []) items.push(x);
    }
    valueOffsets[n] = items.length;
    return makeData({ type, length: n, ...validity, valueOffsets, child: columnData(type.valueType, items) });
  }
  throw new Error(`outcomes.arrow: no encoder for column type ${String(type)}`);
}

/** Write rows as an Arrow IPC file (atomically: temp name, fsync, rename). */
export function writeOutcomesArrow(path: string, rows: readonly OutcomeRow[]): void {
  writeFileAtomic(path, tableToIPC(outcomesToArrowTable(rows), 'file'));
}

/** Read outcomes.arrow back into validated rows (the inverse of writeOutcomesArrow). */
export function readOutcomesArrow(path: string): OutcomeRow[] {
  const table = tableFromIPC(readFileSync(path));
  const rows: OutcomeRow[] = [];
  for (let i = 0; i < table.numRows; i++) {
    const raw: Partial<Record<keyof OutcomeRow, unknown>> = {};
    for (const c of COLUMNS) {
      const col = table.getChild(c.name);
      if (col === null) {
        if (!c.nullable) throw new Error(`${path}: column '${c.name}' is missing`);
        continue;
      }
      const v: unknown = col.get(i);
      if (v === null || v === undefined) continue;
      if (c.name === 'extra') raw[c.name] = JSON.parse(v as string);
      else if (c.type instanceof List) raw[c.name] = [...(v as Iterable<unknown>)];
      else raw[c.name] = v;
    }
    rows.push(parseOutcomeRow(raw, `${path} row ${i}`));
  }
  return rows;
}
