/**
 * Reflection (Reflexion-style): no shared memory. Each epoch retries only the tasks not
 * solved yet, and shows each its own previous attempt as the one injected item.
 *
 * As the reference's reflection baseline (alfworld_rl_runner.py:_run_reflection_baseline,
 * hle_runner.py:_run_reflection_baseline), the item is a note on the attempt, its result
 * and what it did, made without any model call; a benchmark that knows the reference's
 * note builds it from the attempt's trajectory, others show the generic note
 * (attempt-note.md). With reflection.llm-reflection=memrl the item is instead the memory
 * the writer makes of the attempt: an LLM reflection on a failure.
 */
import type { InjectedMemory } from '../core/benchmark.js';
import type { Experience, FinishedEpisode, MethodModule, Retrieval } from '../core/method.js';
import type { FidelitySwitch } from '../util/fidelity.js';
import { loadTemplate, render } from '../util/template.js';
import { DEFAULT_PROMPT_DIR } from '../memory/writer.js';
import { EngineMemory, type EngineExperience, type EngineState } from './engine-memory.js';

export const LLM_REFLECTION = 'reflection.llm-reflection';

export const REFLECTION_SWITCHES: readonly FidelitySwitch[] = [
  {
    id: LLM_REFLECTION,
    class: 'choice',
    reference:
      'a retried task sees a note on its previous attempt (its result and what it did), made without a model call: ALFWorld puts it before the task message with the agent turns and observations as JSON, HLE after the system prompt with the solution only (the reference has no reflection baseline for BCB or LLB; memrl shows the same kind of note there)',
    memrl: 'a retried task sees the memory the writer makes of its previous attempt: an LLM reflection on what went wrong, with the failed trajectory',
    source: 'memrl/run/alfworld_rl_runner.py:AlfworldRunner._run_reflection_baseline / _format_reflection_note, memrl/run/hle_runner.py:HLERunner._run_reflection_baseline / _format_reflection_note',
  },
];

/** What a training episode leaves for the next epoch when no model writes a reflection. */
interface AttemptExperience extends Experience {
  taskId: string;
  success: boolean;
  attempt: { id: string; key: string; note: string; trajectory: string };
}

export const reflection: MethodModule = {
  kind: 'method',
  name: 'reflection',
  displayName: 'Reflection',
  description: 'each epoch retries the unsolved tasks, showing each a note on its own last attempt',
  fidelitySwitches: REFLECTION_SWITCHES,
  create: (ctx) => {
    const llm = ctx.fidelity.memrl(LLM_REFLECTION);
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
  },
};
