/** The reflection baseline's instance (reflection.ts is its light module: switches, name, help). */
import type { InjectedMemory } from '../core/benchmark.js';
import type { Experience, FinishedEpisode, MethodContext, MethodInstance, Retrieval } from '../core/method.js';
import { loadTemplate, render } from '../util/template.js';
import { DEFAULT_PROMPT_DIR } from '../memory/writer.js';
import { EngineMemory, type EngineExperience, type EngineState } from './engine-memory.js';

/** What a training episode leaves for the next epoch when no model writes a reflection. */
interface AttemptExperience extends Experience {
  taskId: string;
  success: boolean;
  attempt: { id: string; key: string; note: string; trajectory: string };
}

/** `llm`: the switch reflection.llm-reflection set to memrl (the writer's reflection instead of the reference's note). */
export function reflectionMethod(ctx: MethodContext, llm: boolean): MethodInstance {
  // The engine stays empty (it only keeps the summary's statistics uniform); attempts are the memory.
  const memory = new EngineMemory(ctx, { engine: 'none', writes: llm });
  const restored = ctx.restored as EngineState | undefined;
  const attempts = new Map<string, InjectedMemory>(Object.entries(restored?.attempts ?? {}));
  const empty = (): Retrieval => ({ memories: [], fields: { retrievedIds: [], retrievedQ: [], retrievedSim: [], explored: false, pool: 0 } });
  const noteTemplate = llm ? undefined : loadTemplate(DEFAULT_PROMPT_DIR, 'attempt-note.md', ctx.promptDir);
  const note = async (ep: FinishedEpisode): Promise<AttemptExperience> => {
    const t = noteTemplate!;
    const text = render(t.text.trimEnd(), { result: ep.outcome.success ? 'CORRECT' : 'INCORRECT', trajectory: ep.outcome.trajectory }, t.path);
    const id = `mem-e${ep.epoch}-t${ep.index}`;
    return { memoryId: id, taskId: ep.task.id, success: ep.outcome.success, attempt: { id, key: ep.task.key, note: text, trajectory: ep.outcome.trajectory } };
  };
  return {
    trainTasks: (tasks, { solved }) => tasks.filter((t) => !solved.has(t.id)),
    retrieve: async (tasks, query) =>
      tasks.map((task) => {
        const prev = query.phase === 'train' ? attempts.get(task.id) : undefined;
        if (!prev) return empty();
        return { memories: [prev], fields: { retrievedIds: [prev.id], retrievedQ: [0], retrievedSim: [1], explored: false, pool: 1 } };
      }),
    learn: (ep) => (llm ? memory.write(ep) : note(ep)),
    commit: (experiences: readonly Experience[]) => {
      for (const e of experiences) {
        const a = (e as AttemptExperience).attempt;
        if (a) {
          attempts.set(String(e.taskId), { id: a.id, key: a.key, success: Boolean(e.success), taskId: String(e.taskId), content: a.note, q: 0, sim: 1, attempt: { trajectory: a.trajectory } });
          continue;
        }
        const nm = (e as EngineExperience).newMemory;
        if (nm) attempts.set(String(e.taskId), { id: nm.id, key: nm.key, success: nm.success, taskId: String(e.taskId), content: nm.content, q: 0, sim: 1 });
      }
    },
    snapshot: (): EngineState => ({ ...memory.snapshot(), ...(attempts.size ? { attempts: Object.fromEntries(attempts) } : {}) }),
    records: () => memory.engine.records(),
    stats: () => ({ ...memory.engine.stats() }),
    get size() {
      return memory.engine.size;
    },
  };
}
