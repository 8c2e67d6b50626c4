/**
 * Reacting to a run's AbortSignal from many places at once. A run hands its one signal
 * to every model call, sandbox and queued episode it has in flight; adding a listener
 * for each made Node print "MaxListenersExceededWarning: Possible EventTarget memory
 * leak detected" as soon as more than 10 were in flight (`--concurrency 16` against a
 * real endpoint). Here a signal gets one listener, whatever the number of waiters.
 */

const waiters = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `fn` once when `signal` aborts, like addEventListener('abort', fn, { once: true }):
 * not at all if the signal has aborted already (check `signal.aborted` first). Returns
 * the way to stop waiting; call it when the work ends, or the waiter stays until the
 * signal aborts or is collected.
 */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  if (signal.aborted) return () => undefined;
  let set = waiters.get(signal);
  if (!set) {
    const all = new Set<() => void>();
    signal.addEventListener(
      'abort',
      () => {
        waiters.delete(signal);
        // Each waiter runs even if one throws, as separate listeners would.
        let first: { err: unknown } | undefined;
        for (const f of all) {
          try {
            f();
          } catch (err) {
            first ??= { err };
          }
        }
        if (first) throw first.err;
      },
      { once: true },
    );
    waiters.set(signal, all);
    set = all;
  }
  // A wrapper per call: the same function may wait twice.
  const entry = (): void => fn();
  set.add(entry);
  const own = set;
  return () => void own.delete(entry);
}
