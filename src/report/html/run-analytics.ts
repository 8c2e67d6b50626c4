/**
 * Per-run numbers for the HTML report that are not in metrics.json: memory growth,
 * the Q values retrieval saw, how often retrieval changed between epochs, the most
 * used memories, per-category accuracy and token use per role. All derived from
 * the run folder's own files (outcomes.jsonl, memories.jsonl, summary.json).
 */
import { MEMORIES_FILE, readMemories, type SummaryJson } from '../../core/run-files/index.js';
import { join } from 'node:path';
import { quantileSorted } from '../bootstrap.js';
import type { RunFolder } from '../../results/run-folder.js';
import type { BoxStats } from './charts.js';

export interface MemoryUse {
  id: string;
  uses: number;
  key: string | null;
  finalQ: number | null;
  /** Mean Q at retrieval time, per train epoch it was retrieved in. */
  qByEpoch: { epoch: number; q: number }[];
}

export interface CategoryRow {
  value: string;
  tasks: number;
  solved: number;
  acc: number;
}

export interface RoleUsage {
  role: string;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface RunAnalytics {
  /** Memories written by the end of each train epoch (cumulative). */
  memoryCount: { epoch: number; count: number }[];
  /** Distribution of the Q values of retrieved memories, per train epoch. */
  qByEpoch: { epoch: number; stats: BoxStats | null }[];
  /** Per train epoch ≥ 2: share of tasks whose retrieved set differs from the epoch before. */
  retrievalChange: { epoch: number; share: number | null }[];
  topMemories: MemoryUse[];
  /** Final-epoch train accuracy by a task attribute, when rows carry one. */
  breakdown: { field: string; rows: CategoryRow[] } | null;
  usage: RoleUsage[];
  costUsd: number | null;
}

/** Task attributes benchmarks put in `extra`, in the order tried. */
const BREAKDOWN_FIELDS = ['category', 'taskType', 'task_type', 'taskSet', 'answerType'];

export function analyzeRun(run: RunFolder, topN = 5): RunAnalytics {
  const train = run.rows.filter((r) => r.phase === 'train');
  const epochs = [...new Set(train.map((r) => r.epoch))].sort((a, b) => a - b);

  let written = 0;
  const memoryCount = epochs.map((e) => {
    written += train.filter((r) => r.epoch === e && r.memoryId !== undefined).length;
    return { epoch: e, count: written };
  });

  const qByEpoch = epochs.map((e) => ({ epoch: e, stats: boxStats(train.filter((r) => r.epoch === e).flatMap((r) => r.retrievedQ ?? [])) }));

  const setOf = new Map<string, string>();
  for (const r of train) setOf.set(`${r.epoch}\u0000${r.taskId}`, [...r.retrievedIds].sort().join('\u0000'));
  const retrievalChange = epochs.slice(1).map((e, i) => {
    const prev = epochs[i]!;
    let both = 0;
    let changed = 0;
    for (const r of train.filter((x) => x.epoch === e)) {
      const before = setOf.get(`${prev}\u0000${r.taskId}`);
      if (before === undefined) continue;
      both++;
      if (before !== setOf.get(`${e}\u0000${r.taskId}`)) changed++;
    }
    return { epoch: e, share: both === 0 ? null : changed / both };
  });

  return {
    memoryCount,
    qByEpoch,
    retrievalChange,
    topMemories: topMemories(run, train, topN),
    breakdown: breakdown(train, epochs.at(-1)),
    ...usage(run.summary),
  };
}

export function boxStats(values: readonly number[]): BoxStats | null {
  if (values.length === 0) return null;
  const s = Float64Array.from(values).sort();
  return { min: s[0]!, q1: quantileSorted(s, 0.25), median: quantileSorted(s, 0.5), q3: quantileSorted(s, 0.75), max: s[s.length - 1]!, n: s.length };
}

function memoriesById(dir: string): Map<string, { key: string; q: number }> {
  return new Map(readMemories(join(dir, MEMORIES_FILE)).map((m) => [m.id, { key: m.key, q: m.q }]));
}

function topMemories(run: RunFolder, train: RunFolder['rows'], topN: number): MemoryUse[] {
  const uses = new Map<string, number>();
  const qs = new Map<string, Map<number, number[]>>();
  for (const r of train) {
    r.retrievedIds.forEach((id, i) => {
      uses.set(id, (uses.get(id) ?? 0) + 1);
      const q = r.retrievedQ?.[i];
      if (q === undefined) return;
      const perEpoch = qs.get(id) ?? new Map<number, number[]>();
      perEpoch.set(r.epoch, [...(perEpoch.get(r.epoch) ?? []), q]);
      qs.set(id, perEpoch);
    });
  }
  if (uses.size === 0) return [];
  const memories = memoriesById(run.dir);
  return [...uses]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, topN)
    .map(([id, n]) => ({
      id,
      uses: n,
      key: memories.get(id)?.key ?? null,
      finalQ: memories.get(id)?.q ?? null,
      qByEpoch: [...(qs.get(id) ?? new Map<number, number[]>())]
        .sort((a, b) => a[0] - b[0])
        .map(([epoch, v]) => ({ epoch, q: v.reduce((s, x) => s + x, 0) / v.length })),
    }));
}

function breakdown(train: RunFolder['rows'], last: number | undefined): RunAnalytics['breakdown'] {
  if (last === undefined) return null;
  const final = train.filter((r) => r.epoch === last);
  const field = BREAKDOWN_FIELDS.find((f) => final.some((r) => typeof r.extra?.[f] === 'string'));
  if (!field) return null;
  const groups = new Map<string, { tasks: number; solved: number }>();
  for (const r of final) {
    const v = typeof r.extra?.[field] === 'string' ? (r.extra[field] as string) : '(none)';
    const g = groups.get(v) ?? { tasks: 0, solved: 0 };
    g.tasks++;
    if (r.success) g.solved++;
    groups.set(v, g);
  }
  return {
    field,
    rows: [...groups].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([value, g]) => ({ value, ...g, acc: g.solved / g.tasks })),
  };
}

function usage(summary: SummaryJson | null): { usage: RoleUsage[]; costUsd: number | null } {
  if (!summary) return { usage: [], costUsd: null };
  const usage = Object.entries(summary.usage.byRole).map(([role, v]) => ({
    role,
    calls: v.calls,
    promptTokens: v.promptTokens,
    completionTokens: v.completionTokens,
    totalTokens: v.totalTokens,
  }));
  return { usage, costUsd: summary.usage.costUsd };
}
