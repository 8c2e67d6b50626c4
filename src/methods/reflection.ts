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
import type { MethodModule } from '../core/method.js';
import type { FidelitySwitch } from '../util/fidelity.js';

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

export const reflection: MethodModule = {
  kind: 'method',
  name: 'reflection',
  displayName: 'Reflection',
  description: 'each epoch retries the unsolved tasks, showing each a note on its own last attempt',
  fidelitySwitches: REFLECTION_SWITCHES,
  create: async (ctx) => (await import('./reflection-method.js')).reflectionMethod(ctx, ctx.fidelity.memrl(LLM_REFLECTION)),
};
