/**
 * `memrl table --format csv`: long format for scripts, one line per
 * (method, benchmark, metric) with unrounded numbers, whatever --by says.
 */
import { csvLine } from './csv.js';
import { benchmarkName } from './names.js';
import { cellKey, type ResultTable } from './result-table.js';

export const TABLE_CSV_HEADER = [
  'source',
  'method',
  'method_label',
  'model',
  'benchmark',
  'benchmark_label',
  'metric',
  'phase',
  'mean',
  'ci_low',
  'ci_high',
  'n',
  'best',
  'simulated',
  'standin',
  'unfinished',
  'seeds',
  'runs',
] as const;

export function formatCsv(table: ResultTable): string {
  let out = csvLine(TABLE_CSV_HEADER);
  for (const s of table.series) {
    for (const bench of table.benchmarks) {
      for (const metric of table.metrics) {
        const c = table.cells.get(cellKey(s.key, bench, metric.key));
        if (!c) continue;
        out += csvLine([
          s.reference ? 'paper' : 'runs',
          s.method,
          s.label,
          s.model ?? c.models.join(';'),
          bench,
          benchmarkName(bench),
          metric.key,
          s.reference ? '' : table.phase,
          c.mean,
          c.low,
          c.high,
          s.reference ? null : c.n,
          c.best,
          c.marks.includes('simulated'),
          c.marks.includes('standin'),
          // A failed run did not finish either (the Markdown and LaTeX tables tell the two apart).
          c.marks.includes('unfinished') || c.marks.includes('failed'),
          c.seeds.map((x) => x ?? '').join(';'),
          c.runIds.join(';'),
        ]);
      }
    }
  }
  return out;
}
