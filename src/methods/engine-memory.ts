/**
 * The memory shared by the built-in methods: the MemRL engine (intent index, two-phase
 * retrieval, Q updates, bucketed writes) plus the embeddings of the task keys and the
 * writer that turns a finished episode into a memory. A method picks the engine's
 * behaviour (none, rag, memp, memrl) and whether it writes.
 */
import type { InjectedMemory, TaskBase } from '../core/benchmark.js';
import type { CommitEffects, Experience, FinishedEpisode, MethodContext, Retrieval, RetrievalFields, RetrievalQuery } from '../core/method.js';
import type { Embedder } from '../embed/types.js';
import { MemoryEngine } from '../memory/engine.js';
import type { BuildStrategy, EpisodeResult, MemoryMeta, MemoryMethod, MemorySnapshot, PhaseAKey, Selection } from '../memory/types.js';
import { MemoryWriter } from '../memory/writer.js';
import { BUCKET_OVERWRITE } from '../memory/fidelity-switches.js';
import type { Fidelity } from '../util/fidelity.js';
import { commitOrder } from './commit-order.js';

/** What the built-in methods checkpoint: the engine's snapshot, and reflection's latest attempt per task. */
export type EngineState = MemorySnapshot & {
  attempts?: Record<string, InjectedMemory>;
};

/** A training episode's contribution at the barrier (the journal keeps it as JSON). */
export interface EngineExperience extends Experience {
  taskId: string;
  /** Memories whose Q this episode's reward updates. */
  injectedIds: string[];
  success: boolean;
  /** When the episode finished among its batch (Outcome.finishRank): the commit order under engine.commit-order=reference. */
  finishRank?: number;
  newMemory?: {
    id: string;
    key: string;
    phaseAKeys: PhaseAKey[];
    content: string;
    success: boolean;
    meta: MemoryMeta;
  };
}

const EMPTY: Selection = { selected: [], pool: 0, phaseAKeys: [], explored: false };

/** The row fields of a selection: equal fields mean the same attempt (resume matches on them). */
export function selectionFields(sel: Selection): RetrievalFields {
  return { retrievedIds: sel.selected.map((c) => c.id), retrievedQ: sel.selected.map((c) => c.q), retrievedSim: sel.selected.map((c) => c.sim), explored: sel.explored, pool: sel.pool };
}

export class EngineMemory {
  readonly engine: MemoryEngine;
  /** Key embeddings never change: each task's key is embedded once per process. */
  private readonly keyEmbedding = new Map<string, Float32Array>();
  private readonly writer: MemoryWriter | undefined;
  private readonly embedder: Embedder;
  private readonly benchmark: string;
  private readonly log: MethodContext['log'];
  private readonly fidelity: Fidelity;

  constructor(ctx: MethodContext, opts: { engine: MemoryMethod; writes: boolean; buildStrategy?: BuildStrategy }) {
    const restored = ctx.restored as EngineState | undefined;
    // The method decides the engine's behaviour (retrieval ranking, Q updates); the run's switches how buckets fill.
    const engineOpts = { bucketOverwrite: !ctx.fidelity.memrl(BUCKET_OVERWRITE) };
    this.engine = restored ? MemoryEngine.restore(restored, engineOpts) : new MemoryEngine({ ...ctx.params, method: opts.engine }, engineOpts);
    this.fidelity = ctx.fidelity;
    this.embedder = ctx.embedder;
    this.benchmark = ctx.benchmark;
    this.log = ctx.log;
    // A method that fixes raw trajectories as its memory (rag) stores failures raw too, never a reflection.
    const raw = opts.buildStrategy === 'trajectory' && ctx.params.updateStrategy === 'adjustment';
    this.writer = opts.writes
      ? new MemoryWriter({
          strategy: opts.buildStrategy ?? ctx.buildStrategy,
          updateStrategy: raw ? 'vanilla' : ctx.params.updateStrategy,
          model: ctx.model,
          promptDir: ctx.promptDir,
          fidelity: ctx.fidelity,
        })
      : undefined;
  }

  private get retrieves(): boolean {
    return this.engine.params.method !== 'none';
  }

  async prepare(tasks: readonly TaskBase[], signal?: AbortSignal): Promise<void> {
    if (!this.retrieves) return;
    const vectors = await this.embedder.embed(tasks.map((t) => t.key), signal);
    tasks.forEach((t, i) => this.keyEmbedding.set(t.id, vectors[i] as Float32Array));
  }

  /** The engine's selection for each task, drawn in task order from the query's RNG. */
  select(tasks: readonly TaskBase[], query: RetrievalQuery): Selection[] {
    return tasks.map((task) => (this.retrieves ? this.engine.retrieve(this.keyEmbedding.get(task.id) as Float32Array, query.rng) : EMPTY));
  }

  retrieval(sel: Selection): Retrieval {
    return { memories: this.injected(sel), fields: selectionFields(sel), detail: sel.phaseAKeys };
  }

  private injected(sel: Selection): InjectedMemory[] {
    return sel.selected.map((c) => {
      const rec = this.engine.get(c.id);
      if (!rec) throw new Error(`memory ${c.id} selected but not stored`);
      const taskId = typeof rec.meta.taskId === 'string' ? rec.meta.taskId : undefined;
      return { id: rec.id, key: rec.key, success: rec.success, taskId, content: rec.content, q: c.q, sim: c.sim };
    });
  }

  /** The memory a finished training episode writes (committed at the barrier). */
  async write(ep: FinishedEpisode): Promise<EngineExperience> {
    const { task, epoch, outcome } = ep;
    const injectedIds = ep.retrieval.fields.retrievedIds;
    const base = { taskId: task.id, injectedIds, success: outcome.success, ...(outcome.finishRank !== undefined ? { finishRank: outcome.finishRank } : {}) };
    if (!this.writer) return base;
    const memoryId = `mem-e${epoch}-t${ep.index}`;
    const built = await this.writer.write({
      task: task.key,
      trajectory: outcome.trajectory,
      success: outcome.success,
      tags: { benchmark: this.benchmark, taskId: task.id, epoch, phase: 'train' },
      signal: ep.signal,
    });
    // No memory for this episode (validation strategy, or the reference dropping a failed script); Q still moves.
    if (built.content === null) {
      if (built.llmError) this.log.warn({ event: 'memory_not_written', task: task.id, epoch, err: built.llmError }, 'script call failed: no memory for this episode');
      return base;
    }
    return {
      ...base,
      memoryId,
      newMemory: {
        id: memoryId,
        key: task.key,
        phaseAKeys: (ep.retrieval.detail as PhaseAKey[] | undefined) ?? [],
        content: built.content,
        success: outcome.success,
        meta: { taskId: task.id, epoch, phase: 'train', status: outcome.status, ...(built.llmError ? { writerError: built.llmError } : {}) },
      },
    };
  }

  /** Q updates, then new memories, in commit order (engine.commit-order: finishing order or task order). */
  commit(experiences: readonly Experience[], at: number): CommitEffects | undefined {
    if (!this.retrieves) return undefined;
    const batch = experiences as readonly EngineExperience[];
    const order = commitOrder(
      batch.map((e) => e.finishRank),
      this.fidelity,
    );
    const results: EpisodeResult[] = order.map((i) => {
      const e = batch[i] as EngineExperience;
      const nm = e.newMemory;
      const base = { injectedIds: e.injectedIds, success: e.success };
      return nm ? { ...base, newMemory: { ...nm, keyEmbedding: this.keyEmbedding.get(e.taskId) as Float32Array } } : base;
    });
    const report = this.engine.commit(results, at);
    return { qUpdates: report.qUpdates.map((u) => ({ experience: order[u.episode] as number, memoryId: u.id, before: u.before, after: u.after })) };
  }

  snapshot(): MemorySnapshot {
    return this.engine.snapshot();
  }
}
