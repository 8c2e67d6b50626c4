/**
 * What the Markdown and LaTeX writers share: which dimension runs down the rows,
 * how numbers are rounded, and the lines printed under the table.
 */
import { benchmarkName } from './names.js';
import { MARK_NOTES, cellKey, type Mark, type ResultTable, type TableCell } from './result-table.js';
import type { TableMetric } from './table-metrics.js';

export type RowDimension = 'method' | 'benchmark';

export interface Heading {
  label: string;
  /** A paper row or column (set apart, never bold). */
  reference: boolean;
}

export interface Layout {
  corner: string;
  rows: Heading[];
  /** Column groups; each has one column per metric. */
  groups: Heading[];
  metrics: readonly TableMetric[];
  cell(row: number, group: number, metric: number): TableCell | undefined;
}

export function layoutTable(table: ResultTable, rowsBy: RowDimension): Layout {
  const series = table.series.map((s) => ({ label: s.label, reference: s.reference }));
  const benches = table.benchmarks.map((b) => ({ label: benchmarkName(b), reference: false }));
  const metricKey = (m: number): string => table.metrics[m]!.key;
  if (rowsBy === 'method') {
    return {
      corner: 'Method',
      rows: series,
      groups: benches,
      metrics: table.metrics,
      cell: (r, g, m) => table.cells.get(cellKey(table.series[r]!.key, table.benchmarks[g]!, metricKey(m))),
    };
  }
  return {
    corner: 'Benchmark',
    rows: benches,
    groups: series,
    metrics: table.metrics,
    cell: (r, g, m) => table.cells.get(cellKey(table.series[g]!.key, table.benchmarks[r]!, metricKey(m))),
  };
}

/** Column titles: the group alone with one metric, else "group metric". */
export function flatColumnTitles(layout: Layout): string[] {
  return layout.groups.flatMap((g) => (layout.metrics.length === 1 ? [g.label] : layout.metrics.map((m) => `${g.label} ${m.label}`)));
}

export function fmt(x: number): string {
  const s = x.toFixed(3);
  return s === '-0.000' ? '0.000' : s;
}

export interface CellText {
  mean: string;
  /** "± 0.031 (n=3)" parts, when there is an interval. */
  halfWidth: string | null;
  n: number;
}

export function cellText(cell: TableCell): CellText | null {
  if (cell.mean === null) return null;
  const halfWidth = cell.low !== null && cell.high !== null ? fmt((cell.high - cell.low) / 2) : null;
  return { mean: fmt(cell.mean), halfWidth, n: cell.n };
}

/**
 * The cells of row `r`, group by group and metric by metric: `render` formats a cell
 * (its text null when its runs have no value yet), `empty` stands for a missing one.
 * One loop for every output format.
 */
export function rowCells(layout: Layout, r: number, render: (cell: TableCell, text: CellText | null) => string, empty: string): string[] {
  return layout.groups.flatMap((_g, g) =>
    layout.metrics.map((_m, m) => {
      const cell = layout.cell(r, g, m);
      // A cell of runs without a value yet (running, killed before a row) still carries their marks.
      return cell ? render(cell, cellText(cell)) : empty;
    }),
  );
}

export const MARK_SYMBOLS: Record<Mark, { text: string; latex: string }> = {
  simulated: { text: '†', latex: '\\dagger' },
  standin: { text: '‡', latex: '\\ddagger' },
  unfinished: { text: '§', latex: '\\S' },
  failed: { text: '¶', latex: '\\P' },
  retries: { text: '◇', latex: '\\diamond' },
};

/** Lines under the table, as plain text, with the format's mark symbol in front of mark notes. */
export function tableNotes(table: ResultTable, symbol: (m: Mark) => string): { text: string; mark?: Mark }[] {
  const notes: { text: string; mark?: Mark }[] = [];
  const phase = table.phase === 'train' ? 'Training' : 'Validation';
  const defs = table.metrics.map((m) => `${m.label}: ${m.describe}`).join('; ');
  notes.push({ text: `${phase} phase. ${defs}. Bold: best method per benchmark and metric.` });
  if (table.bootstrap.used) {
    notes.push({
      text: `With n ≥ 2 runs (seeds): mean ± half-width of the 95% percentile bootstrap interval of the mean over runs (${table.bootstrap.resamples} resamples, seed ${table.bootstrap.seed}).`,
    });
  }
  for (const { mark, note } of MARK_NOTES) if (table.marks.includes(mark)) notes.push({ text: `${symbol(mark)} ${note}`, mark });
  for (const line of table.paperNotes) notes.push({ text: line });
  if (table.releases.length) notes.push({ text: `Data: ${table.releases.join('; ')}.` });
  return notes;
}
