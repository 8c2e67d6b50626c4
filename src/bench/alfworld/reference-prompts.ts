/**
 * Where ALFWorld's templates (src/bench/alfworld/prompts) sit in the reference code, for
 * `memrl prompts import`. Locations only, never the text. `@N` counts the string
 * literals of a function body (written against MemRL 7c3beba).
 */
import type { ReferencePrompt } from '../../util/fidelity.js';

const AGENT = 'memrl/agent/memp_agent.py';

export const ALFWORLD_REFERENCE_PROMPTS: readonly ReferencePrompt[] = [
  { slot: 'system.md', from: ['memrl/agent/prompts.py:SYSTEM_PROMPT'] },
  // "Here is an example …:\n", prefixed to the example's first message.
  { slot: 'example-intro.md', from: [`${AGENT}:MempAgent._construct_messages@5`] },
  { slot: 'memory.md', from: [`${AGENT}:MempAgent._construct_messages@11`] },
  { slot: 'memory-successes.md', from: [`${AGENT}:MempAgent._construct_messages@12`] },
  { slot: 'memory-failures.md', from: [`${AGENT}:MempAgent._construct_messages@14`] },
  { slot: 'task.md', from: [`${AGENT}:MempAgent._construct_messages:current_task_prompt`], fields: { task_description: 'task' } },
  { slot: 'memory-script.md', from: [`${AGENT}:MempAgent._format_retrieved_memory@8`], fields: { script_part: 'script' } },
  // The reference labels the reflection of a failure the way it labels a script.
  { slot: 'memory-reflection.md', from: [`${AGENT}:MempAgent._format_retrieved_memory@11`], fields: { reflection_part: 'reflection' } },
  { slot: 'memory-trajectory.md', from: [`${AGENT}:MempAgent._format_retrieved_memory@24`] },
  {
    slot: 'reflection-note.md',
    from: ['memrl/run/alfworld_rl_runner.py:AlfworldRunner._format_reflection_note@3'],
    fields: { status: 'result', traj_text: 'trajectory' },
  },
];
