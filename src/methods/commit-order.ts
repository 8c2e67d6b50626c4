/**
 * The order a batch's experiences are committed in (switch engine.commit-order). The
 * reference's runners hand a batch to memory in the order they collected its
 * trajectories, which for ALFWorld and LLB is finishing order, and update Q one
 * trajectory at a time: a running average (Q ← Q + α(r − Q)) ends elsewhere than in
 * task order. An episode's `finishRank` (core/outcome.ts) says when it finished on its
 * benchmark's clock; a stable sort by it keeps task order among equals, so the order
 * never depends on timing or on --concurrency. memrl's choice is task order.
 */
import type { Fidelity } from '../util/fidelity.js';
import { COMMIT_ORDER } from '../memory/fidelity-switches.js';

/** Indices into `ranks` in commit order. An experience without a rank counts as 0. */
export function commitOrder(ranks: readonly (number | undefined)[], fidelity: Fidelity): number[] {
  const order = ranks.map((_, i) => i);
  if (fidelity.memrl(COMMIT_ORDER)) return order;
  return order.sort((a, b) => (ranks[a] ?? 0) - (ranks[b] ?? 0) || a - b);
}
