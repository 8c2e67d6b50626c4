/**
 * `memrl table`: flags checked and turned into a table, rendered as text. Kept out
 * of the Commander file so tests can call it directly.
 */
import { UserError } from '../util/errors.js';
import { DEFAULT_BOOTSTRAP_SEED, DEFAULT_RESAMPLES } from './bootstrap.js';
import { formatCsv } from './format-csv.js';
import { formatLatex } from './format-latex.js';
import { formatMarkdown } from './format-markdown.js';
import { loadRuns } from './load-runs.js';
import { loadPaperResults } from './paper-results.js';
import { buildResultTable, type Phase } from './result-table.js';
import type { RowDimension } from './table-layout.js';
import { TABLE_METRICS, tableMetric, type TableMetric } from './table-metrics.js';

export interface TableFlags {
  format?: string;
  metric?: string;
  by?: string;
  phase?: string;
  paper?: boolean;
  /** Another paper-results file (tests, or a newer transcription). */
  paperFile?: string;
  seed?: string | number;
  resamples?: string | number;
}

export const TABLE_FORMATS = ['md', 'latex', 'csv'] as const;
export { DEFAULT_BOOTSTRAP_SEED, DEFAULT_RESAMPLES } from './bootstrap.js';

export function renderTable(paths: readonly string[], flags: TableFlags): { text: string; warnings: string[] } {
  const format = flags.format ?? 'md';
  if (!(TABLE_FORMATS as readonly string[]).includes(format)) {
    throw new UserError(`--format ${format}: unknown table format; use one of ${TABLE_FORMATS.join(', ')}`);
  }
  const metrics = parseMetrics(flags.metric ?? 'last,csr');
  const rowsBy = parseBy(flags.by ?? 'method,benchmark');
  const phase = flags.phase ?? 'train';
  if (phase !== 'train' && phase !== 'valid') throw new UserError(`--phase ${phase}: use train or valid`);
  const seed = integerFlag('--seed', flags.seed ?? DEFAULT_BOOTSTRAP_SEED, 0);
  const resamples = integerFlag('--resamples', flags.resamples ?? DEFAULT_RESAMPLES, 1);

  const runs = loadRuns(paths);
  if (phase === 'valid' && !runs.some((r) => r.metrics.valid)) {
    throw new UserError(`--phase valid: none of the ${runs.length} run(s) has validation rows; run with --run-validation, or use --phase train`);
  }
  const paper = flags.paper || flags.paperFile ? loadPaperResults(flags.paperFile) : undefined;
  const table = buildResultTable(runs, { metrics, phase: phase as Phase, seed, resamples, paper });
  const text = format === 'md' ? formatMarkdown(table, rowsBy) : format === 'latex' ? formatLatex(table, rowsBy) : formatCsv(table);
  return { text, warnings: table.warnings };
}

function parseMetrics(value: string): TableMetric[] {
  const keys = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (keys.length === 0) throw new UserError(`--metric: empty; use a comma-separated list of ${TABLE_METRICS.map((m) => m.key).join(', ')}`);
  const out: TableMetric[] = [];
  for (const key of keys) {
    const m = tableMetric(key);
    if (!m) throw new UserError(`--metric ${key}: unknown metric; use a comma-separated list of ${TABLE_METRICS.map((x) => x.key).join(', ')}`);
    if (!out.includes(m)) out.push(m);
  }
  return out;
}

function parseBy(value: string): RowDimension {
  const dims = value.split(',').map((s) => s.trim());
  if (dims.length === 2 && dims[0] === 'method' && dims[1] === 'benchmark') return 'method';
  if (dims.length === 2 && dims[0] === 'benchmark' && dims[1] === 'method') return 'benchmark';
  throw new UserError(`--by ${value}: use method,benchmark (rows = methods) or benchmark,method (rows = benchmarks)`);
}

function integerFlag(flag: string, value: string | number, min: number): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n) || n < min || (typeof value === 'string' && value.trim() === '')) {
    throw new UserError(`${flag} ${value}: expected an integer ≥ ${min}`);
  }
  return n;
}
