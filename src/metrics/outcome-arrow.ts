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
  makeBuilder,
  makeData,
  tableFromIPC,
  tableToIPC,
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
    const builder = makeBuilder({ type: c.type, nullValues: [null, undefined] });
    for (const row of rows) {
      const v = (c.get as (r: OutcomeRow) => unknown)(row);
      if (c.type instanceof Int32 && typeof v === 'number' && v > INT32_MAX) {
        throw new Error(`outcomes.arrow: ${c.name}=${v} of task ${row.taskId} does not fit Int32`);
      }
      builder.append(v);
    }
    return builder.finish().flush();
  });
  const data = makeData({ type: new Struct(fields), length: rows.length, nullCount: 0, children });
  return new Table(schema, new RecordBatch(schema, data));
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
    const raw: Record<string, unknown> = {};
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
