/** The outcome matrix a run keeps: what pass@k retries, its metrics, and the error-rate stop. */
import { describe, expect, it } from 'vitest';
import type { OutcomeRow } from '../../src/core/outcome.js';
import { OutcomeMatrix } from '../../src/runner/outcome-matrix.js';

const row = (taskId: string, epoch: number, status: OutcomeRow['status'], phase: OutcomeRow['phase'] = 'train', error?: string): OutcomeRow =>
  ({ benchmark: 'toy', taskId, taskIndex: Number(taskId.slice(1)), epoch, phase, status, success: status === 'pass', reward: status === 'pass' ? 1 : 0, steps: 1, retrievedIds: [], promptTokens: 0, completionTokens: 0, totalTokens: 0, latencyMs: 0, finishedAt: 'x', ...(error ? { error } : {}) }) as OutcomeRow;

describe('OutcomeMatrix', () => {
  it('adds committed rows to the very array reporters were given, and knows the training tasks solved so far', () => {
    const kept = [row('t0', 1, 'pass'), row('v0', 1, 'pass', 'valid')];
    const m = new OutcomeMatrix(kept, { train: ['t0', 't1', 't2'], valid: ['v0'] });
    m.add([row('t1', 2, 'fail'), row('t2', 2, 'pass')]);
    expect(m.rows).toBe(kept);
    expect(kept).toHaveLength(4);
    expect([...m.solved()].sort()).toEqual(['t0', 't2']);
  });

  it('reports validation metrics only once a validation pass ran', () => {
    const m = new OutcomeMatrix([row('t0', 1, 'pass'), row('t1', 1, 'fail')], { train: ['t0', 't1'], valid: ['v0'] });
    expect(m.metrics().valid).toBeUndefined();
    expect(m.metrics().train.epochs.map((e) => e.acc)).toEqual([0.5]);
    m.add([row('v0', 1, 'pass', 'valid')]);
    expect(m.metrics().valid?.epochs.map((e) => e.acc)).toEqual([1]);
  });

  it('names the first error when more than the allowed share of an epoch ended in error, and never without a limit', () => {
    const m = new OutcomeMatrix([row('t0', 1, 'error', 'train', 'sandbox gone'), row('t1', 1, 'pass'), row('t2', 1, 'error', 'train', 'again'), row('t0', 2, 'pass')], { train: ['t0', 't1', 't2'], valid: [] });
    expect(m.failureOf(1, 0.5)).toBe('epoch 1: 2 of 3 episodes ended in error (67% > memrl.max_error_rate 50%); the first: sandbox gone');
    expect(m.failureOf(1, 0.7)).toBeUndefined();
    expect(m.failureOf(2, 0)).toBeUndefined();
    expect(m.failureOf(1, undefined)).toBeUndefined();
    expect(m.failureOf(3, 0)).toBeUndefined();
  });
});
