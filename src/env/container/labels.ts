/**
 * Labels on every container memrl starts: which run and process own it, so a crashed
 * run's leftovers can be found (`memrl cleanup`) and removed without touching others.
 */
import { hostname } from 'node:os';

export const LABEL = 'dev.memrl';
export const LABEL_ROLE = 'dev.memrl.role';
export const LABEL_RUN = 'dev.memrl.run';
export const LABEL_PID = 'dev.memrl.pid';
export const LABEL_HOST = 'dev.memrl.host';

/** What a container is for: named by whoever starts it (a benchmark names its parts), or 'probe' (doctor). Free text. */
export type ContainerRole = string;

/** The run these containers belong to; set once by the run executor. */
let currentRun = 'none';
export function setContainerRun(runId: string): void {
  currentRun = runId;
}

export function containerLabels(role: ContainerRole): Record<string, string> {
  return { [LABEL]: '1', [LABEL_ROLE]: role, [LABEL_RUN]: currentRun, [LABEL_PID]: String(process.pid), [LABEL_HOST]: hostname() };
}
