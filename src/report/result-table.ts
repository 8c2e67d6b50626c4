/**
 * The results table as data: runs grouped into (method, benchmark) cells, one
 * value per run and metric, aggregated across seeds with a seeded bootstrap, best
 * cells flagged, and the marks that keep pipeline checks from passing as results.
 * The Markdown, LaTeX and CSV writers only lay this out.
 */
import type { RunFolder } from '../results/run-folder.js';
import { Rng } from '../util/rng.js';
import { bootstrapMean } from './bootstrap.js';
import { differenceLabels } from '../results/experiment.js';
import { benchmarkName, compareBenchmarks, compareMethods, methodName, retriesUnsolved, settingWords, standInNote } from './names.js';
import type { PaperResults } from './paper-results.js';
import type { TableMetric } from './table-metrics.js';

export type Mark = 'simulated' | 'standin' | 'unfinished' | 'failed' | 'retries';

/** In the order their footnotes are printed. */
export const MARK_NOTES: readonly { mark: Mark; note: string }[] = [
  { mark: 'simulated', note: 'simulated model (sim): pipeline check, not a result.' },
  { mark: 'standin', note: standInNote() },
  { mark: 'unfinished', note: 'includes a run that did not finish (interrupted or still running): fewer epochs than planned.' },
  { mark: 'failed', note: 'includes a failed run (ended by an error, such as too many error episodes, or its rows damaged): its numbers describe the fault, not the method; fix the cause and resume it.' },
  {
    mark: 'retries',
    note: "Pass@k and Reflection retry only the tasks not solved yet, so their Last is the tasks solved in the final epoch ÷ all tasks, not the final accuracy of the other rows, and never bold; the paper reports only their cumulative number (CSR).",
  },
];

export type Phase = 'train' | 'valid';

export interface TableOptions {
  metrics: readonly TableMetric[];
  phase: Phase;
  /** Bootstrap: resamples per cell and the base seed (each cell derives its own stream). */
  resamples: number;
  seed: number;
  paper?: PaperResults;
}

/** One row of a paper-style table: a method (and model, when runs used several). */
export interface Series {
  key: string;
  method: string;
  model: string | null;
  label: string;
  /** Published numbers, not runs: never bold, never marked. */
  reference: boolean;
}

export interface TableCell {
  series: string;
  benchmark: string;
  metric: string;
  /** Null when no run in the cell has a value for this metric. */
  mean: number | null;
  low: number | null;
  high: number | null;
  /** Runs with a value for this metric. */
  n: number;
  marks: Mark[];
  best: boolean;
  runIds: string[];
  seeds: (number | null)[];
  /** Distinct models of the runs in the cell. */
  models: string[];
}

export interface ResultTable {
  phase: Phase;
  metrics: readonly TableMetric[];
  series: Series[];
  benchmarks: string[];
  cells: Map<string, TableCell>;
  /** Marks used by some cell, in footnote order. */
  marks: Mark[];
  bootstrap: { resamples: number; seed: number; used: boolean };
  /** Footnote lines about the paper rows (source, task sets, numbers with no column). */
  paperNotes: string[];
  /** The data each column's runs read, e.g. 'BigCodeBench: v0.1.0_hf, MemRL@7c3beba' (runs that recorded it). */
  releases: string[];
  /** Things worth a look (mixed splits, repeated seeds); printed to stderr. */
  warnings: string[];
}

export function cellKey(series: string, benchmark: string, metric: string): string {
  return `${series}\u0000${benchmark}\u0000${metric}`;
}

export function runMarks(run: RunFolder): Mark[] {
  const marks: Mark[] = [];
  if (run.simulated) marks.push('simulated');
  if (/stand-?in/i.test(run.env)) marks.push('standin');
  if (run.status === 'failed') marks.push('failed');
  else if (run.status !== 'complete') marks.push('unfinished');
  return marks;
}

export function buildResultTable(runs: readonly RunFolder[], opts: TableOptions): ResultTable {
  const models = new Set(runs.map((r) => r.model));
  // Several models in one table: split rows by model so a sim row never stands in for a real one.
  const splitByModel = models.size > 1;
  const baseKeyOf = (r: RunFolder): string => (splitByModel ? `${r.method}\u0000${r.model}` : r.method);
  // Only seeds of one experiment are pooled: other differences (limit, epochs, data, a failed
  // run, any setting) make a row of their own, labelled by what differs.
  const variants = experimentVariants(runs, baseKeyOf);

  const groups = new Map<string, RunFolder[]>();
  const seriesMap = new Map<string, Series>();
  const benchSet = new Set<string>();
  for (const run of runs) {
    const variant = variants.get(run);
    const key = variant ? `${baseKeyOf(run)}\u0000${variant}` : baseKeyOf(run);
    if (!seriesMap.has(key)) {
      const label = splitByModel ? `${methodName(run.method)} (${run.model})` : methodName(run.method);
      seriesMap.set(key, {
        key,
        method: run.method,
        model: splitByModel ? run.model : null,
        label: variant ? `${label} [${variant}]` : label,
        reference: false,
      });
    }
    benchSet.add(run.column);
    const g = `${key}\u0000${run.column}`;
    groups.set(g, [...(groups.get(g) ?? []), run]);
  }
  const series = [...seriesMap.values()].sort(
    (a, b) => compareMethods(a.method, b.method) || (a.model ?? '').localeCompare(b.model ?? '') || a.label.localeCompare(b.label),
  );
  const benchmarks = [...benchSet].sort(compareBenchmarks);

  const cells = new Map<string, TableCell>();
  const warnings: string[] = [];
  let bootstrapUsed = false;
  for (const s of series) {
    for (const bench of benchmarks) {
      const group = groups.get(`${s.key}\u0000${bench}`);
      if (!group) continue;
      warnings.push(...groupWarnings(`${s.label} × ${benchmarkName(bench)}`, group, opts.phase));
      const runMarks = unionMarks(group);
      for (const metric of opts.metrics) {
        const marks = metric.key === 'last' && retriesUnsolved(s.method) ? [...runMarks, 'retries' as const] : runMarks;
        const withValue = group
          .map((run) => ({ run, value: metricValue(run, opts.phase, metric) }))
          .filter((x): x is { run: RunFolder; value: number } => x.value !== null);
        const models = [...new Set(group.map((r) => r.model))];
        const base = { series: s.key, benchmark: bench, metric: metric.key, marks, best: false, models };
        if (withValue.length === 0) {
          cells.set(cellKey(s.key, bench, metric.key), { ...base, mean: null, low: null, high: null, n: 0, runIds: group.map((r) => r.id), seeds: group.map((r) => r.seed) });
          continue;
        }
        // Each cell gets its own stream, so adding runs elsewhere never moves this interval.
        const rng = Rng.derive(opts.seed, 'bootstrap', opts.phase, s.key, bench, metric.key);
        const ci = bootstrapMean(withValue.map((x) => x.value), { resamples: opts.resamples, rng });
        if (ci.n > 1) bootstrapUsed = true;
        cells.set(cellKey(s.key, bench, metric.key), {
          ...base,
          mean: ci.mean,
          low: ci.low,
          high: ci.high,
          n: ci.n,
          runIds: withValue.map((x) => x.run.id),
          seeds: withValue.map((x) => x.run.seed),
        });
      }
    }
  }
  markBest(cells, series, benchmarks, opts.metrics);

  const paperNotes: string[] = [];
  if (opts.paper) {
    const ref = addPaperSeries(opts.paper, benchmarks, opts.metrics, cells);
    series.push(...ref.series);
    paperNotes.push(...ref.notes);
  }

  const used = new Set<Mark>();
  for (const c of cells.values()) for (const m of c.marks) used.add(m);
  return {
    phase: opts.phase,
    metrics: opts.metrics,
    series,
    benchmarks,
    cells,
    marks: MARK_NOTES.map((m) => m.mark).filter((m) => used.has(m)),
    bootstrap: { resamples: opts.resamples, seed: opts.seed, used: bootstrapUsed },
    paperNotes,
    releases: benchmarks.flatMap((b) => {
      const releases = [...new Set(runs.filter((r) => r.column === b && r.release).map((r) => r.release!))];
      return releases.length ? [`${benchmarkName(b)}: ${releases.join(' / ')}`] : [];
    }),
    warnings,
  };
}

/** For runs of one row and column that are not one experiment: a label per run saying how it differs. */
function experimentVariants(runs: readonly RunFolder[], baseKeyOf: (r: RunFolder) => string): Map<RunFolder, string> {
  const byCell = new Map<string, RunFolder[]>();
  for (const r of runs) {
    const k = `${baseKeyOf(r)}\u0000${r.column}`;
    byCell.set(k, [...(byCell.get(k) ?? []), r]);
  }
  const out = new Map<RunFolder, string>();
  for (const group of byCell.values()) {
    // A failed run counts as its own experiment: its numbers describe a fault.
    const keyed = group.map((r) => ({ run: r, key: r.status === 'failed' ? `${r.experiment.key}:failed` : r.experiment.key, settings: r.experiment.settings }));
    const labels = differenceLabels(keyed, settingWords());
    const failedOnly = new Set(keyed.filter((k) => k.run.status === 'failed').map((k) => k.key));
    for (const k of keyed) {
      const label = [labels.get(k.key), failedOnly.has(k.key) && new Set(keyed.map((x) => x.key)).size > 1 ? 'failed' : undefined].filter(Boolean).join(', ');
      if (label) out.set(k.run, label);
    }
  }
  return out;
}

function metricValue(run: RunFolder, phase: Phase, metric: TableMetric): number | null {
  const report = phase === 'train' ? run.metrics.train : run.metrics.valid;
  return report ? metric.pick(report) : null;
}

function unionMarks(group: readonly RunFolder[]): Mark[] {
  const set = new Set(group.flatMap(runMarks));
  return MARK_NOTES.map((m) => m.mark).filter((m) => set.has(m));
}

function groupWarnings(where: string, group: readonly RunFolder[], phase: Phase): string[] {
  const out: string[] = [];
  const distinct = (values: (string | number | null)[]): string[] => [...new Set(values.map((v) => String(v ?? '?')))];
  const splits = distinct(group.map((r) => r.split));
  if (splits.length > 1) out.push(`${where}: runs use different task sets (${splits.join(', ')}); their mean mixes them`);
  const epochs = distinct(group.map((r) => r.metrics.train.epochs.at(-1)?.epoch ?? null));
  if (epochs.length > 1) out.push(`${where}: runs end at different epochs (${epochs.join(', ')}); "last" compares unlike epochs`);
  const seen = new Map<string, number>();
  for (const r of group) if (r.seed !== null) seen.set(String(r.seed), (seen.get(String(r.seed)) ?? 0) + 1);
  for (const [seed, count] of seen) if (count > 1) out.push(`${where}: ${count} runs with seed ${seed}, counted as separate runs`);
  if (phase === 'valid') {
    const missing = group.filter((r) => !r.metrics.valid).map((r) => r.id);
    if (missing.length) out.push(`${where}: no validation rows in ${missing.join(', ')} (run with --run-validation); left out`);
  }
  return out;
}

function markBest(cells: Map<string, TableCell>, series: readonly Series[], benchmarks: readonly string[], metrics: readonly TableMetric[]): void {
  for (const bench of benchmarks) {
    for (const metric of metrics) {
      // A Last defined otherwise (pass@k, reflection) is not compared with the others.
      const candidates = series
        .map((s) => cells.get(cellKey(s.key, bench, metric.key)))
        .filter((c): c is TableCell & { mean: number } => c !== undefined && c.mean !== null && !c.marks.includes('retries'));
      // One filled cell is not a comparison.
      if (candidates.length < 2) continue;
      const means = candidates.map((c) => c.mean);
      const best = metric.better === 'higher' ? Math.max(...means) : Math.min(...means);
      for (const c of candidates) if (Math.abs(c.mean - best) <= 1e-12) c.best = true;
    }
  }
}

function addPaperSeries(
  paper: PaperResults,
  benchmarks: readonly string[],
  metrics: readonly TableMetric[],
  cells: Map<string, TableCell>,
): { series: Series[]; notes: string[] } {
  const metricKeys = new Set(metrics.map((m) => m.key));
  const shown = paper.results.filter((e) => e.benchmark !== null && benchmarks.includes(e.benchmark) && metricKeys.has(e.metric));
  const methods = [...new Set(shown.map((e) => e.method))].sort(compareMethods);
  const series: Series[] = methods.map((m) => ({ key: `paper:${m}`, method: m, model: null, label: `${methodName(m)} (paper)`, reference: true }));
  for (const e of shown) {
    cells.set(cellKey(`paper:${e.method}`, e.benchmark!, e.metric), {
      series: `paper:${e.method}`,
      benchmark: e.benchmark!,
      metric: e.metric,
      mean: e.value,
      low: null,
      high: null,
      n: 1,
      marks: [],
      best: false,
      runIds: [],
      seeds: [],
      models: [],
    });
  }
  const notes: string[] = [];
  if (series.length > 0) notes.push(`Paper rows: published numbers of ${paper.source} (${paper.url}); reference only, other models and settings.`);
  const settings = new Map<string, string>();
  for (const e of shown) if (e.setting) settings.set(e.benchmark!, e.setting);
  for (const [bench, setting] of [...settings].sort((a, b) => compareBenchmarks(a[0], b[0]))) {
    notes.push(`Paper ${benchmarkName(bench)}: ${setting}.`);
  }
  // Numbers the source gives without a benchmark still belong under the table.
  for (const metric of metrics) {
    const loose = paper.results.filter((e) => e.benchmark === null && e.metric === metric.key);
    if (loose.length === 0) continue;
    const list = loose
      .sort((a, b) => compareMethods(a.method, b.method))
      .map((e) => `${methodName(e.method)} ${e.value.toFixed(3)}`)
      .join(', ');
    notes.push(`Paper ${metric.label.toLowerCase()}, benchmark not stated: ${list}.`);
  }
  return { series, notes };
}
