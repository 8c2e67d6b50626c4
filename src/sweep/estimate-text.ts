/** The estimate of a sweep file's cells as text: for `memrl sweep --dry-run`, and before a sweep's first run starts. */
import { renderSweepEstimate } from '../app/estimate/render.js';
import type { Registry } from '../app/registry.js';
import { estimateCells } from './estimate.js';
import { planCells, type Cell } from './plan.js';
import { readSweepFile } from './sweep-file.js';

export async function sweepEstimateText(file: string, registry: Registry, opts: { maxRuns: number; perCell: boolean; cells?: readonly Cell[] }): Promise<string> {
  const spec = readSweepFile(file, registry);
  const cells = opts.cells ?? planCells(spec);
  if (cells.length === 0) return '';
  return renderSweepEstimate(spec.name, await estimateCells(cells, registry), opts.maxRuns, opts.perCell);
}
