/**
 * Small inline SVG charts for the HTML report: no library, no script, no network.
 * Every drawn series carries its numbers in data-* attributes, so tests (and
 * curious users) can read the values a chart was drawn from straight from the DOM.
 */

export const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22'];

export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const W = 640;
const H = 260;
const M = { l: 52, r: 16, t: 14, b: 40 };

function num(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(3).replace(/0+$/, '').replace(/\.$/, '');
}

/** A round tick step (1, 2, 2.5 or 5 × 10^k) giving about `target` intervals over span. */
function niceStep(span: number, target = 5): number {
  const raw = span / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * mag;
}

interface Scale {
  lo: number;
  hi: number;
  ticks: number[];
  step: number;
}

/** The y range rounded out to whole tick steps; counts and bars include zero. */
function scale(values: number[], fixed?: [number, number], includeZero = false): Scale {
  let lo: number;
  let hi: number;
  if (fixed) [lo, hi] = fixed;
  else {
    const v = includeZero ? [0, ...values] : values;
    lo = v.length ? Math.min(...v) : 0;
    hi = v.length ? Math.max(...v) : 1;
    if (lo === hi) {
      // A flat series: a unit band around it (or [0, 1] for zeros), not a hairline.
      if (lo === 0) hi = 1;
      else if (includeZero) [lo, hi] = lo > 0 ? [0, lo * 2] : [lo * 2, 0];
      else [lo, hi] = [lo - Math.abs(lo) * 0.5 - 0.5, hi + Math.abs(hi) * 0.5 + 0.5];
    }
  }
  const step = niceStep(hi - lo);
  if (!fixed) {
    lo = Math.floor(lo / step + 1e-9) * step;
    hi = Math.ceil(hi / step - 1e-9) * step;
  }
  const ticks: number[] = [];
  for (let t = lo; t <= hi + step * 1e-6; t += step) ticks.push(Number(t.toFixed(10)));
  return { lo, hi, ticks, step };
}

/** Tick text: as few decimals as the step needs; thousands as "k". */
function tickText(t: number, step: number): string {
  if (Math.abs(t) >= 1000 && step >= 100) return `${num(Number((t / 1000).toFixed(2)))}k`;
  const decimals = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  return num(Number(t.toFixed(decimals)));
}

function yScale(s: Scale, bottom: number): (v: number) => number {
  return (v) => Number((bottom - ((v - s.lo) / (s.hi - s.lo)) * (bottom - M.t)).toFixed(1));
}

function frame(title: string, body: string, yLabel: string, xLabel: string, bottom = H - M.b): string {
  return (
    `<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(title)}">` +
    `<title>${esc(title)}</title>` +
    body +
    (xLabel ? `<text class="axis-label" x="${M.l + (W - M.l - M.r) / 2}" y="${H - 6}" text-anchor="middle">${esc(xLabel)}</text>` : '') +
    `<text class="axis-label" transform="translate(12 ${M.t + (bottom - M.t) / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>` +
    `</svg>`
  );
}

function yAxis(s: Scale, y: (v: number) => number): string {
  return s.ticks
    .map((t) => `<line class="grid" x1="${M.l}" x2="${W - M.r}" y1="${y(t)}" y2="${y(t)}"/><text class="tick" x="${M.l - 6}" y="${y(t) + 4}" text-anchor="end">${tickText(t, s.step)}</text>`)
    .join('');
}

/**
 * Segments joined with " · " in at most max characters: the middle ones (benchmark
 * names) are cut first, so the method and the seed at the ends stay readable.
 */
function fitSegments(parts: readonly string[], max: number): string {
  const join = (p: readonly string[]): string => p.join(' · ');
  if (join(parts).length <= max) return join(parts);
  if (parts.length > 2) {
    const longest = Math.max(...parts.slice(1, -1).map((x) => x.length));
    for (let k = longest - 1; k >= 1; k--) {
      const cut = parts.map((x, i) => (i === 0 || i === parts.length - 1 || x.length <= k ? x : `${x.slice(0, k)}…`));
      if (join(cut).length <= max) return join(cut);
    }
  }
  const full = join(parts);
  return `${full.slice(0, max - 1)}…`;
}

/** Average glyph width of the 11px tick font, for fitting labels. */
const CHAR_W = 6.2;

/**
 * Category labels under a bar chart. Segments all labels share ("BigCodeBench" when
 * every run is one) are dropped; the rest is stacked one segment per line when that
 * fits the group's width, else written at 40° and cut to fit (full text in a tooltip).
 * Returns the markup and the y of the plot's bottom edge above it.
 */
function categoryAxis(groups: readonly string[], gw: number): { svg: string; bottom: number } {
  const parts = groups.map((g) => g.split(' · '));
  const width = Math.max(0, ...parts.map((p) => p.length));
  const shared = Array.from({ length: width }, (_v, i) => groups.length > 1 && parts.every((p) => p.length === width && p[i] === parts[0]![i]));
  const short = parts.map((p) => {
    const kept = p.filter((_s, i) => !shared[i]);
    return kept.length ? kept : p;
  });
  const cx = (gi: number): string => (M.l + gw * gi + gw / 2).toFixed(1);
  const lines = Math.max(1, ...short.map((p) => p.length));
  const fits = short.every((p) => p.every((seg) => seg.length * CHAR_W <= gw - 4)) && lines <= 3;
  if (fits) {
    const bottom = H - 14 - 13 * lines;
    const svg = short
      .map((p, gi) => `<text class="tick" x="${cx(gi)}" y="${bottom + 15}" text-anchor="middle"><title>${esc(groups[gi]!)}</title>${p.map((seg, li) => `<tspan x="${cx(gi)}" dy="${li === 0 ? 0 : 13}">${esc(seg)}</tspan>`).join('')}</text>`)
      .join('');
    return { svg, bottom };
  }
  const bottom = H - 100;
  const sin = Math.sin((40 * Math.PI) / 180);
  const cos = Math.cos((40 * Math.PI) / 180);
  const svg = short
    .map((p, gi) => {
      const x = M.l + gw * gi + gw / 2;
      // Room down to the chart's foot, and left to the chart's edge.
      const room = Math.min((H - bottom - 14) / sin, (x - 4) / cos);
      const max = Math.max(3, Math.floor(room / CHAR_W));
      const text = fitSegments(p, max);
      return `<text class="tick" transform="translate(${x.toFixed(1)} ${bottom + 12}) rotate(-40)" text-anchor="end"><title>${esc(groups[gi]!)}</title>${esc(text)}</text>`;
    })
    .join('');
  return { svg, bottom };
}

export function legend(labels: readonly string[]): string {
  return `<ul class="legend">${labels.map((l, i) => `<li><span class="swatch" style="background:${PALETTE[i % PALETTE.length]}"></span>${esc(l)}</li>`).join('')}</ul>`;
}

export interface LineSeries {
  label: string;
  points: { x: number; y: number | null }[];
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
  /** x is a measured quantity (Q, λ), not an epoch: evenly spaced nice ticks instead of one tick per data value. */
  xContinuous?: boolean;
}

export function lineChart(spec: LineChartSpec): string {
  const xs = spec.series.flatMap((s) => s.points.map((p) => p.x));
  const ys = spec.series.flatMap((s) => s.points.map((p) => p.y)).filter((v): v is number => v !== null);
  const sx = spec.xContinuous ? scale(xs) : null;
  const [x0, x1] = sx ? [sx.lo, sx.hi] : xs.length ? [Math.min(...xs), Math.max(...xs)] : [0, 1];
  const sc = scale(ys, spec.yDomain, spec.includeZero);
  const x = (v: number): number => Number((M.l + (x1 === x0 ? 0.5 : (v - x0) / (x1 - x0)) * (W - M.l - M.r)).toFixed(1));
  const y = yScale(sc, H - M.b);
  const xTickValues = sx ? sx.ticks : [...new Set(xs)].sort((a, b) => a - b);
  const step = Math.max(1, Math.ceil(xTickValues.length / 15));
  let body = yAxis(sc, y);
  body += xTickValues
    .filter((_v, i) => i % step === 0)
    .map((t) => `<text class="tick" x="${x(t)}" y="${H - M.b + 16}" text-anchor="middle">${sx ? tickText(t, sx.step) : num(t)}</text>`)
    .join('');
  body += `<line class="axis" x1="${M.l}" x2="${W - M.r}" y1="${H - M.b}" y2="${H - M.b}"/>`;
  spec.series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length]!;
    // A gap (null) splits the line rather than drawing through a missing epoch.
    const runs: string[][] = [[]];
    for (const p of s.points) {
      if (p.y === null) runs.push([]);
      else runs[runs.length - 1]!.push(`${x(p.x)},${y(p.y)}`);
    }
    const lines = runs.filter((r) => r.length > 1).map((r) => `<polyline fill="none" stroke="${color}" stroke-width="2" points="${r.join(' ')}"/>`).join('');
    const dots = s.points
      .filter((p): p is { x: number; y: number } => p.y !== null)
      .map((p) => `<circle cx="${x(p.x)}" cy="${y(p.y)}" r="3" fill="${color}"><title>${esc(s.label)} · ${num(p.x)}: ${num(p.y)}</title></circle>`)
      .join('');
    body += `<g class="series" data-label="${esc(s.label)}" data-x="${esc(JSON.stringify(s.points.map((p) => p.x)))}" data-values="${esc(JSON.stringify(s.points.map((p) => p.y)))}">${lines}${dots}</g>`;
  });
  return `<figure class="figure" id="${esc(spec.id)}"><figcaption>${esc(spec.title)}</figcaption>${frame(spec.title, body, spec.yLabel, spec.xLabel)}${legend(spec.series.map((s) => s.label))}</figure>`;
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

export function barChart(spec: BarChartSpec): string {
  const all = spec.series.flatMap((s) => [...s.values, ...(s.low ?? []), ...(s.high ?? [])]).filter((v): v is number => v !== null);
  const sc = scale(all, spec.yDomain, true);
  const gw = (W - M.l - M.r) / Math.max(1, spec.groups.length);
  const bw = (gw * 0.8) / Math.max(1, spec.series.length);
  const axis = categoryAxis(spec.groups, gw);
  const y = yScale(sc, axis.bottom);
  let body = yAxis(sc, y) + axis.svg;
  spec.series.forEach((s, si) => {
    const color = PALETTE[si % PALETTE.length]!;
    let bars = '';
    s.values.forEach((v, gi) => {
      if (v === null) return;
      const bx = M.l + gw * gi + gw * 0.1 + bw * si;
      // Bars grow from zero, up or down.
      const top = Math.min(y(v), y(0));
      const h = Math.abs(y(v) - y(0));
      bars += `<rect x="${bx.toFixed(1)}" y="${top.toFixed(1)}" width="${(bw - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="${color}"><title>${esc(s.label)} · ${esc(spec.groups[gi] ?? '')}: ${num(v)}</title></rect>`;
      const lo = s.low?.[gi];
      const hi = s.high?.[gi];
      if (lo != null && hi != null) {
        const cx = (bx + (bw - 2) / 2).toFixed(1);
        bars += `<line class="whisker" x1="${cx}" x2="${cx}" y1="${y(lo)}" y2="${y(hi)}"/>`;
      }
    });
    body += `<g class="series" data-label="${esc(s.label)}" data-values="${esc(JSON.stringify(s.values))}">${bars}</g>`;
  });
  body += `<line class="axis" x1="${M.l}" x2="${W - M.r}" y1="${y(Math.max(sc.lo, 0))}" y2="${y(Math.max(sc.lo, 0))}"/>`;
  return `<figure class="figure" id="${esc(spec.id)}"><figcaption>${esc(spec.title)}</figcaption>${frame(spec.title, body, spec.yLabel, '', axis.bottom)}${legend(spec.series.map((s) => s.label))}</figure>`;
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

export function boxChart(spec: BoxChartSpec): string {
  const vals = spec.boxes.flatMap((b) => (b.stats ? [b.stats.min, b.stats.max] : []));
  const sc = scale(vals);
  const y = yScale(sc, H - M.b);
  const gw = (W - M.l - M.r) / Math.max(1, spec.boxes.length);
  let body = yAxis(sc, y);
  spec.boxes.forEach((b, i) => {
    const cx = M.l + gw * i + gw / 2;
    body += `<text class="tick" x="${cx.toFixed(1)}" y="${H - M.b + 16}" text-anchor="middle">${esc(b.label)}</text>`;
    if (!b.stats) return;
    const s = b.stats;
    const half = Math.min(18, gw * 0.3);
    body +=
      `<g class="box" data-label="${esc(b.label)}" data-stats="${esc(JSON.stringify(s))}">` +
      `<line class="whisker" x1="${cx.toFixed(1)}" x2="${cx.toFixed(1)}" y1="${y(s.min)}" y2="${y(s.max)}"/>` +
      `<rect x="${(cx - half).toFixed(1)}" y="${y(s.q3)}" width="${(2 * half).toFixed(1)}" height="${Math.max(1, y(s.q1) - y(s.q3)).toFixed(1)}" fill="${PALETTE[0]}" fill-opacity="0.35" stroke="${PALETTE[0]}"/>` +
      `<line class="median" x1="${(cx - half).toFixed(1)}" x2="${(cx + half).toFixed(1)}" y1="${y(s.median)}" y2="${y(s.median)}"/>` +
      `<title>${esc(b.label)}: n=${s.n}, min ${num(s.min)}, median ${num(s.median)}, max ${num(s.max)}</title></g>`;
  });
  return `<figure class="figure" id="${esc(spec.id)}"><figcaption>${esc(spec.title)}</figcaption>${frame(spec.title, body, spec.yLabel, spec.xLabel)}</figure>`;
}
