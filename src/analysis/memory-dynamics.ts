/**
 * How the memory moves, epoch by epoch (training phase): the Q distribution, what was
 * added, what is never retrieved, how much the injected memories change for the same
 * task (churn), the success/failure mix of what is injected, and the "high-Q failure
 * memories" (failure memories with a high Q, and how the episodes that used them did).
 */
import type { OutcomeRow } from '../metrics/outcome-row.js';
import { scoredRows } from './q-critic.js';
import type { RunInput } from './run-input.js';
import { quantiles, type Quantiles } from './stats.js';

export interface EpochDynamics {
  epoch: number;
  /** Memories at the end of the epoch (from q-history.jsonl; null without it). */
  memories: number | null;
  q: Quantiles | null;
  qSuccessMemories: Quantiles | null;
  qFailureMemories: Quantiles | null;
  added: number;
  /** Memories existing at the end of the epoch that no episode has injected so far. */
  neverRetrieved: number | null;
  /** Σ over tasks of |injected now ∖ injected last epoch| / Σ |injected now|; 0 when nothing is injected. */
  churn: number | null;
  injected: number;
  /** Share of injected memories that record a success (null: nothing injected, or unknown memories). */
  injectedSuccessShare: number | null;
}

export interface HighQFailure {
  id: string;
  taskId?: string;
  /** Episodes that injected it while its Q was above the threshold. */
  uses: number;
  successRate: number;
  maxQ: number;
}

export interface MemoryDynamics {
  epochs: EpochDynamics[];
  /** Over the whole run. */
  neverRetrieved: number;
  highQFailures: {
    threshold: number;
    memories: HighQFailure[];
    /** Success rate of episodes that injected at least one, and of those that injected memories but none of them. */
    successWith: number | null;
    successWithout: number | null;
  };
}

export function memoryDynamics(run: Pick<RunInput, 'rows' | 'memories' | 'qHistory'>, opts: { highQ?: number } = {}): MemoryDynamics {
  const threshold = opts.highQ ?? 0.5;
  const train = run.rows.filter((r) => r.phase === 'train');
  const epochs = [...new Set(train.map((r) => r.epoch))].sort((a, b) => a - b);
  const successOf = new Map<string, boolean>(run.memories.map((m) => [m.id, m.success]));
  for (const snap of run.qHistory) snap.ids.forEach((id, i) => successOf.has(id) || snap.success[i] === undefined || successOf.set(id, snap.success[i]!));
  const snapOf = new Map(run.qHistory.map((s) => [s.epoch, s]));
  const retrievedSoFar = new Set<string>();
  const injectedBefore = new Map<string, Set<string>>();
  const out: EpochDynamics[] = [];
  let prevIds = new Set<string>();
  for (const epoch of epochs) {
    const rows = train.filter((r) => r.epoch === epoch);
    for (const r of rows) for (const id of r.retrievedIds) retrievedSoFar.add(id);
    const snap = snapOf.get(epoch);
    const ids = snap ? new Set(snap.ids) : null;
    const added = ids ? [...ids].filter((id) => !prevIds.has(id)).length : rows.filter((r) => r.memoryId).length;
    // Churn: only tasks that ran in the previous epoch can have changed what they inject.
    let changed = 0;
    let total = 0;
    const now = new Map<string, Set<string>>();
    for (const r of rows) {
      const set = new Set(r.retrievedIds);
      now.set(r.taskId, set);
      const before = injectedBefore.get(r.taskId);
      if (!before) continue;
      total += set.size;
      for (const id of set) if (!before.has(id)) changed++;
    }
    const injected = rows.flatMap((r) => r.retrievedIds);
    const known = injected.filter((id) => successOf.has(id));
    out.push({
      epoch,
      memories: snap ? snap.ids.length : null,
      q: snap ? quantiles(snap.q) : null,
      qSuccessMemories: snap ? quantiles(snap.q.filter((_, i) => snap.success[i] === true)) : null,
      qFailureMemories: snap ? quantiles(snap.q.filter((_, i) => snap.success[i] === false)) : null,
      added,
      neverRetrieved: ids ? [...ids].filter((id) => !retrievedSoFar.has(id)).length : null,
      churn: injectedBefore.size === 0 ? null : total === 0 ? 0 : changed / total,
      injected: injected.length,
      injectedSuccessShare: known.length === 0 ? null : known.filter((id) => successOf.get(id)).length / known.length,
    });
    for (const [task, set] of now) injectedBefore.set(task, set);
    if (ids) prevIds = ids;
  }
  const allRetrieved = new Set(run.rows.flatMap((r) => r.retrievedIds));
  return {
    epochs: out,
    neverRetrieved: run.memories.filter((m) => !allRetrieved.has(m.id)).length,
    highQFailures: highQFailures(scoredRows(run.rows), successOf, new Map(run.memories.flatMap((m) => (m.taskId ? [[m.id, m.taskId] as const] : []))), threshold),
  };
}

function highQFailures(rows: readonly OutcomeRow[], successOf: ReadonlyMap<string, boolean>, taskOf: ReadonlyMap<string, string>, threshold: number): MemoryDynamics['highQFailures'] {
  const uses = new Map<string, { n: number; s: number; maxQ: number }>();
  let withN = 0;
  let withS = 0;
  let withoutN = 0;
  let withoutS = 0;
  for (const r of rows) {
    if (r.retrievedIds.length === 0 || !r.retrievedQ) continue;
    let hit = false;
    r.retrievedIds.forEach((id, i) => {
      const q = r.retrievedQ![i]!;
      if (successOf.get(id) !== false || q <= threshold) return;
      hit = true;
      const u = uses.get(id) ?? { n: 0, s: 0, maxQ: -Infinity };
      u.n++;
      u.s += r.success ? 1 : 0;
      u.maxQ = Math.max(u.maxQ, q);
      uses.set(id, u);
    });
    if (hit) {
      withN++;
      withS += r.success ? 1 : 0;
    } else {
      withoutN++;
      withoutS += r.success ? 1 : 0;
    }
  }
  const memories = [...uses.entries()]
    .map(([id, u]) => ({ id, ...(taskOf.has(id) ? { taskId: taskOf.get(id)! } : {}), uses: u.n, successRate: u.s / u.n, maxQ: u.maxQ }))
    .sort((a, b) => b.uses - a.uses || b.maxQ - a.maxQ || a.id.localeCompare(b.id));
  return { threshold, memories, successWith: withN ? withS / withN : null, successWithout: withoutN ? withoutS / withoutN : null };
}
