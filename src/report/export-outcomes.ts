/**
 * `memrl export`: a run's outcome matrix as CSV, Arrow IPC or Parquet for pandas /
 * polars / DuckDB. All three take their columns from the Arrow schema of
 * outcomes.arrow (src/metrics/outcome-arrow.ts), so every format has every
 * OutcomeRow field under the same name.
 */
import { Bool, Float64, Int32, List, Utf8, tableToIPC, type DataType, type Table } from 'apache-arrow';
import type { SchemaElement } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { outcomesToArrowTable, type RunColumns } from '../metrics/outcome-arrow.js';
import type { OutcomeRow } from '../metrics/outcome-row.js';
import { memrlVersion } from '../util/version.js';
import { csvLine, type CsvValue } from './csv.js';

export const EXPORT_FORMATS = ['parquet', 'arrow', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The rows in `format`; `run` adds where they came from (run id, method, model, seed, simulated). */
export function exportOutcomes(rows: readonly OutcomeRow[], format: ExportFormat, run?: RunColumns): Uint8Array {
  const table = outcomesToArrowTable(rows, run);
  if (format === 'arrow') return tableToIPC(table, 'file');
  if (format === 'csv') return Buffer.from(outcomesCsv(table), 'utf8');
  return outcomesParquet(table);
}

/** Plain values of one column, list cells as JS arrays, nulls as null. */
function columnValues(table: Table, name: string): unknown[] {
  const col = table.getChild(name)!;
  const out: unknown[] = new Array(table.numRows);
  for (let i = 0; i < table.numRows; i++) {
    const v: unknown = col.get(i);
    out[i] = v === undefined || v === null ? null : col.type instanceof List ? [...(v as Iterable<unknown>)] : v;
  }
  return out;
}

/** One line per row; list columns as JSON arrays, `extra` as its JSON text, missing values empty. */
export function outcomesCsv(table: Table): string {
  const names = table.schema.fields.map((f) => f.name);
  const columns = names.map((n) => columnValues(table, n));
  let out = csvLine(names);
  for (let i = 0; i < table.numRows; i++) {
    out += csvLine(columns.map((c) => {
      const v = c[i];
      return Array.isArray(v) ? JSON.stringify(v) : (v as CsvValue);
    }));
  }
  return out;
}

function parquetLeaf(name: string, type: DataType, repetition: 'REQUIRED' | 'OPTIONAL'): SchemaElement {
  if (type instanceof Utf8) return { name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: repetition };
  if (type instanceof Int32) return { name, type: 'INT32', repetition_type: repetition };
  if (type instanceof Float64) return { name, type: 'DOUBLE', repetition_type: repetition };
  if (type instanceof Bool) return { name, type: 'BOOLEAN', repetition_type: repetition };
  throw new Error(`parquet export: no mapping for Arrow type ${String(type)} of column ${name}`);
}

/** Snappy-compressed Parquet; lists use the standard 3-level LIST layout readers expect. */
export function outcomesParquet(table: Table): Uint8Array {
  const schema: SchemaElement[] = [{ name: 'root', num_children: table.schema.fields.length }];
  for (const f of table.schema.fields) {
    const rep = f.nullable ? 'OPTIONAL' : 'REQUIRED';
    if (f.type instanceof List) {
      schema.push(
        { name: f.name, repetition_type: rep, converted_type: 'LIST', num_children: 1 },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        parquetLeaf('element', (f.type as List).valueType, 'REQUIRED'),
      );
    } else {
      schema.push(parquetLeaf(f.name, f.type, rep));
    }
  }
  const columnData = table.schema.fields.map((f) => ({ name: f.name, data: columnValues(table, f.name) }));
  const buf = parquetWriteBuffer({ columnData, schema, createdBy: `memrl ${memrlVersion()}` });
  return new Uint8Array(buf);
}
