/**
 * Leftover containers: a run killed with SIGKILL cannot remove its containers, so
 * they carry labels (labels.ts) and are found and removed here, by `memrl cleanup`
 * and at the start of every container-backed run (only those of dead processes).
 */
import { hostname } from 'node:os';
import type { Engine } from './engine.js';
import { LABEL, LABEL_HOST, LABEL_PID, LABEL_ROLE, LABEL_RUN } from './labels.js';

export interface LeftoverContainer {
  id: string;
  role: string;
  run: string;
  pid: number;
  host: string;
  state: string;
}

export async function listMemrlContainers(engine: Engine): Promise<LeftoverContainer[]> {
  const list = await engine.docker.listContainers({ all: true, filters: { label: [`${LABEL}=1`] } });
  return list.map((c) => ({
    id: c.Id,
    role: c.Labels[LABEL_ROLE] ?? '?',
    run: c.Labels[LABEL_RUN] ?? '?',
    pid: Number(c.Labels[LABEL_PID] ?? 0),
    host: c.Labels[LABEL_HOST] ?? '',
    state: c.State,
  }));
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Containers whose memrl process on this host no longer exists. */
export function isOrphan(c: LeftoverContainer, host = hostname()): boolean {
  return c.host === host && c.pid > 0 && c.pid !== process.pid && !processAlive(c.pid);
}

export async function removeContainers(engine: Engine, ids: string[]): Promise<number> {
  let n = 0;
  await Promise.all(
    ids.map(async (id) => {
      try {
        await engine.docker.getContainer(id).remove({ force: true, v: true });
        n++;
      } catch {
        // gone meanwhile
      }
    }),
  );
  return n;
}

/** Removes the leftovers of crashed memrl processes on this host; returns how many. */
export async function sweepOrphans(engine: Engine): Promise<number> {
  const all = await listMemrlContainers(engine);
  return removeContainers(engine, all.filter((c) => isOrphan(c)).map((c) => c.id));
}
