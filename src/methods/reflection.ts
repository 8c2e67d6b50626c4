/**
 * Reflection (Reflexion-style): no shared memory. Each epoch retries only the tasks
 * not solved yet, and shows each its own previous attempt with a reflection on it
 * (the memory the writer makes of a failure), as the one injected memory.
 */
import type { InjectedMemory } from '../core/benchmark.js';
import type { Experience, MethodModule, Retrieval } from '../core/method.js';
import { EngineMemory, type EngineExperience, type EngineState } from './engine-memory.js';

export const reflection: MethodModule = {
  kind: 'method',
  name: 'reflection',
  displayName: 'Reflection',
  description: "each epoch retries the unsolved tasks, showing each its own last attempt and a reflection on it",
  create: (ctx) => {
    // The engine stays empty (it only keeps the summary's statistics uniform); attempts are the memory.
    const memory = new EngineMemory(ctx, { engine: 'none', writes: true });
    const restored = ctx.restored as EngineState | undefined;
    const attempts = new Map<string, InjectedMemory>(Object.entries(restored?.attempts ?? {}));
    const empty = (): Retrieval => ({ memories: [], fields: { retrievedIds: [], retrievedQ: [], retrievedSim: [], explored: false, pool: 0 } });
    return {
      trainTasks: (tasks, { solved }) => tasks.filter((t) => !solved.has(t.id)),
      retrieve: async (tasks, query) =>
        tasks.map((task) => {
          const prev = query.phase === 'train' ? attempts.get(task.id) : undefined;
          if (!prev) return empty();
          return { memories: [prev], fields: { retrievedIds: [prev.id], retrievedQ: [0], retrievedSim: [1], explored: false, pool: 1 } };
        }),
      learn: (ep) => memory.write(ep),
      commit: (experiences: readonly Experience[]) => {
        for (const e of experiences as readonly EngineExperience[]) {
          const nm = e.newMemory;
          if (nm) attempts.set(e.taskId, { id: nm.id, key: nm.key, success: nm.success, taskId: e.taskId, content: nm.content, q: 0, sim: 1 });
        }
      },
      snapshot: (): EngineState => ({ ...memory.snapshot(), ...(attempts.size ? { attempts: Object.fromEntries(attempts) } : {}) }),
      records: () => memory.engine.records(),
      stats: () => ({ ...memory.engine.stats() }),
      get size() {
        return memory.engine.size;
      },
    };
  },
};
