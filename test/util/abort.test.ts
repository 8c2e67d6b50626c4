import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { onAbort } from '../../src/util/abort.js';

describe('onAbort: many waiters on one signal', () => {
  it('adds one listener to the signal however many wait, and calls each waiter once on abort', () => {
    const ac = new AbortController();
    const calls: number[] = [];
    for (let i = 0; i < 50; i++) onAbort(ac.signal, () => calls.push(i));
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    ac.abort();
    ac.abort();
    expect(calls).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('does not call a waiter that stopped waiting, and a signal left with none can still be waited on', () => {
    const ac = new AbortController();
    const calls: string[] = [];
    const stopA = onAbort(ac.signal, () => calls.push('a'));
    onAbort(ac.signal, () => calls.push('b'));
    stopA();
    stopA();
    ac.abort();
    expect(calls).toEqual(['b']);
  });

  it('never calls a waiter added after the abort, like addEventListener', () => {
    const ac = new AbortController();
    ac.abort();
    let called = false;
    onAbort(ac.signal, () => (called = true))();
    expect(called).toBe(false);
  });

  it('calls the same function once for each time it waits', () => {
    const ac = new AbortController();
    let n = 0;
    const f = (): void => void n++;
    onAbort(ac.signal, f);
    onAbort(ac.signal, f);
    ac.abort();
    expect(n).toBe(2);
  });
});
