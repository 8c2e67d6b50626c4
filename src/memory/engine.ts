import { UserError } from '../util/errors.js';
import type { Rng } from '../util/rng.js';
import { KeyIndex } from './key-index.js';
import { checkMemoryParams } from './params.js';
import { applyReward, rewardFor } from './q-update.js';
import { pickFromRanked, rankPool, simZScore, type PoolEntry } from './select.js';
import { computeStats, type MemoryStats } from './stats.js';
import type {
  Candidate,
  CommitReport,
  EpisodeResult,
  MemoryMeta,
  MemoryParams,
  MemoryRecord,
  MemorySnapshot,
  NewMemory,
  PhaseAKey,
  Selection,
} from './types.js';
import { decodeFloat32, encodeFloat32 } from './vectors.js';

/** A memory placed directly, bypassing an episode: for the replay tool, tests and imports. */
export interface DirectInsert {
  id: string;
  key: string;
  /** Needed only when `key` is not in the index yet. */
  embedding?: Float32Array | readonly number[];
  content?: string;
  success?: boolean;
  /** Defaults to q_init_pos / q_init_neg by `success`. */
  q?: number;
  meta?: MemoryMeta;
  relatedIds?: string[];
  now?: number;
}

export interface EngineOptions {
  /** Embedding dimension, if known up front (otherwise set by the first key). */
  dim?: number;
  /** Expected number of keys: pre-allocates the embedding matrix once (needs `dim`). */
  capacity?: number;
  /**
   * The reference's buckets (switch engine.bucket-overwrite): a memory that joins no similar
   * key replaces its task text's bucket, and a retrieval whose pool q_min emptied offers
   * no keys to join. Default false: append, and join on Phase A's keys.
   */
  bucketOverwrite?: boolean;
}

type Placement = { kind: 'joined'; keyIdx: number } | { kind: 'appended' | 'replaced'; key: string } | { kind: 'new' };

const emptySelection = (): Selection => ({ selected: [], pool: 0, phaseAKeys: [], explored: false });

/**
 * The MemRL memory: records + intent index, two-phase retrieval and the batch
 * commit (Q updates, then new memories). Pure: time and randomness come in as
 * arguments, so a run is reproducible and a snapshot resumes bit-identically.
 */
export class MemoryEngine {
  readonly params: Readonly<MemoryParams>;
  private readonly index: KeyIndex;
  private readonly byId = new Map<string, MemoryRecord>();
  private readonly bucketOverwrite: boolean;

  constructor(params: MemoryParams, opts: EngineOptions = {}) {
    const problems = checkMemoryParams(params);
    if (problems.length > 0) throw new UserError(`invalid memory parameters: ${problems.join('; ')}`);
    this.params = Object.freeze({ ...params });
    this.index = new KeyIndex(opts);
    this.bucketOverwrite = opts.bucketOverwrite === true;
  }

  /** Number of memories. */
  get size(): number {
    return this.byId.size;
  }

  /** Number of intent keys (buckets). */
  get keyCount(): number {
    return this.index.size;
  }

  /** Embedding dimension (0 while empty and not given). */
  get dimension(): number {
    return this.index.dimension;
  }

  get(id: string): Readonly<MemoryRecord> | undefined {
    return this.byId.get(id);
  }

  /** All memories in insertion order. Treat as read-only: the engine owns them. */
  records(): readonly Readonly<MemoryRecord>[] {
    return [...this.byId.values()];
  }

  /** The intent index in insertion order. */
  keys(): { key: string; ids: readonly string[] }[] {
    const out: { key: string; ids: readonly string[] }[] = [];
    for (let i = 0; i < this.index.size; i++) out.push({ key: this.index.keyAt(i), ids: this.index.bucketAt(i).slice() });
    return out;
  }

  /** Memory ids filed under an exact key text (empty if the key is unknown). */
  bucket(key: string): readonly string[] {
    const i = this.index.indexOf(key);
    return i < 0 ? [] : this.index.bucketAt(i).slice();
  }

  stats(): MemoryStats {
    return computeStats(this.byId.values(), this.index.size);
  }

  /** Pre-allocate room for `keys` index keys (the bench uses this to allocate once). */
  reserve(keys: number): void {
    this.index.reserve(keys);
  }

  /** Read-only view of the key embeddings, row-major (for benchmarks comparing against a raw scan). */
  embeddingRows(): Float32Array {
    return this.index.rows();
  }

  // ---------------------------------------------------------------- retrieval

  /**
   * Select memories for one task. `none` → nothing; `rag` / `memp` → Phase A
   * then the k2 most similar (Q plays no part); `memrl` → Phase A + Phase B.
   * `rng` is used only by memrl (one draw per retrieval with a non-empty pool,
   * plus a shuffle when exploring).
   */
  retrieve(queryEmbedding: Float32Array, rng: Rng): Selection {
    const p = this.params;
    if (p.method === 'none' || this.index.size === 0) return emptySelection();
    const { idx, sims } = this.index.search(queryEmbedding, p.simThreshold, p.k1);
    const phaseAKeys: PhaseAKey[] = idx.map((i, r) => ({ key: this.index.keyAt(i), sim: sims[r] as number }));
    const pool: PoolEntry[] = [];
    idx.forEach((i, r) => {
      const key = this.index.keyAt(i);
      const sim = sims[r] as number;
      for (const id of this.index.bucketAt(i)) pool.push({ id, key, sim, q: this.mustGet(id).q });
    });

    if (p.method !== 'memrl') {
      // Similarity only: the pool is already in (sim desc, key order, bucket order).
      const selected: Candidate[] = pool.slice(0, p.k2).map((e) => ({
        id: e.id,
        key: e.key,
        sim: e.sim,
        q: e.q,
        score: e.sim,
        simZ: simZScore(e.sim, p),
        qZ: 0,
      }));
      return { selected, pool: pool.length, phaseAKeys, explored: false };
    }

    const ranked = rankPool(pool, p);
    // The reference returns no key list when q_min removed every candidate, so the memory written joins nothing.
    if (ranked.length === 0 && this.bucketOverwrite) return { selected: [], pool: pool.length, phaseAKeys: [], explored: false };
    const { selected, explored } = pickFromRanked(ranked, p, (id) => taskIdOf(this.byId.get(id)), rng);
    return { selected, pool: pool.length, phaseAKeys, explored };
  }

  // ------------------------------------------------------------------- commit

  /**
   * The batch barrier. `results` come in the order to apply them (task order, or
   * the reference's collection order: methods/commit-order.ts). First every injected
   * memory of every episode is updated in that order (memrl only), then the new
   * memories are filed in it. Everything is validated before anything changes, so
   * a bad batch leaves the engine untouched.
   */
  commit(results: readonly EpisodeResult[], now: number): CommitReport {
    const p = this.params;
    const report: CommitReport = { qUpdates: [], added: [], skipped: [] };

    for (const [i, r] of results.entries()) {
      for (const id of r.injectedIds) {
        if (!this.byId.has(id)) throw new Error(`commit: episode ${i} injected unknown memory id ${id}`);
      }
    }
    const plan = this.planAdds(results, report);

    if (p.method === 'memrl') {
      for (const [episode, r] of results.entries()) {
        const reward = rewardFor(r.success, p);
        // A memory appears once per prompt; repeated ids in one episode count once.
        for (const id of new Set(r.injectedIds)) {
          const rec = this.mustGet(id);
          const before = applyReward(rec, reward, p, now);
          report.qUpdates.push({ id, before, after: rec.q, reward, episode });
        }
      }
    }

    for (const { result, mem, placement } of plan) {
      const rec = this.fileMemory(mem, placement, result.injectedIds, now);
      report.added.push({
        id: rec.id,
        key: rec.key,
        joinedBucket: placement.kind === 'joined',
        placement: placement.kind,
      });
    }
    return report;
  }

  /** Decide where each new memory goes, validating ids and embeddings; mutates nothing. */
  private planAdds(
    results: readonly EpisodeResult[],
    report: CommitReport,
  ): { result: EpisodeResult; mem: NewMemory; placement: Placement }[] {
    const p = this.params;
    const plan: { result: EpisodeResult; mem: NewMemory; placement: Placement }[] = [];
    const newIds = new Set<string>();
    const pendingKeys = new Set<string>();
    let dim = this.index.dimension;
    for (const result of results) {
      const mem = result.newMemory;
      if (!mem) continue;
      if (this.byId.has(mem.id) || newIds.has(mem.id)) throw new Error(`commit: duplicate memory id ${mem.id}`);
      newIds.add(mem.id);
      if (p.method === 'none') {
        report.skipped.push({ id: mem.id, reason: 'method none writes no memories' });
        continue;
      }
      if (p.updateStrategy === 'validation' && !mem.success) {
        report.skipped.push({ id: mem.id, reason: 'validation strategy stores successes only' });
        continue;
      }
      const join = this.bestJoin(mem.phaseAKeys);
      let placement: Placement;
      if (join >= 0) {
        placement = { kind: 'joined', keyIdx: join };
      } else if (this.index.indexOf(mem.key) >= 0 || pendingKeys.has(mem.key)) {
        placement = { kind: this.bucketOverwrite ? 'replaced' : 'appended', key: mem.key };
      } else {
        if (dim === 0) dim = mem.keyEmbedding.length;
        if (mem.keyEmbedding.length === 0 || mem.keyEmbedding.length !== dim) {
          throw new Error(`commit: memory ${mem.id} key embedding has ${mem.keyEmbedding.length} dims, index has ${dim}`);
        }
        pendingKeys.add(mem.key);
        placement = { kind: 'new' };
      }
      plan.push({ result, mem, placement });
    }
    return plan;
  }

  /** Index of the Phase-A key with the highest sim >= add threshold (first wins ties); -1 if none. */
  private bestJoin(keys: readonly PhaseAKey[]): number {
    let best = -1;
    let bestSim = -Infinity;
    for (const k of keys) {
      if (!(k.sim >= this.params.addSimilarityThreshold) || !(k.sim > bestSim)) continue;
      const i = this.index.indexOf(k.key);
      if (i < 0) throw new Error(`commit: Phase-A key not in the index: ${JSON.stringify(k.key.slice(0, 60))}`);
      best = i;
      bestSim = k.sim;
    }
    return best;
  }

  private fileMemory(mem: NewMemory, placement: Placement, injectedIds: readonly string[], now: number): MemoryRecord {
    const p = this.params;
    let key: string;
    if (placement.kind === 'joined') {
      key = this.index.keyAt(placement.keyIdx);
      this.index.append(placement.keyIdx, mem.id);
    } else if (placement.kind === 'appended') {
      // Same task text seen before: append to its bucket (the reference overwrote it and lost memories).
      key = placement.key;
      this.index.append(this.index.indexOf(key), mem.id);
    } else if (placement.kind === 'replaced') {
      // The reference's overwrite: the bucket holds this memory alone; the ones it held stay stored, unreachable.
      key = placement.key;
      for (const id of this.index.replaceBucket(this.index.indexOf(key), [mem.id])) this.mustGet(id).detached = true;
    } else {
      key = mem.key;
      this.index.addKey(key, mem.keyEmbedding, [mem.id]);
    }
    const rec: MemoryRecord = {
      id: mem.id,
      key,
      content: mem.content,
      success: mem.success,
      q: mem.success ? p.qInitPos : p.qInitNeg,
      visits: 0,
      rewardEma: 0,
      lastReward: null,
      createdAt: now,
      updatedAt: now,
      relatedIds: [...new Set(injectedIds)],
      meta: { ...mem.meta },
    };
    if (key !== mem.key) rec.sourceKey = mem.key;
    this.byId.set(rec.id, rec);
    return rec;
  }

  /**
   * Place a memory directly (replay tool, tests, imports): appended to the bucket
   * of `key` if it exists, else a new key with `embedding`. No Q update happens.
   */
  insertDirect(input: DirectInsert): Readonly<MemoryRecord> {
    if (this.byId.has(input.id)) throw new Error(`insertDirect: duplicate memory id ${input.id}`);
    const success = input.success ?? true;
    const now = input.now ?? 0;
    const existing = this.index.indexOf(input.key);
    if (existing >= 0) {
      this.index.append(existing, input.id);
    } else {
      if (!input.embedding) throw new Error(`insertDirect: key ${JSON.stringify(input.key)} is new and needs an embedding`);
      const emb = input.embedding instanceof Float32Array ? input.embedding : Float32Array.from(input.embedding);
      this.index.addKey(input.key, emb, [input.id]);
    }
    const rec: MemoryRecord = {
      id: input.id,
      key: input.key,
      content: input.content ?? '',
      success,
      q: input.q ?? (success ? this.params.qInitPos : this.params.qInitNeg),
      visits: 0,
      rewardEma: 0,
      lastReward: null,
      createdAt: now,
      updatedAt: now,
      relatedIds: input.relatedIds?.slice() ?? [],
      meta: { ...(input.meta ?? {}) },
    };
    this.byId.set(rec.id, rec);
    return rec;
  }

  // ---------------------------------------------------------------- snapshots

  /** Everything needed to continue exactly, JSON-serialisable (the caller adds its RNG state). */
  snapshot(): MemorySnapshot {
    const index: MemorySnapshot['index'] = [];
    for (let i = 0; i < this.index.size; i++) {
      index.push({
        key: this.index.keyAt(i),
        embedding: encodeFloat32(this.index.embeddingAt(i)),
        ids: this.index.bucketAt(i).slice(),
      });
    }
    return {
      version: 1,
      params: { ...this.params },
      records: [...this.byId.values()].map(cloneRecord),
      index,
    };
  }

  /** Rebuild an engine from a snapshot, keeping record, key and bucket order exactly. */
  static restore(s: MemorySnapshot, opts: EngineOptions = {}): MemoryEngine {
    if (s.version !== 1) throw new UserError(`memory snapshot: unsupported version ${String(s.version)} (expected 1)`);
    const embeddings = s.index.map((e) => decodeFloat32(e.embedding));
    const dim = embeddings[0]?.length ?? opts.dim ?? 0;
    // Allocate the matrix once at the snapshot's size.
    const engine = new MemoryEngine(s.params, { ...opts, dim, capacity: Math.max(s.index.length, opts.capacity ?? 0) });
    const owner = new Map<string, string>();
    for (const [i, entry] of s.index.entries()) {
      engine.index.addKey(entry.key, embeddings[i] as Float32Array, entry.ids);
      for (const id of entry.ids) {
        if (owner.has(id)) throw new UserError(`memory snapshot: memory ${id} is in two buckets`);
        owner.set(id, entry.key);
      }
    }
    for (const r of s.records) {
      if (engine.byId.has(r.id)) throw new UserError(`memory snapshot: duplicate memory id ${r.id}`);
      const key = owner.get(r.id);
      if (r.detached === true) {
        // Dropped from its bucket by an overwrite: stored, in no bucket.
        if (key !== undefined) throw new UserError(`memory snapshot: memory ${r.id} is detached but still in a bucket`);
      } else {
        if (key === undefined) throw new UserError(`memory snapshot: memory ${r.id} is in no bucket`);
        if (key !== r.key) throw new UserError(`memory snapshot: memory ${r.id} says key ${JSON.stringify(r.key)} but is filed elsewhere`);
      }
      engine.byId.set(r.id, cloneRecord(r));
    }
    for (const id of owner.keys()) if (!engine.byId.has(id)) throw new UserError('memory snapshot: the index names memories that have no record');
    return engine;
  }

  private mustGet(id: string): MemoryRecord {
    const rec = this.byId.get(id);
    if (!rec) throw new Error(`memory ${id} not found`);
    return rec;
  }
}

function cloneRecord(r: MemoryRecord): MemoryRecord {
  const out: MemoryRecord = { ...r, relatedIds: r.relatedIds.slice(), meta: structuredClone(r.meta) };
  return out;
}

function taskIdOf(rec: MemoryRecord | undefined): string | undefined {
  const t = rec?.meta.taskId;
  return t === undefined || t === null ? undefined : String(t);
}
