/** Constructed runs with known answers for the analysis tests. */
import type { RunInput } from '../../src/analysis/run-input.js';
import type { OutcomeRow } from '../../src/metrics/outcome-row.js';
import { summarize } from '../../src/metrics/summary.js';

export interface RowSpec {
  task: string;
  epoch: number;
  success: boolean;
  ids?: string[];
  q?: number[];
  phase?: 'train' | 'valid';
  status?: OutcomeRow['status'];
  memoryId?: string;
}

export function row(s: RowSpec): OutcomeRow {
  return {
    benchmark: 'toy',
    taskId: s.task,
    taskIndex: Number(s.task.replace(/\D/g, '')) || 0,
    epoch: s.epoch,
    phase: s.phase ?? 'train',
    status: s.status ?? (s.success ? 'pass' : 'fail'),
    success: s.success,
    reward: s.success ? 1 : 0,
    steps: 1,
    retrievedIds: s.ids ?? [],
    retrievedQ: s.q ?? (s.ids ?? []).map(() => 0),
    retrievedSim: (s.ids ?? []).map(() => 0.9),
    pool: (s.ids ?? []).length,
    explored: false,
    promptTokens: 0,
    completionTokens: 0,
    totalTokens: 0,
    latencyMs: 0,
    ...(s.memoryId ? { memoryId: s.memoryId } : {}),
  } as OutcomeRow;
}

export function runOf(rows: OutcomeRow[], over: Partial<RunInput> = {}): RunInput {
  return {
    id: 'r1',
    benchmark: 'toy',
    column: 'toy',
    method: 'memrl',
    seed: 1,
    rows,
    memories: [],
    qHistory: [],
    metrics: summarize(rows),
    keepsMemory: true,
    learnsQ: true,
    ranksBySimilarity: true,
    params: {},
    rewardNoise: 0,
    embedding: null,
    ...over,
  };
}
