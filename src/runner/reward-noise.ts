/**
 * --reward-noise p: the memory learns from a reward flipped with probability p, to
 * measure how much of the gain survives noisy feedback. The draw is seeded per
 * (run seed, epoch, task), so it is the same whatever the concurrency and on resume;
 * the outcome row keeps the true result and says when the memory was told otherwise.
 */
import type { Outcome } from '../core/outcome.js';
import { Rng } from '../util/rng.js';

export function learningOutcome<O extends Outcome>(o: O, p: number, seed: number, epoch: number, taskId: string): { outcome: O; flipped: boolean } {
  if (p <= 0 || Rng.derive(seed, 'reward-noise', epoch, taskId).next() >= p) return { outcome: o, flipped: false };
  return { outcome: { ...o, success: !o.success, status: o.success ? 'fail' : 'pass' }, flipped: true };
}
