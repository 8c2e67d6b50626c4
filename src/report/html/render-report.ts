/**
 * `memrl report`: one self-contained HTML file (inline CSS, and Chart.js inlined: no
 * network) with learning curves per benchmark, forgetting, the method comparison (with
 * the paper's numbers on request), per-category
 * accuracy, memory analytics, the learning-dynamics analyses (docs/analysis.md), token use
 * per role and each run's manifest.
 */
import { redactTree } from '../../util/redact.js';
import type { RunFolder } from '../../results/run-folder.js';
import { memrlVersion } from '../../util/version.js';
import { benchmarkName, compareBenchmarks, compareMethods, methodName } from '../names.js';
import { MARK_NOTES, buildResultTable, cellKey, runMarks, type Mark, type ResultTable } from '../result-table.js';
import { MARK_SYMBOLS, cellText } from '../table-layout.js';
import { TABLE_METRICS } from '../table-metrics.js';
import { analysisSection, reportAnalysis } from './analysis-section.js';
import { CHART_CSS, chartScripts } from './charts.js';
import type { PaperResults } from '../paper-results.js';
import { analyzeRun, type RoleUsage, type RunAnalytics } from './run-analytics.js';
import { barChart, boxChart, esc, lineChart, type LineSeries } from './charts.js';

export interface ReportOptions {
  seed: number;
  resamples: number;
  /** The paper's numbers: reference rows in the comparison, reference lines on the curves. */
  paper?: PaperResults;
  /** Injected for reproducible output in tests. */
  generatedAt?: string;
}

interface ReportRun {
  run: RunFolder;
  label: string;
  a: RunAnalytics;
}

const CSS = `${CHART_CSS}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1080px;padding:16px 24px;color:#222}
h1{margin:.2em 0}h2{border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:2em}h3{margin:1.4em 0 .4em}
.banner{padding:8px 12px;border-radius:4px;margin:6px 0;font-weight:600}.banner.simulated,.banner.standin{background:#fdecea;color:#8a1c12;border:1px solid #f5c2bd}
.banner.unfinished{background:#fff4e0;color:#7a4b00;border:1px solid #f3d9a4}.banner.failed{background:#fdecea;color:#8a1c12;border:1px solid #f5c2bd}
nav a{margin-right:12px}
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #ddd;padding:3px 8px;text-align:right}th:first-child,td:first-child{text-align:left}
th{background:#f6f6f6}td.key{text-align:left;max-width:520px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.figure{margin:12px 0}figcaption{font-weight:600;margin-bottom:2px}
.note{color:#555;font-size:12px}pre{background:#f7f7f7;padding:8px;overflow:auto;max-height:420px;font-size:12px}
`;

export function renderReport(runs: readonly RunFolder[], opts: ReportOptions): string {
  const sorted = [...runs].sort(
    (a, b) => compareBenchmarks(a.column, b.column) || compareMethods(a.method, b.method) || (a.seed ?? 0) - (b.seed ?? 0) || a.id.localeCompare(b.id),
  );
  const labels = runLabels(sorted);
  const items: ReportRun[] = sorted.map((run, i) => ({ run, label: labels[i]!, a: analyzeRun(run) }));
  const table = buildResultTable(sorted, { metrics: TABLE_METRICS.filter((m) => ['last', 'csr', 'forgetting'].includes(m.key)), phase: 'train', seed: opts.seed, resamples: opts.resamples, ...(opts.paper ? { paper: opts.paper } : {}) });

  const sections: [string, string, string][] = [
    ['runs', 'Runs', runsSection(items)],
    ['comparison', 'Method comparison', comparisonSection(table)],
    ['curves', 'Learning curves', curvesSection(items, opts.paper)],
    ['forgetting', 'Forgetting', forgettingSection(items)],
    ['breakdown', 'By category', breakdownSection(items)],
    ['memory', 'Memory', memorySection(items)],
    ['analysis', 'Learning dynamics', analysisSection(items, reportAnalysis(sorted))],
    ['cost', 'Cost per role', costSection(items)],
    ['manifest', 'Run manifests', manifestSection(items)],
  ];
  const generated = opts.generatedAt ?? new Date().toISOString();
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>memrl report: ${esc(summaryTitle(sorted))}</title><style>${CSS}</style></head><body>` +
    `<header><h1>memrl report</h1><p class="note">${sorted.length} run(s): ${esc(summaryTitle(sorted))} · memrl ${esc(memrlVersion())} · generated ${esc(generated)}</p>` +
    banners(table.marks) +
    `<nav>${sections.map(([id, title]) => `<a href="#${id}">${esc(title)}</a>`).join('')}</nav></header>` +
    sections.map(([id, title, html]) => `<section id="${id}"><h2>${esc(title)}</h2>${html}</section>`).join('') +
    chartScripts() +
    `</body></html>\n`
  );
}

function summaryTitle(runs: readonly RunFolder[]): string {
  const benches = [...new Set(runs.map((r) => benchmarkName(r.column)))].join(', ');
  const methods = [...new Set(runs.map((r) => methodName(r.method)))].join(', ');
  return `${benches} × ${methods}`;
}

/** "MemRL · BigCodeBench · s1 †", with the run id added when two runs would share a label. */
function runLabels(runs: readonly RunFolder[]): string[] {
  const base = runs.map((r) => {
    const marks = runMarks(r).map((m) => MARK_SYMBOLS[m].text).join('');
    return `${methodName(r.method)} · ${benchmarkName(r.column)}${r.seed !== null ? ` · s${r.seed}` : ''}${marks ? ` ${marks}` : ''}`;
  });
  return base.map((l, i) => (base.indexOf(l) !== base.lastIndexOf(l) ? `${l} (${runs[i]!.id})` : l));
}

function banners(marks: readonly Mark[]): string {
  return MARK_NOTES.filter((n) => marks.includes(n.mark))
    .map((n) => `<div class="banner ${n.mark}">${MARK_SYMBOLS[n.mark].text} ${esc(n.note.charAt(0).toUpperCase() + n.note.slice(1))}</div>`)
    .join('');
}

const f3 = (x: number | null | undefined): string => (x === null || x === undefined ? '–' : x.toFixed(3));

function runsSection(items: readonly ReportRun[]): string {
  const rows = items
    .map(({ run, label }) => {
      const t = run.metrics.train;
      const planned = run.summary?.epochsPlanned ?? run.manifest.epochs;
      return `<tr data-run="${esc(run.id)}"><td>${esc(label)}</td><td>${esc(run.id)}</td><td>${esc(run.model)}</td><td>${t.tasks}</td><td>${t.epochs.length}${planned ? ` / ${planned}` : ''}</td><td${run.statusReason ? ` title="${esc(run.statusReason)}"` : ''}>${esc(run.status)}</td><td>${esc(run.release ?? '–')}</td><td data-metric="last">${f3(t.last)}</td><td data-metric="csr">${f3(t.csrFinal)}</td><td data-metric="valid-last">${f3(run.metrics.valid?.last)}</td></tr>`;
    })
    .join('');
  return `<table id="runs-table"><thead><tr><th>run</th><th>folder</th><th>model</th><th>train tasks</th><th>epochs</th><th>status</th><th>data</th><th>last</th><th>CSR</th><th>valid last</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function comparisonSection(table: ResultTable): string {
  const head = `<tr><th>Method</th>${table.benchmarks.flatMap((b) => table.metrics.map((m) => `<th>${esc(benchmarkName(b))} ${esc(m.label)}</th>`)).join('')}</tr>`;
  const body = table.series
    .map((s) => {
      const cells = table.benchmarks.flatMap((b) =>
        table.metrics.map((m) => {
          const c = table.cells.get(cellKey(s.key, b, m.key));
          const t = c ? cellText(c) : null;
          if (!c || !t) return '<td>–</td>';
          const value = t.halfWidth === null ? t.mean : `${t.mean} ± ${t.halfWidth} (n=${t.n})`;
          const marks = c.marks.map((k) => MARK_SYMBOLS[k].text).join('');
          return `<td data-cell="${esc(`${s.method}/${b}/${m.key}`)}">${c.best ? `<strong>${value}</strong>` : value}${marks ? `<sup>${marks}</sup>` : ''}</td>`;
        }),
      );
      return `<tr><td>${esc(s.label)}</td>${cells.join('')}</tr>`;
    })
    .join('');
  const charts = table.benchmarks
    .map((b) =>
      barChart({
        id: `compare-${b}`,
        title: `${benchmarkName(b)}: last-epoch accuracy and CSR by method (mean over runs, 95% bootstrap interval)`,
        yLabel: 'rate',
        yDomain: [0, 1],
        groups: table.series.map((s) => s.label),
        series: ['last', 'csr'].map((k) => {
          const cells = table.series.map((s) => table.cells.get(cellKey(s.key, b, k)));
          return { label: k === 'last' ? 'Last' : 'CSR', values: cells.map((c) => c?.mean ?? null), low: cells.map((c) => c?.low ?? null), high: cells.map((c) => c?.high ?? null) };
        }),
      }),
    )
    .join('');
  const note = `<p class="note">Training phase. Bold: best method per benchmark and metric (lower is better for forgetting = forgetting_flip). With n ≥ 2 runs: mean ± half-width of the 95% percentile bootstrap interval over runs (${table.bootstrap.resamples} resamples, seed ${table.bootstrap.seed}). <code>memrl table</code> prints the same table as Markdown, LaTeX or CSV.</p>`;
  return `<table id="comparison-table"><thead>${head}</thead><tbody>${body}</tbody></table>${note}${charts}`;
}

function curve(items: readonly ReportRun[], pick: (r: RunFolder) => { x: number; y: number | null }[] | null): LineSeries[] {
  return items.flatMap(({ run, label }) => {
    const points = pick(run);
    return points && points.length ? [{ label, points }] : [];
  });
}

/** One panel per benchmark: accuracy, CSR and validation accuracy of its runs, and the paper's last-epoch numbers when asked. */
function curvesSection(items: readonly ReportRun[], paper?: PaperResults): string {
  const columns = [...new Set(items.map((i) => i.run.column))];
  return columns
    .map((column) => {
      const mine = items.filter((i) => i.run.column === column);
      const id = (base: string): string => `${base}-${column}`;
      const acc = curve(mine, (r) => r.metrics.train.epochs.map((e) => ({ x: e.epoch, y: e.acc })));
      const csr = curve(mine, (r) => r.metrics.train.epochs.map((e) => ({ x: e.epoch, y: e.csr })));
      const valid = curve(mine, (r) => r.metrics.valid?.epochs.map((e) => ({ x: e.epoch, y: e.acc })) ?? null);
      const references = (paper?.results ?? [])
        .filter((p) => p.benchmark === column && p.metric === 'last')
        .map((p) => ({ label: `paper: ${methodName(p.method)} ${p.value.toFixed(3)}`, y: p.value }));
      const name = benchmarkName(column);
      return (
        `<h3>${esc(name)}</h3>` +
        lineChart({ id: id('curve-acc'), title: `${name}: training accuracy per epoch${references.length ? ' (dashed grey: the paper’s last-epoch accuracy)' : ''}`, xLabel: 'epoch', yLabel: 'accuracy', series: acc, yDomain: [0, 1], references }) +
        lineChart({ id: id('curve-csr'), title: `${name}: cumulative success rate (CSR) per epoch`, xLabel: 'epoch', yLabel: 'CSR', series: csr, yDomain: [0, 1] }) +
        (valid.length
          ? lineChart({ id: id('curve-valid'), title: `${name}: validation accuracy per epoch (epoch 0 = before training)`, xLabel: 'epoch', yLabel: 'accuracy', series: valid, yDomain: [0, 1] })
          : '<p class="note">No validation rows in these runs (run with --run-validation).</p>')
      );
    })
    .join('');
}

function forgettingSection(items: readonly ReportRun[]): string {
  const flips = curve(items, (r) => r.metrics.train.epochs.filter((e) => e.epoch > r.metrics.train.epochs[0]!.epoch).map((e) => ({ x: e.epoch, y: e.flipRate })));
  return (
    (flips.length
      ? lineChart({ id: 'forgetting-flip', title: 'Share of the previous epoch’s solved tasks failed in this epoch', xLabel: 'epoch', yLabel: 'flip rate', series: flips, yDomain: [0, 1] })
      : '<p class="note">One epoch only: nothing to forget yet.</p>') +
    barChart({
      id: 'forgetting-final',
      title: 'Forgetting at the final epoch',
      yLabel: 'rate',
      yDomain: [0, 1],
      groups: items.map((i) => i.label),
      series: [
        { label: 'forgetting_flip', values: items.map((i) => i.run.metrics.train.forgettingFlip) },
        { label: 'forgetting_max', values: items.map((i) => i.run.metrics.train.forgettingMax) },
      ],
    }) +
    '<p class="note">forgetting_flip: mean over epochs of the share of tasks solved in one epoch and failed in the next. forgetting_max: share of tasks solved in some earlier epoch and failed at the end. Definitions in docs/results.md, "Metrics".</p>'
  );
}

function breakdownSection(items: readonly ReportRun[]): string {
  const withData = items.filter((i) => i.a.breakdown);
  if (withData.length === 0) return '<p class="note">These runs record no task category or type (a row carries one in <code>extra</code> when its benchmark\'s tasks have one).</p>';
  return withData
    .map(({ label, a }) => {
      const b = a.breakdown!;
      const rows = b.rows.map((r) => `<tr><td>${esc(r.value)}</td><td>${r.tasks}</td><td>${r.solved}</td><td>${r.acc.toFixed(3)}</td></tr>`).join('');
      return `<h3>${esc(label)}: final-epoch training accuracy by ${esc(b.field)}</h3><table><thead><tr><th>${esc(b.field)}</th><th>tasks</th><th>solved</th><th>accuracy</th></tr></thead><tbody>${rows}</tbody></table>`;
    })
    .join('');
}

function memorySection(items: readonly ReportRun[]): string {
  const withMemory = items.filter((i) => i.run.method !== 'none');
  if (withMemory.length === 0) return '<p class="note">No run here uses memory (method none).</p>';
  let html = lineChart({
    id: 'memory-count',
    title: 'Memories written by the end of each epoch',
    xLabel: 'epoch',
    yLabel: 'memories',
    includeZero: true,
    series: withMemory.map(({ label, a }) => ({ label, points: a.memoryCount.map((m) => ({ x: m.epoch, y: m.count })) })),
  });
  // Methods that write one memory per episode draw the same line: the table tells them apart.
  const epochs = [...new Set(withMemory.flatMap((i) => i.a.memoryCount.map((m) => m.epoch)))].sort((a, b) => a - b);
  html +=
    `<table id="memory-count-table"><thead><tr><th>memories by the end of epoch</th>${epochs.map((e) => `<th>${e}</th>`).join('')}</tr></thead><tbody>` +
    withMemory
      .map(({ label, a }) => `<tr><td>${esc(label)}</td>${epochs.map((e) => `<td data-epoch="${e}">${a.memoryCount.find((m) => m.epoch === e)?.count ?? '–'}</td>`).join('')}</tr>`)
      .join('') +
    '</tbody></table>';
  const change = withMemory.filter((i) => i.a.retrievalChange.length > 0);
  if (change.length) {
    html += lineChart({
      id: 'retrieval-change',
      title: 'Share of tasks whose retrieved memories changed since the previous epoch',
      xLabel: 'epoch',
      yLabel: 'share',
      yDomain: [0, 1],
      series: change.map(({ label, a }) => ({ label, points: a.retrievalChange.map((c) => ({ x: c.epoch, y: c.share })) })),
    });
  }
  withMemory.forEach(({ run, label, a }, i) => {
    html += `<h3>${esc(label)}</h3>`;
    const flat = constantQ(a);
    if (flat !== null) {
      // A method whose ranking does not learn Q (MemP, RAG) would draw a flat line at its initial Q.
      html += `<p class="note q-constant" data-run="${esc(run.id)}">Q is not charted: every memory this run retrieved had Q = ${f3(flat)}, in every epoch. Its Q did not change: a chart would be one flat line.</p>`;
    } else if (a.qByEpoch.some((q) => q.stats)) {
      html += boxChart({ id: `q-dist-${i}`, title: 'Q of the retrieved memories, per epoch (min, quartiles, max)', xLabel: 'epoch', yLabel: 'Q', boxes: a.qByEpoch.map((q) => ({ label: String(q.epoch), stats: q.stats })) });
    }
    if (a.topMemories.length) {
      const rows = a.topMemories
        .map((m) => `<tr><td>${esc(m.id)}</td><td>${m.uses}</td><td>${f3(m.finalQ)}</td><td class="key" title="${esc(m.key ?? '')}">${esc(m.key ?? '')}</td></tr>`)
        .join('');
      html += `<table class="top-memories"><thead><tr><th>most used memory</th><th>retrievals</th><th>final Q</th><th>key</th></tr></thead><tbody>${rows}</tbody></table>`;
      if (flat === null && a.topMemories.some((m) => m.qByEpoch.length > 0)) {
        html += lineChart({
          id: `q-trajectory-${i}`,
          title: 'Q of the most used memories when retrieved (mean per epoch)',
          xLabel: 'epoch',
          yLabel: 'Q',
          series: a.topMemories.map((m) => ({ label: m.id, points: m.qByEpoch.map((p) => ({ x: p.epoch, y: p.q })) })),
        });
      }
    } else {
      html += '<p class="note">No memory was retrieved in this run.</p>';
    }
  });
  return html;
}

/** The one Q every retrieval of the run saw, in every epoch; null when Q varied or nothing was retrieved. */
function constantQ(a: RunAnalytics): number | null {
  const stats = a.qByEpoch.flatMap((q) => (q.stats ? [q.stats] : []));
  const q = stats[0]?.min;
  return q !== undefined && stats.every((s) => s.min === q && s.max === q) ? q : null;
}

function costSection(items: readonly ReportRun[]): string {
  // Roles a run never called (no judge, no memory model) would only add rows of zeros.
  const used = (u: RoleUsage): boolean => u.calls > 0 || u.totalTokens > 0;
  const roles = [...new Set(items.flatMap((i) => i.a.usage.filter(used).map((u) => u.role)))];
  if (roles.length === 0) return '<p class="note">No summary.json with token usage in these runs.</p>';
  const rows = items
    .flatMap(({ label, a }) =>
      a.usage.filter(used).map((u) => `<tr><td>${esc(label)}</td><td>${esc(u.role)}</td><td>${u.calls}</td><td>${u.promptTokens}</td><td>${u.completionTokens}</td><td>${u.totalTokens}</td></tr>`),
    )
    .join('');
  const costs = items.filter((i) => i.a.costUsd !== null).map((i) => `${esc(i.label)}: $${i.a.costUsd!.toFixed(2)}`);
  return (
    `<table id="cost-table"><thead><tr><th>run</th><th>role</th><th>calls</th><th>prompt tokens</th><th>completion tokens</th><th>total tokens</th></tr></thead><tbody>${rows}</tbody></table>` +
    (costs.length ? `<p class="note">Cost: ${costs.join('; ')}</p>` : '<p class="note">No price configured: token counts only.</p>') +
    '<p class="note">Roles a run never called are left out.</p>' +
    barChart({
      id: 'cost-tokens',
      title: 'Total tokens per role',
      yLabel: 'tokens',
      groups: items.map((i) => i.label),
      series: roles.map((role) => ({ label: role, values: items.map((i) => i.a.usage.find((u) => u.role === role)?.totalTokens ?? null) })),
    })
  );
}

function manifestSection(items: readonly ReportRun[]): string {
  return items
    .map(({ run, label }) => {
      // Task id lists can run to hundreds of ids: show their length instead.
        // Redacted again: a run.json written before memrl redacted its command line must not carry a credential into the report.
        const redacted = redactTree({ ...run.manifest }, (v) => v === 'sk-REPLACE_ME' || v === 'none');
        const m = { ...redacted, trainTaskIds: `[${redacted.trainTaskIds.length} task ids]`, validTaskIds: `[${redacted.validTaskIds.length} task ids]` };
      return `<details><summary>${esc(label)} (${esc(run.id)})</summary><pre>${esc(JSON.stringify(m, null, 2))}</pre></details>`;
    })
    .join('');
}
