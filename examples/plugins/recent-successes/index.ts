/**
 * An example memory-method plug-in: "recent successes". It keeps the trajectories of
 * successful training episodes and injects the k most recent ones into every task,
 * whatever the task: no embeddings, no learned utility. A floor for methods that
 * retrieve by relevance, and a template for writing your own.
 *
 *   memrl run bcb --plugin examples/plugins/recent-successes/index.ts --method recent
 *
 * The contract (src/core/method.ts): retrieve for a batch from the memory as it was
 * before the batch, each task's retrieval on its own (the runner may ask for a batch in
 * slices); learn from a finished training episode (what it returns is
 * journaled, so it must be plain JSON); commit at the barrier in task order; snapshot
 * the whole state for the epoch checkpoint.
 */
import { computeStats, z, type Experience, type InjectedMemory, type MemoryRecord, type MethodModule } from 'memrl';

const section = z
  .object({
    k: z.number().int().min(1).default(3).describe('recent: how many of the latest successful episodes to inject.'),
    keep: z.number().int().min(1).default(200).describe('recent: how many successful episodes to remember (oldest dropped first).'),
  })
  .strict();

type Settings = z.output<typeof section>;

interface Saved {
  id: string;
  taskId: string;
  key: string;
  content: string;
  at: number;
}

/** What one successful episode adds at the barrier. */
interface RecentExperience extends Experience {
  memoryId: string;
  taskId: string;
  key: string;
  content: string;
}

export const recent: MethodModule<Settings> = {
  kind: 'method',
  name: 'recent',
  displayName: 'Recent successes',
  description: 'injects the k most recent successful trajectories into every task (an example plug-in)',
  configSection: section,
  create: (ctx) => {
    const { k, keep } = ctx.settings ?? section.parse({});
    const memory: Saved[] = [...(((ctx.restored as { memory?: Saved[] } | undefined)?.memory) ?? [])];
    const asRecord = (m: Saved): MemoryRecord => ({
      id: m.id,
      key: m.key,
      content: m.content,
      success: true,
      q: 0,
      visits: 0,
      rewardEma: 0,
      lastReward: null,
      createdAt: m.at,
      updatedAt: m.at,
      relatedIds: [],
      meta: { taskId: m.taskId },
    });
    return {
      async retrieve(tasks) {
        const latest = memory.slice(-k).reverse();
        const memories: InjectedMemory[] = latest.map((m) => ({ id: m.id, key: m.key, success: true, taskId: m.taskId, content: m.content, q: 0, sim: 0 }));
        return tasks.map(() => ({ memories, fields: { retrievedIds: memories.map((m) => m.id), pool: memory.length, explored: false } }));
      },
      async learn(ep) {
        if (!ep.outcome.success) return undefined;
        const memoryId = `recent-e${ep.epoch}-t${ep.index}`;
        const exp: RecentExperience = { memoryId, taskId: ep.task.id, key: ep.task.key, content: ep.outcome.trajectory.slice(0, 2000) };
        return exp;
      },
      commit(experiences, at) {
        for (const e of experiences as RecentExperience[]) memory.push({ id: e.memoryId, taskId: e.taskId, key: e.key, content: e.content, at });
        if (memory.length > keep) memory.splice(0, memory.length - keep);
      },
      snapshot: () => ({ memory }),
      records: () => memory.map(asRecord),
      stats: () => ({ ...computeStats(memory.map(asRecord), memory.length) }),
      get size() {
        return memory.length;
      },
    };
  },
};

export default recent;
