/**
 * Mem0, the paper's baseline, with the real Mem0 library (npm `mem0ai`, its open-source
 * `Memory`), as the reference (memrl/mem0_core) uses it:
 *   write   after each training episode, one add of the experience (task, trajectory and
 *           result, success in the metadata). infer=false (default) stores it as one
 *           memory; infer=true lets Mem0's own LLM extraction decide what to store
 *           (mem0ai 3.x extracts additively: it adds what it finds new, given the
 *           existing memories it is shown).
 *   read    before each episode, `search` with limit = k and a cosine threshold (the
 *           reference's by default); the hits are injected, best first: by cosine as
 *           the reference's mem0 1.0.1 ranked them, or by mem0ai 3.x's hybrid score
 *           (switch mem0.ranking).
 *   learns  nothing else: no utility, no reranking.
 * How mem0ai is wired to memrl's model and embedder, and how its ids, times and dates are
 * pinned so that resume and replay are exact: methods/mem0-bridge.ts. This file stays
 * light: mem0ai (and its SQLite addon) load only when a run uses the method.
 */
import { z } from 'zod';
import type { InjectedMemory, TaskBase } from '../core/benchmark.js';
import type { Experience, FinishedEpisode, MethodContext, MethodInstance, MethodModule, MethodStats, Retrieval, RetrievalQuery } from '../core/method.js';
import { computeStats } from '../memory/stats.js';
import type { MemoryRecord } from '../memory/types.js';
import type { FidelitySwitch } from '../util/fidelity.js';
import { commitOrder } from './commit-order.js';
import { experienceText } from './experience.js';
import type { Mem0Bridge, Mem0Experience } from './mem0-bridge.js';

const section = z
  .object({
    limit: z
      .number()
      .int()
      .min(1)
      .nullable()
      .default(null)
      .describe('Mem0: memories injected per task (search limit k); null = memory.k_retrieve, as the reference.'),
    threshold: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .default(null)
      .describe(
        "Mem0: minimum cosine similarity of a hit (mem0's threshold, 0..1); null = the reference's: rl_config.sim_threshold, on HLE rl_config.tau (0 keeps all).",
      ),
    infer: z
      .boolean()
      .default(false)
      .describe("Mem0: false = store each experience as one memory (the reference); true = Mem0's LLM extraction decides what to store (role memory calls)."),
  })
  .strict();

export type Mem0Settings = z.output<typeof section>;

export const RANKING = 'mem0.ranking';

export const MEM0_SWITCHES: readonly FidelitySwitch[] = [
  {
    id: RANKING,
    class: 'choice',
    reference: "hits ranked by cosine similarity alone, as mem0 1.0.1's Qdrant store ranked them (memrl reads mem0ai's semantic score through search's explain)",
    memrl: "hits ranked by mem0ai 3.x's hybrid score: cosine, BM25 keyword score and entity boosts, averaged",
    source: 'memrl/mem0_core/client.py:Mem0Client.search (commit 3386d8e; requirements.txt: mem0ai==1.0.1, default Qdrant vector store)',
  },
];

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
    return { ...computeStats(this.records(), this.bridge.memories.length), experiences: this.bridge.ops.length, infer: this.settings.infer, limit: this.limit, threshold: this.threshold };
  }

  close(): Promise<void> {
    return this.bridge.close();
  }
}

export const mem0: MethodModule<Mem0Settings | undefined> = {
  kind: 'method',
  name: 'mem0',
  displayName: 'Mem0',
  description: 'the mem0ai library: each experience added to its memory (infer=false by default), its search results injected',
  configSection: section,
  fidelitySwitches: MEM0_SWITCHES,
  create: async (ctx) => {
    const settings = ctx.settings ?? section.parse({});
    const { Mem0Bridge } = await import('./mem0-bridge.js');
    const bridge = await Mem0Bridge.open(ctx, settings.infer);
    return new Mem0Method(bridge, settings, ctx);
  },
};
