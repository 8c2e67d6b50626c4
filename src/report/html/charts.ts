/**
 * The report's charts, drawn by Chart.js (inlined into the one HTML file: still no
 * network). Each figure carries its spec as JSON next to its canvas; one small script
 * turns every spec into a chart with tooltips and a legend whose items toggle series.
 * Overlapping series stay distinguishable (each has its own dash pattern and point
 * shape), zero is drawn as zero (a sliver of bar, not nothing), a run with one epoch is
 * a visible point on a sensible axis, and a reference line can mark the paper's number.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22'];

export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

export interface LineSeries {
  label: string;
  points: { x: number; y: number | null }[];
}

/** A horizontal line across the chart, e.g. the paper's last-epoch accuracy. */
export interface ReferenceLine {
  label: string;
  y: number;
}

export interface LineChartSpec {
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  series: LineSeries[];
  /** Fixed y range (rates use [0, 1]); else from the data. */
  yDomain?: [number, number];
  /** Start the y axis at zero (counts). */
  includeZero?: boolean;
  /** x is a measured quantity (Q, λ), not an epoch: free ticks instead of whole numbers. */
  xContinuous?: boolean;
  references?: ReferenceLine[];
}

export interface BarSeries {
  label: string;
  values: (number | null)[];
  /** Optional interval per bar (drawn as a whisker). */
  low?: (number | null)[];
  high?: (number | null)[];
}

export interface BarChartSpec {
  id: string;
  title: string;
  yLabel: string;
  groups: string[];
  series: BarSeries[];
  yDomain?: [number, number];
}

export interface BoxStats {
  min: number;
  q1: number;
  median: number;
  q3: number;
  max: number;
  n: number;
}

export interface BoxChartSpec {
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  boxes: { label: string; stats: BoxStats | null }[];
}

type Spec = ({ kind: 'line' } & LineChartSpec) | ({ kind: 'bar' } & BarChartSpec) | ({ kind: 'box' } & BoxChartSpec);

function figure(spec: Spec): string {
  // `</` cannot end the script element early once escaped.
  const json = JSON.stringify(spec).replace(/</g, '\\u003c');
  return (
    `<figure class="figure" id="${esc(spec.id)}" data-chart="${spec.kind}"><figcaption>${esc(spec.title)}</figcaption>` +
    `<div class="chart-box"><canvas role="img" aria-label="${esc(spec.title)}"></canvas></div>` +
    `<script type="application/json" class="chart-spec">${json}</script></figure>`
  );
}

export const lineChart = (spec: LineChartSpec): string => figure({ kind: 'line', ...spec });
export const barChart = (spec: BarChartSpec): string => figure({ kind: 'bar', ...spec });
export const boxChart = (spec: BoxChartSpec): string => figure({ kind: 'box', ...spec });

let chartJs: string | undefined;

/** Chart.js's UMD build, read from its package (the exports map does not name the file). */
function chartJsSource(): string {
  if (chartJs === undefined) {
    const main = createRequire(import.meta.url).resolve('chart.js');
    chartJs = readFileSync(join(dirname(main), 'chart.umd.min.js'), 'utf8');
  }
  return chartJs;
}

/** Builds every figure's chart from its spec; runs once the page has loaded. */
const INIT = `(() => {
  const PALETTE = ${JSON.stringify(PALETTE)};
  const DASH = [[], [7, 4], [2, 3], [12, 4, 2, 4], [1, 4], [5, 2, 1, 2]];
  const POINT = ['circle', 'rect', 'triangle', 'rectRot', 'crossRot', 'star'];
  const axisTitle = (text) => ({ display: Boolean(text), text });
  // Whiskers for bars that carry an interval (Chart.js has none of its own).
  const whiskers = {
    id: 'memrlWhiskers',
    afterDatasetsDraw(chart) {
      const { ctx } = chart;
      chart.data.datasets.forEach((ds, i) => {
        if (!ds.low || !chart.isDatasetVisible(i)) return;
        chart.getDatasetMeta(i).data.forEach((bar, j) => {
          const lo = ds.low[j], hi = ds.high[j];
          if (lo == null || hi == null) return;
          const y = chart.scales.y;
          ctx.save();
          ctx.strokeStyle = '#333';
          ctx.lineWidth = 1.5;
          ctx.beginPath();
          ctx.moveTo(bar.x, y.getPixelForValue(lo));
          ctx.lineTo(bar.x, y.getPixelForValue(hi));
          ctx.stroke();
          ctx.restore();
        });
      });
    },
  };
  const base = (spec) => ({
    animation: false,
    responsive: true,
    maintainAspectRatio: false,
    interaction: { mode: 'nearest', intersect: false },
    plugins: { legend: { position: 'bottom' }, tooltip: { enabled: true } },
    scales: {
      y: { title: axisTitle(spec.yLabel), min: spec.yDomain ? spec.yDomain[0] : undefined, max: spec.yDomain ? spec.yDomain[1] : undefined, beginAtZero: Boolean(spec.includeZero) || spec.kind === 'bar' },
    },
  });
  const line = (spec) => {
    const xs = spec.series.flatMap((s) => s.points.map((p) => p.x));
    const lo = Math.min(...xs), hi = Math.max(...xs);
    const datasets = spec.series.map((s, i) => ({
      label: s.label,
      data: s.points.map((p) => ({ x: p.x, y: p.y })),
      borderColor: PALETTE[i % PALETTE.length],
      backgroundColor: PALETTE[i % PALETTE.length],
      borderDash: DASH[i % DASH.length],
      pointStyle: POINT[i % POINT.length],
      pointRadius: 4,
      borderWidth: 2,
      spanGaps: false,
    }));
    for (const r of spec.references || []) {
      datasets.push({ label: r.label, data: [{ x: lo, y: r.y }, { x: hi, y: r.y }], borderColor: '#777', backgroundColor: '#777', borderDash: [3, 3], borderWidth: 1, pointRadius: 0, reference: true });
    }
    const options = base(spec);
    // One epoch: a point in the middle of a unit-wide axis, not a line squeezed to the edge.
    options.scales.x = { type: 'linear', title: axisTitle(spec.xLabel), min: lo === hi ? lo - 1 : undefined, max: lo === hi ? hi + 1 : undefined, ticks: spec.xContinuous ? {} : { stepSize: 1, precision: 0 } };
    return { type: 'line', data: { datasets }, options };
  };
  const bar = (spec) => ({
    type: 'bar',
    data: {
      labels: spec.groups,
      datasets: spec.series.map((s, i) => ({ label: s.label, data: s.values, low: s.low, high: s.high, backgroundColor: PALETTE[i % PALETTE.length], minBarLength: 3 })),
    },
    options: base(spec),
    plugins: [whiskers],
  });
  const box = (spec) => {
    const labels = spec.boxes.map((b) => b.label);
    const s = spec.boxes.map((b) => b.stats);
    const options = base(spec);
    options.scales.x = { title: axisTitle(spec.xLabel) };
    options.scales.y.beginAtZero = false;
    return {
      type: 'bar',
      data: {
        labels,
        datasets: [
          { label: 'min to max', data: s.map((x) => (x ? [x.min, x.max] : null)), backgroundColor: '#444', barPercentage: 0.06, grouped: false },
          { label: 'quartiles', data: s.map((x) => (x ? [x.q1, x.q3] : null)), backgroundColor: PALETTE[0] + '66', borderColor: PALETTE[0], borderWidth: 1, barPercentage: 0.45, minBarLength: 2, grouped: false },
          { type: 'line', label: 'median', data: s.map((x) => (x ? x.median : null)), showLine: false, pointStyle: 'line', pointRadius: 16, borderWidth: 3, borderColor: '#111', backgroundColor: '#111' },
        ],
      },
      options,
    };
  };
  const make = { line, bar, box };
  for (const fig of document.querySelectorAll('figure[data-chart]')) {
    const spec = JSON.parse(fig.querySelector('script.chart-spec').textContent);
    new Chart(fig.querySelector('canvas'), make[spec.kind](spec));
  }
})();`;

/** The scripts that draw every figure: Chart.js itself, then the builder. */
export function chartScripts(): string {
  return `<script>${chartJsSource().replace(/<\/script/gi, '<\\/script')}</script><script>${INIT}</script>`;
}

export const CHART_CSS = '.chart-box{position:relative;height:300px;max-width:820px}';
