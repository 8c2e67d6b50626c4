/**
 * What the analyses read from one run: its rows, its memories (final state, with
 * provenance), the memory's Q after each epoch, and the manifest facts that decide
 * which analyses apply. Built from a run folder, or by hand in tests.
 */
import { join } from 'node:path';
import type { ConfigTree } from '../config/types.js';
import { MEMORIES_FILE, Q_HISTORY_FILE, readMemories, readQHistory, type MemoryLine, type OutcomeRow, type QSnapshot } from '../core/run-files/index.js';
import type { MemoryParams } from '../memory/types.js';
import type { RunSummary } from '../metrics/summary.js';
import type { RunFolder } from '../results/run-folder.js';

export interface MemoryFacts {
  id: string;
  key: string;
  success: boolean;
  /** Q at the end of the run. */
  q: number;
  /** The task whose episode wrote it, and when. */
  taskId?: string;
  epoch?: number;
}

export interface RunInput {
  id: string;
  benchmark: string;
  /** The results-table column (llb-db, llb-os, or the benchmark). */
  column: string;
  method: string;
  seed: number | null;
  rows: readonly OutcomeRow[];
  memories: readonly MemoryFacts[];
  qHistory: readonly QSnapshot[];
  metrics: RunSummary;
  /** The method keeps memories: not none/passk, and for any other method, the run wrote or retrieved one. */
  keepsMemory: boolean;
  /** The method learns Q from rewards: it declares memrl's engine, or some memory's Q changed during the run. */
  learnsQ: boolean;
  /** Its retrievals carry similarities (rows' retrievedSim), i.e. it ranks memories by similarity. */
  ranksBySimilarity: boolean;
  /** The engine parameters as run (k1, k2, weightQ, …), for ablations; none for a run not started by memrl run. */
  params: Partial<MemoryParams>;
  /** Probability with which the learning signal was flipped (--reward-noise); 0 = clean. */
  rewardNoise: number;
  /** The embedding config as run (its section of the recorded config), to embed task keys again for the similarity analysis. */
  embedding: ConfigTree | null;
}

/** Built-in methods that never keep a memory. */
export const NO_MEMORY_METHODS: ReadonlySet<string> = new Set(['none', 'passk']);

export function runInputOf(run: RunFolder): RunInput {
  const params: Partial<MemoryParams> = run.manifest.memoryParams ?? {};
  const config = run.manifest.config ?? {};
  const memrlSection = subtree(config.memrl);
  const memories = readMemories(join(run.dir, MEMORIES_FILE)).map(factsOf);
  const qHistory = readQHistory(join(run.dir, Q_HISTORY_FILE));
  return {
    id: run.id,
    benchmark: run.benchmark,
    column: run.column,
    method: run.method,
    seed: run.seed,
    rows: run.rows,
    memories,
    qHistory,
    metrics: run.metrics,
    keepsMemory: !NO_MEMORY_METHODS.has(run.method) && (memories.length > 0 || run.rows.some((r) => r.retrievedIds.length > 0)),
    // Declared (the engine it runs on, in run.json's memoryParams), else seen: a plug-in's own Q counts once it moves.
    learnsQ: (params.method ?? run.method) === 'memrl' || qChanged(qHistory, run.rows),
    ranksBySimilarity: run.rows.some((r) => (r.retrievedSim ?? []).some((s) => s !== 0)),
    params,
    rewardNoise: typeof memrlSection.reward_noise === 'number' ? memrlSection.reward_noise : 0,
    embedding: config.embedding === undefined ? null : subtree(config.embedding),
  };
}

/** A section of the recorded config (none: empty). */
function subtree(v: unknown): ConfigTree {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as ConfigTree) : {};
}

function factsOf(r: MemoryLine): MemoryFacts {
  return {
    id: r.id,
    key: r.sourceKey ?? r.key,
    success: r.success,
    q: r.q,
    ...(r.meta.taskId !== undefined ? { taskId: r.meta.taskId } : {}),
    ...(r.meta.epoch !== undefined ? { epoch: r.meta.epoch } : {}),
  };
}

/** Some memory's Q differs between two epochs' snapshots, or between two retrievals of it. */
function qChanged(history: readonly QSnapshot[], rows: readonly OutcomeRow[]): boolean {
  const first = new Map<string, number>();
  const differs = (id: string, q: number | undefined): boolean => {
    if (q === undefined) return false;
    const was = first.get(id);
    if (was === undefined) first.set(id, q);
    return was !== undefined && was !== q;
  };
  if (history.some((s) => s.ids.some((id, i) => differs(id, s.q[i])))) return true;
  first.clear();
  return rows.some((r) => r.retrievedIds.some((id, i) => differs(id, r.retrievedQ?.[i])));
}
