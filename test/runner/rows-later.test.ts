/**
 * RowsLater: a committed batch's rows reach the reporters after the calls started next
 * are out, and always before any other event; a bad row stops the run at the next event
 * without reaching a reporter.
 */
import { describe, expect, it } from 'vitest';
import type { OutcomeRow } from '../../src/core/outcome.js';
import { RowsLater, type Emit } from '../../src/runner/rows-later.js';

const row = (taskIndex: number, steps = 1): OutcomeRow =>
  ({ benchmark: 'toy', taskId: `t${taskIndex}`, taskIndex, epoch: 1, phase: 'train', status: 'pass', success: true, reward: 1, steps, retrievedIds: [], promptTokens: 0, completionTokens: 0, totalTokens: 0, latencyMs: 0, finishedAt: '2026-01-01T00:00:00.000Z' }) as OutcomeRow;

function recorder(): { emit: Emit; seen: string[] } {
  const seen: string[] = [];
  const emit: Emit = (hook, ...args) => {
    seen.push(hook === 'onRows' ? `onRows ${(args[0] as OutcomeRow[]).map((r) => r.taskIndex).join(',')}` : hook);
  };
  return { emit, seen };
}

describe('RowsLater', () => {
  it('hands rows on before the next event, or on the next turn of the event loop', async () => {
    const { emit, seen } = recorder();
    const later = new RowsLater(emit);
    later.rows([row(0), row(1)], []);
    expect(seen).toEqual([]);
    later.emit('onPhaseEnd');
    expect(seen).toEqual(['onRows 0,1', 'onPhaseEnd']);
    later.rows([row(2)], []);
    later.flushSoon();
    seen.push('calls started');
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(['onRows 0,1', 'onPhaseEnd', 'calls started', 'onRows 2']);
    later.flush();
    expect(seen).toHaveLength(4);
  });

  it('stops at the next event on an invalid row, which no reporter gets', async () => {
    const { emit, seen } = recorder();
    const later = new RowsLater(emit);
    later.rows([row(0, 1.5)], []);
    later.flushSoon();
    await new Promise((r) => setImmediate(r));
    expect(() => later.emit('onPhaseEnd')).toThrow(/invalid outcome row: steps/);
    expect(seen).toEqual([]);
  });
});
