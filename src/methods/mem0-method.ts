/** Mem0's instance over the bridge to mem0ai (mem0.ts is its light module: name, help, settings section). */
import type { InjectedMemory, TaskBase } from '../core/benchmark.js';
import type { Experience, FinishedEpisode, MethodContext, MethodInstance, Retrieval, RetrievalQuery } from '../core/method.js';
import { computeStats } from '../memory/stats.js';
import type { MemoryRecord } from '../memory/types.js';
import { experienceText } from './experience.js';
import { Mem0Bridge, type Mem0Experience } from './mem0-bridge.js';
import type { Mem0Settings } from './mem0-settings.js';

/** The experience of one training episode: plain JSON, journaled, added to mem0 at the barrier. */
type Mem0ExperienceJson = Experience & Mem0Experience;

class Mem0Method implements MethodInstance {
  private readonly limit: number;

  constructor(
    private readonly bridge: Mem0Bridge,
    private readonly settings: Mem0Settings,
    private readonly ctx: MethodContext,
  ) {
    this.limit = settings.limit ?? ctx.params.k1;
  }

  get size(): number {
    return this.bridge.memories.length;
  }

  prepare(tasks: readonly TaskBase[], signal?: AbortSignal): Promise<void> {
    return this.bridge.prepare(tasks, signal);
  }

  async retrieve(tasks: readonly TaskBase[], query: RetrievalQuery): Promise<Retrieval[]> {
    const out: Retrieval[] = [];
    // One at a time: the searches read the store only, and their order cannot matter.
    for (const task of tasks) {
      const hits = this.limit < 1 ? [] : await this.bridge.search(task, this.limit, this.settings.threshold ?? 0, query.signal);
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
    };
  }

  /** In task order, one add each: mem0's writes (and infer's calls) happen only here. */
  async commit(experiences: readonly Experience[], at: number): Promise<void> {
    for (const e of experiences as readonly Mem0ExperienceJson[]) await this.bridge.add(e, at);
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

  stats(): Record<string, unknown> {
    return { ...computeStats(this.records(), this.bridge.memories.length), experiences: this.bridge.ops.length, infer: this.settings.infer, limit: this.limit };
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
