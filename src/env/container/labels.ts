/**
 * Labels on every container memrl starts: which run and process own it, so a crashed
 * run's leftovers can be found (`memrl cleanup`) and removed without touching others.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { hostname } from 'node:os';

export const LABEL = 'dev.memrl';
export const LABEL_ROLE = 'dev.memrl.role';
export const LABEL_RUN = 'dev.memrl.run';
export const LABEL_PID = 'dev.memrl.pid';
export const LABEL_HOST = 'dev.memrl.host';

/** What a container is for: named by whoever starts it (a benchmark names its parts), or 'probe' (doctor). Free text. */
export type ContainerRole = string;

/**
 * The run a container belongs to is the run whose work started it. One process can hold
 * several runs (a sweep's cells, a worker serving many runs), so the run id travels with
 * the run's async work rather than living in a process-wide variable.
 */
const runOfWork = new AsyncLocalStorage<string>();

/** Runs `work` (and everything it starts, now or later) as work of run `runId`. */
export function asWorkOfRun<T>(runId: string, work: () => T): T {
  return runOfWork.run(runId, work);
}

export function containerLabels(role: ContainerRole): Record<string, string> {
  return { [LABEL]: '1', [LABEL_ROLE]: role, [LABEL_RUN]: runOfWork.getStore() ?? 'none', [LABEL_PID]: String(process.pid), [LABEL_HOST]: hostname() };
}
