/**
 * Lifelong-learning metrics on top of acc/CSR/forgetting (src/metrics/compute.ts):
 *   learningGain     = acc_T − acc_1 (train)
 *   stabilityLoss    = mean over t ≥ 2 of max(0, acc_{t−1} − acc_t): how much accuracy
 *                      the run gives back from one epoch to the next (0 for a run that
 *                      never drops)
 *   forgettingRate   = forgetting_flip at T: the mean over epochs of the share of the
 *                      previous epoch's solved tasks that fail now; this is the reading
 *                      of the paper's "forgetting rate" (docs/analysis.md)
 *   backwardTransfer = bwt at T (GEM-style, see compute.ts)
 *   heldOutTransfer  = validation acc at the last validated epoch − validation acc
 *                      before training (epoch 0); null without both
 */
import type { RunInput } from './run-input.js';

export interface Lifelong {
  epochs: number;
  firstAcc: number | null;
  lastAcc: number | null;
  learningGain: number | null;
  stabilityLoss: number | null;
  forgettingRate: number | null;
  forgettingMax: number | null;
  backwardTransfer: number | null;
  heldOutTransfer: number | null;
  /** Why heldOutTransfer is null, when it is. */
  heldOutNote?: string;
}

export function lifelong(run: Pick<RunInput, 'metrics'>): Lifelong {
  const train = run.metrics.train;
  const accs = train.epochs.map((e) => e.acc).filter((a): a is number => a !== null);
  const drops = accs.slice(1).map((a, i) => Math.max(0, accs[i]! - a));
  const valid = run.metrics.valid;
  const v0 = valid?.epochs.find((e) => e.epoch === 0)?.acc ?? null;
  const vLast = valid?.epochs.filter((e) => e.epoch > 0).at(-1)?.acc ?? null;
  const heldOutTransfer = v0 !== null && vLast !== null ? vLast - v0 : null;
  return {
    epochs: train.epochs.length,
    firstAcc: accs[0] ?? null,
    lastAcc: accs.at(-1) ?? null,
    learningGain: accs.length >= 2 ? accs.at(-1)! - accs[0]! : null,
    stabilityLoss: drops.length ? drops.reduce((a, b) => a + b, 0) / drops.length : null,
    forgettingRate: train.forgettingFlip,
    forgettingMax: train.forgettingMax,
    backwardTransfer: train.bwt,
    heldOutTransfer,
    ...(heldOutTransfer === null
      ? { heldOutNote: !valid ? 'no validation ran (--run-validation)' : v0 === null ? 'no validation before training (val_before_train)' : 'no validation after an epoch' }
      : {}),
  };
}
