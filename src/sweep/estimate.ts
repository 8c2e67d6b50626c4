/**
 * A sweep's cost before it spends: every cell's config resolved as its run would resolve
 * it (a missing API key is only a note), estimated from its benchmark's dry-run facts.
 * Cells of one benchmark with the same settings but the seed and method share one read
 * of the data and one set of built prompts.
 */
import { estimateRun, factsFor } from '../app/estimate/estimate-run.js';
import type { CellEstimate } from '../app/estimate/render.js';
import { loadConfig } from '../app/config.js';
import { findBenchmark, type Registry } from '../app/registry.js';
import type { DryRunFacts } from '../core/dry-run.js';
import type { Env } from '../config/interpolate.js';
import { errorMessage } from '../util/errors.js';
import type { Cell } from './plan.js';

export async function estimateCells(cells: readonly Cell[], registry: Registry, opts: { cwd?: string; env?: Env } = {}): Promise<CellEstimate[]> {
  const facts = new Map<string, Promise<DryRunFacts>>();
  const out: CellEstimate[] = [];
  for (const cell of cells) {
    try {
      const bench = findBenchmark(registry, cell.benchmark);
      const cfg = loadConfig(undefined, {}, cell.benchmark, { registry, inspect: true, data: { tree: cell.config, label: `cell ${cell.id}` }, ...opts });
      // What the facts depend on: the benchmark's settings and the run's, not the seed, the method or its sections.
      const key = JSON.stringify([cell.benchmark, cfg.bench, { ...cfg.run, seed: 0, experimentName: '' }, cfg.llm.model, cfg.fidelity.settings]);
      if (!facts.has(key)) facts.set(key, factsFor(bench, cfg));
      out.push({ id: cell.id, estimate: await estimateRun(cfg, bench, await facts.get(key)!) });
    } catch (err) {
      // A cell that cannot be estimated is said, not fatal: its run will say why it cannot start.
      out.push({ id: cell.id, error: errorMessage(err) });
    }
  }
  return out;
}
