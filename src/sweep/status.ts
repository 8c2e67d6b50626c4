/** `memrl sweep status`: the grid with each cell's progress. */
import type { CellState, SweepState } from './state.js';

const f3 = (x: number | null): string => (x === null ? '–' : x.toFixed(3));

export function renderSweepStatus(state: SweepState): string {
  const axes = [...new Set(state.cells.flatMap((c) => Object.keys(c.values)))].filter((k) => !['benchmark', 'method', 'seed'].includes(k));
  const header = ['cell', 'benchmark', 'method', 'seed', ...axes, 'status', 'epochs', 'last'];
  const rows = state.cells.map((c) => [
    c.id,
    c.benchmark,
    c.method ?? '–',
    c.seed === null ? '–' : String(c.seed),
    ...axes.map((a) => String(c.values[a] ?? '–')),
    c.status,
    `${c.epochsDone}/${c.epochsPlanned ?? '?'}`,
    f3(c.last),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]): string => r.map((x, i) => x.padEnd(widths[i]!)).join('  ').trimEnd();
  const counts = countBy(state.cells);
  const errors = state.cells.filter((c) => c.error).map((c) => `  ${c.id}: ${c.error}`);
  return [
    `sweep ${state.name} (${state.file}): ${Object.entries(counts).map(([k, n]) => `${n} ${k}`).join(', ')} of ${state.cells.length} cells`,
    line(header),
    ...rows.map(line),
    ...(errors.length ? ['', 'problems:', ...errors] : []),
  ].join('\n') + '\n';
}

function countBy(cells: readonly CellState[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of cells) out[c.status] = (out[c.status] ?? 0) + 1;
  return out;
}
