/** Self-RAG's instance (selfrag.ts is its light module: name, help, settings section). */
import type { InjectedMemory, TaskBase } from '../core/benchmark.js';
import type { Experience, FinishedEpisode, MethodContext, MethodInstance, MethodStats, Retrieval, RetrievalQuery, RetrievalRecord } from '../core/method.js';
import { computeStats } from '../memory/stats.js';
import type { MemoryRecord } from '../memory/types.js';
import { decodeFloat32, encodeFloat32, NORM_FLOOR } from '../memory/vectors.js';
import { mapPool } from '../util/pool.js';
import { chooseCandidates, type DecisionCalls } from './selfrag-decide.js';
import { commitOrder } from './commit-order.js';
import { experienceText } from './experience.js';
import { FallbackTally } from './fallbacks.js';
import { DECISION_PARSE, GATE_CALL, type SelfRagSettings } from './selfrag-settings.js';

/** Gate and decision calls in flight at once inside a batch (each task's calls are independent). */
const DECISION_CONCURRENCY = 4;

interface Stored {
  id: string;
  taskId: string;
  key: string;
  content: string;
  success: boolean;
  status: string;
  epoch: number;
  at: number;
  vector: Float32Array;
}

/** What the checkpoint keeps of one stored experience (the vector as base64 float32). */
type SavedExperience = Omit<Stored, 'vector'> & { embedding: string };

interface SelfRagState {
  selfrag: 1;
  experiences: SavedExperience[];
  /** Fallbacks counted up to the checkpoint, by kind (absent in older checkpoints). */
  fallbacks?: Record<string, number>;
}

/** A training episode's experience, plain JSON for the journal; committed as it is. */
interface SelfRagExperience extends Experience, Omit<Stored, 'id' | 'at' | 'vector'> {
  memoryId: string;
  /** The key's vector as base64 float32. */
  embedding: string;
  /** Outcome.finishRank: the commit order under engine.commit-order=reference. */
  finishRank?: number;
}

interface Candidate {
  item: Stored;
  sim: number;
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return dot / (Math.max(Math.sqrt(na), NORM_FLOOR) * Math.max(Math.sqrt(nb), NORM_FLOOR));
}

export class SelfRag implements MethodInstance {
  private readonly store: Stored[];
  /** Task-key embeddings, computed once per process (prepare). */
  private readonly keyVectors = new Map<string, Float32Array>();
  private readonly topK: number;
  private readonly threshold: number | null;
  private readonly fallbacks: FallbackTally;

  constructor(
    private readonly ctx: MethodContext<SelfRagSettings | undefined>,
    private readonly settings: SelfRagSettings,
  ) {
    this.topK = this.settings.top_k ?? ctx.params.k1;
    this.threshold = this.settings.threshold ?? ctx.params.baselineThreshold ?? null;
    const restored = ctx.restored as SelfRagState | undefined;
    this.store = (restored?.experiences ?? []).map(({ embedding, ...rest }) => ({ ...rest, vector: decodeFloat32(embedding) }));
    this.fallbacks = new FallbackTally(ctx.log, 'selfrag', restored?.fallbacks);
  }

  get size(): number {
    return this.store.length;
  }

  async prepare(tasks: readonly TaskBase[], signal?: AbortSignal): Promise<void> {
    if (this.settings.retrieval_mode === 'never') return;
    const vectors = await this.ctx.embedder.embed(
      tasks.map((t) => t.key),
      signal,
    );
    tasks.forEach((t, i) => this.keyVectors.set(t.id, vectors[i] as Float32Array));
  }

  /** The top-k by similarity, ties in storage order: a pure function of the committed store. */
  private async candidates(task: TaskBase, signal?: AbortSignal): Promise<Candidate[]> {
    if (this.store.length === 0 || this.topK < 1) return [];
    let q = this.keyVectors.get(task.id);
    if (!q) {
      q = (await this.ctx.embedder.embed([task.key], signal))[0] as Float32Array;
      this.keyVectors.set(task.id, q);
    }
    const query = q;
    const threshold = this.threshold;
    return this.store
      .map((item) => ({ item, sim: cosine(query, item.vector) }))
      .filter((c) => threshold === null || c.sim >= threshold)
      .sort((a, b) => b.sim - a.sim)
      .slice(0, this.topK);
  }

  async retrieve(tasks: readonly TaskBase[], query: RetrievalQuery): Promise<Retrieval[]> {
    return mapPool(tasks, DECISION_CONCURRENCY, (task) => this.retrieveOne(task, query));
  }

  private async retrieveOne(task: TaskBase, query: RetrievalQuery): Promise<Retrieval> {
    const mode = this.settings.retrieval_mode;
    const found = mode === 'never' ? [] : await this.candidates(task, query.signal);
    const record: RetrievalRecord = { mode, candidates: found.map((c) => ({ id: c.item.id, sim: c.sim })) };
    const done = (chosen: Candidate[], extra: RetrievalRecord = {}): Retrieval => this.retrieval(chosen, found.length, { ...record, ...extra, selected: chosen.map((c) => c.item.id) });
    if (mode !== 'adaptive' || found.length === 0) return done(found);

    const { fidelity } = this.ctx;
    const calls: DecisionCalls = {
      jsonMode: fidelity.memrl(DECISION_PARSE),
      model: this.ctx.model,
      ...(this.ctx.promptDir ? { promptDir: this.ctx.promptDir } : {}),
      tags: { benchmark: this.ctx.benchmark, taskId: task.id, epoch: query.epoch, phase: query.phase },
      attempts: this.settings.max_decision_retries,
      ...(query.signal ? { signal: query.signal } : {}),
    };
    const choice = await chooseCandidates(
      calls,
      task.key,
      found.map((c) => ({ id: c.item.id, taskId: c.item.taskId, key: c.item.key, content: c.item.content, success: c.item.success, sim: c.sim })),
      { gate: fidelity.memrl(GATE_CALL), referenceParse: !fidelity.memrl(DECISION_PARSE), fallbackOnError: this.settings.fallback_on_error },
    );
    if (choice.fallback) {
      const { stage, error, to } = choice.fallback;
      const what = `Self-RAG ${stage} reply unparseable: ${to === 'top-k' ? 'the candidates injected' : 'nothing injected'}`;
      this.fallbacks.note(`selfrag-${stage}-unparseable`, what, { epoch: query.epoch, phase: query.phase, task: task.id }, { stage, error, to });
    }
    return done(
      choice.chosen.map((i) => found[i] as Candidate),
      choice.record,
    );
  }

  private retrieval(chosen: Candidate[], pool: number, record: RetrievalRecord): Retrieval {
    const memories: InjectedMemory[] = chosen.map(({ item, sim }) => ({ id: item.id, key: item.key, success: item.success, taskId: item.taskId, content: item.content, q: 0, sim }));
    return { memories, fields: { retrievedIds: memories.map((m) => m.id), retrievedSim: memories.map((m) => m.sim), pool, explored: false }, record };
  }

  async learn(ep: FinishedEpisode): Promise<SelfRagExperience> {
    const { task, outcome } = ep;
    const content = experienceText(task.key, outcome, this.ctx.promptDir);
    const [vector] = await this.ctx.embedder.embed([content], ep.signal);
    return {
      memoryId: `selfrag-e${ep.epoch}-t${ep.index}`,
      taskId: task.id,
      key: task.key,
      content,
      success: outcome.success,
      status: outcome.status,
      epoch: ep.epoch,
      embedding: encodeFloat32(vector as Float32Array),
      ...(outcome.finishRank !== undefined ? { finishRank: outcome.finishRank } : {}),
    };
  }

  /** Stored in the order the reference adds a batch (engine.commit-order): storage order breaks similarity ties. */
  commit(experiences: readonly Experience[], at: number): void {
    const batch = experiences as readonly SelfRagExperience[];
    for (const i of commitOrder(
      batch.map((e) => e.finishRank),
      this.ctx.fidelity,
    )) {
      const e = batch[i] as SelfRagExperience;
      this.store.push({ id: e.memoryId, taskId: e.taskId, key: e.key, content: e.content, success: e.success, status: e.status, epoch: e.epoch, at, vector: decodeFloat32(e.embedding) });
    }
  }

  snapshot(): SelfRagState {
    const fallbacks = this.fallbacks.snapshot();
    return { selfrag: 1, experiences: this.store.map(({ vector, ...rest }) => ({ ...rest, embedding: encodeFloat32(vector) })), ...(Object.keys(fallbacks).length ? { fallbacks } : {}) };
  }

  records(): MemoryRecord[] {
    return this.store.map((s) => ({
      id: s.id,
      key: s.key,
      content: s.content,
      success: s.success,
      q: 0,
      visits: 0,
      rewardEma: 0,
      lastReward: null,
      createdAt: s.at,
      updatedAt: s.at,
      relatedIds: [],
      meta: { taskId: s.taskId, epoch: s.epoch, phase: 'train', status: s.status },
    }));
  }

  stats(): MethodStats {
    const fallbacks = this.fallbacks.snapshot();
    return { ...computeStats(this.records(), this.store.length), retrievalMode: this.settings.retrieval_mode, topK: this.topK, ...(Object.keys(fallbacks).length ? { fallbacks } : {}) };
  }
}
