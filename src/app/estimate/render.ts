/** The dry-run estimate as text: one run's roles, or a sweep's cells, with totals, the counting used and what is assumed. */
import type { RunEstimate } from './estimate-run.js';

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const tokens = (n: number): string => (n >= 1e9 ? `${(n / 1e9).toFixed(2)}B` : n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : String(Math.round(n)));
const usd = (x: number | null): string => (x === null ? '$?' : `$${x < 100 ? x.toFixed(2) : int(x)}`);
const hours = (h: number): string => (h < 1 ? `${Math.max(1, Math.round(h * 60))} min` : `${h.toFixed(1)} h`);

function table(rows: string[][], right: ReadonlySet<number>): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => `  ${r.map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd()}`).join('\n') + '\n';
}

/** The notes under an estimate: how tokens were counted, what has no price, what is assumed. */
export function estimateNotes(ests: readonly RunEstimate[]): string {
  const uniq = (f: (e: RunEstimate) => readonly string[]) => [...new Set(ests.flatMap(f))];
  const unpriced = uniq((e) => e.unpriced);
  return [
    `  tokens counted from the prompts the run would send: ${uniq((e) => e.counting).join('; ')}`,
    ...(unpriced.length ? [`  no price for ${unpriced.join(', ')}: cost unknown ($?); add it to a price file and pass --prices <file>`] : []),
    ...uniq((e) => e.assumptions).map((a) => `  assumes: ${a}`),
    '  no model was called.',
  ].join('\n') + '\n';
}

export function renderRunEstimate(e: RunEstimate): string {
  const valid = e.valid ? ` + ${int(e.valid)} validation tasks × ${e.validationPasses} pass(es)` : ' (no validation)';
  const head = `memrl run ${e.benchmark} --dry-run: method ${e.method}, model ${e.model}, ${e.epochs} epoch(s) of ${int(e.train)} training tasks${valid}; tasks: ${e.tasksFrom}\n`;
  const rows = [['role', 'model', 'calls', 'prompt tokens', 'completion tokens', 'cost', 'at most']];
  for (const r of e.roles) rows.push([r.role, r.model, int(r.calls), tokens(r.promptTokens), tokens(r.completionTokens), usd(r.costUsd), usd(r.maxCostUsd)]);
  rows.push(['total', '', int(e.calls), tokens(e.promptTokens), tokens(e.completionTokens), usd(e.costUsd), usd(e.maxCostUsd)]);
  return head + table(rows, new Set([2, 3, 4, 5, 6])) + `  time: about ${hours(e.hours)}\n` + estimateNotes([e]);
}

export interface CellEstimate {
  id: string;
  estimate?: RunEstimate;
  /** Why this cell could not be estimated (its config does not load, its data is unreadable). */
  error?: string;
}

/** A sweep's cells, one line each, then the totals (calls, tokens, dollars, hours). */
export function renderSweepEstimate(name: string, cells: readonly CellEstimate[], maxRuns: number, perCell: boolean): string {
  const ests = cells.flatMap((c) => (c.estimate ? [c.estimate] : []));
  const sum = (f: (e: RunEstimate) => number) => ests.reduce((n, e) => n + f(e), 0);
  const cost = (f: (e: RunEstimate) => number | null) => (ests.some((e) => f(e) === null) ? null : sum((e) => f(e) ?? 0));
  const total = { calls: sum((e) => e.calls), in: sum((e) => e.promptTokens), out: sum((e) => e.completionTokens), cost: cost((e) => e.costUsd), max: cost((e) => e.maxCostUsd), hours: sum((e) => e.hours) };
  const known = cost((e) => e.costUsd) === null ? ` (${usd(sum((e) => e.costUsd ?? 0))} for the priced models)` : '';
  let out = `memrl sweep ${name}: estimate for ${cells.length} cell(s) before any call\n`;
  if (perCell) {
    const rows = [['cell', 'tasks', 'epochs', 'calls', 'prompt tok', 'compl. tok', 'cost', 'at most', 'hours']];
    for (const c of cells) {
      const e = c.estimate;
      if (!e) rows.push([c.id, `cannot estimate: ${c.error ?? 'unknown'}`, '', '', '', '', '', '', '']);
      else rows.push([c.id, `${int(e.train)}/${int(e.valid)}`, String(e.epochs), int(e.calls), tokens(e.promptTokens), tokens(e.completionTokens), usd(e.costUsd), usd(e.maxCostUsd), e.hours.toFixed(1)]);
    }
    rows.push(['total', '', '', int(total.calls), tokens(total.in), tokens(total.out), usd(total.cost), usd(total.max), total.hours.toFixed(1)]);
    out += table(rows, new Set([2, 3, 4, 5, 6, 7, 8]));
  }
  const parallel = maxRuns > 1 ? `, about ${hours(total.hours / maxRuns)} with ${maxRuns} cells at once (--max-runs)` : '';
  out += `  total: ${int(total.calls)} model calls, ${tokens(total.in)} prompt + ${tokens(total.out)} completion tokens, ${usd(total.cost)}${known} (at most ${usd(total.max)}), ${hours(total.hours)} one cell at a time${parallel}\n`;
  const failed = cells.filter((c) => !c.estimate);
  if (failed.length) out += `  ${failed.length} cell(s) could not be estimated (not in the totals): ${failed.map((c) => `${c.id}: ${c.error}`).slice(0, 3).join('; ')}${failed.length > 3 ? '; …' : ''}\n`;
  return out + estimateNotes(ests);
}
