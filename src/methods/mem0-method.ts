/** Mem0's instance over the bridge to mem0ai (mem0.ts is its light module: name, help, settings section). */
import type { InjectedMemory, TaskBase } from '../core/benchmark.js';
import type { Experience, FinishedEpisode, MethodContext, MethodInstance, MethodStats, Retrieval, RetrievalQuery } from '../core/method.js';
import { computeStats } from '../memory/stats.js';
import type { MemoryRecord } from '../memory/types.js';
import { commitOrder } from './commit-order.js';
import { experienceText } from './experience.js';
import { Mem0Bridge, type Mem0Experience } from './mem0-bridge.js';
import { RANKING, type Mem0Settings } from './mem0-settings.js';

/** The experience of one training episode: plain JSON, journaled, added to mem0 at the barrier. */
type Mem0ExperienceJson = Experience & Mem0Experience;

class Mem0Method implements MethodInstance {
  private readonly limit: number;
  private readonly threshold: number;

  constructor(
    private readonly bridge: Mem0Bridge,
    private readonly settings: Mem0Settings,
    private readonly ctx: MethodContext,
  ) {
    this.limit = settings.limit ?? ctx.params.k1;
    // mem0 takes a threshold in [0, 1].
    this.threshold = Math.min(1, Math.max(0, settings.threshold ?? ctx.params.baselineThreshold ?? 0));
  }

  get size(): number {
    return this.bridge.memories.length;
  }

  prepare(tasks: readonly TaskBase[], signal?: AbortSignal): Promise<void> {
    return this.bridge.prepare(tasks, signal);
  }

  async retrieve(tasks: readonly TaskBase[], query: RetrievalQuery): Promise<Retrieval[]> {
    const out: Retrieval[] = [];
    const ranking = this.ctx.fidelity.memrl(RANKING) ? 'hybrid' : 'cosine';
    // One at a time: the searches read the store only, and their order cannot matter.
    for (const task of tasks) {
      const hits = this.limit < 1 ? [] : await this.bridge.search(task, this.limit, this.threshold, ranking, query.signal);
      const memories: InjectedMemory[] = hits.map((h) => {
        const { memory, op } = this.bridge.get(h.id);
        return { id: h.id, key: op.key, success: op.success, taskId: op.taskId, content: memory.content, q: 0, sim: h.score };
      });
      out.push({ memories, fields: { retrievedIds: memories.map((m) => m.id), retrievedSim: memories.map((m) => m.sim), explored: false } });
    }
    return out;
  }

  async learn(ep: FinishedEpisode): Promise<Mem0ExperienceJson> {
    const { task, outcome } = ep;
    return {
      memoryId: `mem0-e${ep.epoch}-t${ep.index}`,
      taskId: task.id,
      key: task.key,
      text: experienceText(task.key, outcome, this.ctx.promptDir),
      success: outcome.success,
      status: outcome.status,
      epoch: ep.epoch,
      ...(outcome.finishRank !== undefined ? { finishRank: outcome.finishRank } : {}),
    };
  }

  /** One add each, in the order the reference adds a batch (engine.commit-order): mem0's writes (and infer's calls) happen only here. */
  async commit(experiences: readonly Experience[], at: number): Promise<void> {
    const batch = experiences as readonly Mem0ExperienceJson[];
    for (const i of commitOrder(
      batch.map((e) => e.finishRank),
      this.ctx.fidelity,
    )) {
      await this.bridge.add(batch[i] as Mem0ExperienceJson, at);
    }
  }

  snapshot(): unknown {
    return this.bridge.snapshot();
  }

  records(): MemoryRecord[] {
    return this.bridge.memories.map((m) => {
      const { op } = this.bridge.get(m.id);
      return {
        id: m.id,
        key: op.key,
        content: m.content,
        success: op.success,
        q: 0,
        visits: 0,
        rewardEma: 0,
        lastReward: null,
        createdAt: op.at,
        updatedAt: op.at,
        relatedIds: [],
        meta: { taskId: op.taskId, epoch: op.epoch, phase: 'train', status: op.status, experience: op.id, infer: op.infer },
      };
    });
  }

  stats(): MethodStats {
    const fallbacks = this.bridge.fallbacks.snapshot();
    return {
      ...computeStats(this.records(), this.bridge.memories.length),
      experiences: this.bridge.ops.length,
      infer: this.settings.infer,
      limit: this.limit,
      threshold: this.threshold,
      ...(Object.keys(fallbacks).length ? { fallbacks } : {}),
    };
  }

  close(): Promise<void> {
    return this.bridge.close();
  }
}

/** The method for a run: mem0ai opened on the run's model and embedder (state restored on resume). */
export async function openMem0(ctx: MethodContext, settings: Mem0Settings): Promise<MethodInstance> {
  const bridge = await Mem0Bridge.open(ctx, settings.infer);
  return new Mem0Method(bridge, settings, ctx);
}
