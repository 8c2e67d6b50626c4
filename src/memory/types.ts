/**
 * Types of the MemRL memory engine (see docs/memory-engine.md in shared docs).
 * The engine is pure: no I/O, no clock, no global randomness. Time and RNG come in as arguments.
 */
import type { RngState } from '../util/rng.js';

/** The engine behaviours a method's memory parameters can carry. */
export const MEMORY_METHODS = ['none', 'rag', 'memp', 'memrl'] as const;
export type MemoryMethod = (typeof MEMORY_METHODS)[number];
/** What a new memory holds: a written procedure, the raw trajectory, or a script. */
export const BUILD_STRATEGIES = ['proceduralization', 'trajectory', 'script'] as const;
export type BuildStrategy = (typeof BUILD_STRATEGIES)[number];
export type UpdateStrategy = 'adjustment' | 'vanilla' | 'validation';

/** Where a memory came from, as its writer records it; a method may add its own fields. */
export interface MemoryMeta {
  taskId?: string;
  epoch?: number;
  phase?: string;
  status?: string;
  [field: string]: unknown;
}

export interface MemoryRecord {
  id: string;
  /** The intent key this memory is filed under (an index key; may be shared by a bucket). */
  key: string;
  content: string;
  success: boolean;
  q: number;
  visits: number;
  rewardEma: number;
  lastReward: number | null;
  createdAt: number;
  updatedAt: number;
  /** Ids of the memories injected when the episode that wrote this one ran. */
  relatedIds: string[];
  meta: MemoryMeta;
  /** The task's own key text, when the memory was filed under a different (similar) key's bucket. */
  sourceKey?: string;
  /**
   * Dropped from its bucket when a later memory of the same task text replaced the bucket
   * (the reference's overwrite, switch engine.bucket-overwrite): still stored, never retrieved again.
   */
  detached?: boolean;
}

/** Engine parameters, resolved from rl_config + memory config + method. */
export interface MemoryParams {
  method: MemoryMethod;
  /** Phase A: number of keys kept (memory.k_retrieve). */
  k1: number;
  /** Phase A: inclusive cosine threshold (rl_config.sim_threshold). */
  simThreshold: number;
  /** Phase B: number selected (rl_config.topk). */
  k2: number;
  epsilon: number;
  alpha: number;
  successReward: number;
  failureReward: number;
  qInitPos: number;
  qInitNeg: number;
  qFloor: number | null;
  qMinThreshold: number;
  recencyBoost: number;
  weightSim: number;
  weightQ: number;
  simNormMean: number;
  simNormStd: number;
  /** false = score on raw sim and q (an LLB option). */
  zScore: boolean;
  /** At most one selected memory per meta.taskId (an LLB option). */
  dedupByTaskId: boolean;
  /** memory.add_similarity_threshold: join an existing bucket at or above this sim. */
  addSimilarityThreshold: number;
  updateStrategy: UpdateStrategy;
  /**
   * Not the engine's: the cosine floor the reference's Self-RAG and Mem0 baselines put on
   * their candidates (rl_config.sim_threshold, the retrieval knob the reference's runners
   * share; on HLE rl_config.tau, which its baseline scripts read). Unset: none.
   */
  baselineThreshold?: number;
}

export interface PhaseAKey {
  key: string;
  sim: number;
}

export interface Candidate {
  id: string;
  key: string;
  sim: number;
  /** Q used for scoring (after recency boost / floor). */
  q: number;
  score: number;
  simZ: number;
  qZ: number;
}

/** One uniform shape for every retrieval, empty or not. */
export interface Selection {
  selected: Candidate[];
  /** Candidates after Phase A (before the q_min filter). */
  pool: number;
  /** Keys that passed Phase A with their sims: used later for bucket joining. */
  phaseAKeys: PhaseAKey[];
  /** True when the epsilon draw chose a random subset. */
  explored: boolean;
}

/** One finished episode, as handed to commit() at a batch barrier. */
export interface EpisodeResult {
  /** Ids of memories injected into this episode (Q updates go to exactly these). */
  injectedIds: string[];
  success: boolean;
  /** The experience to write, if the method writes one. */
  newMemory?: NewMemory;
}

export interface NewMemory {
  id: string;
  /** Task key text. */
  key: string;
  /** Embedding of `key`; used only if the key becomes a new index entry. */
  keyEmbedding: Float32Array;
  /** Phase-A keys seen when this task retrieved (for bucket joining). */
  phaseAKeys: PhaseAKey[];
  content: string;
  success: boolean;
  meta: MemoryMeta;
}

export interface CommitReport {
  /** Each Q update in the order applied; `episode` indexes the commit's results (the episode that caused it). */
  qUpdates: { id: string; before: number; after: number; reward: number; episode: number }[];
  added: {
    id: string;
    key: string;
    joinedBucket: boolean;
    /**
     * joined: a similar key's bucket; appended: the exact key text already existed; new: a
     * new index key; replaced: the exact key text existed and its bucket now holds this memory alone.
     */
    placement: 'joined' | 'appended' | 'new' | 'replaced';
  }[];
  /** New memories not stored (method `none`, or a failure under the `validation` update strategy). */
  skipped: { id: string; reason: string }[];
}

/** Everything needed to continue exactly: JSON-serialisable. */
export interface MemorySnapshot {
  version: 1;
  params: MemoryParams;
  records: MemoryRecord[];
  /** Insertion-ordered index: key → base64 little-endian float32 embedding + bucket ids. */
  index: { key: string; embedding: string; ids: string[] }[];
  rng?: RngState;
}
