/**
 * Where the memory writer's templates (src/memory/prompts) sit in the reference code
 * (memrl/service/ and its provider), for `memrl prompts import`. Locations only, never
 * the text. The content layouts (memory-*.md) are not listed: memrl's own already carry
 * the reference's section markers, which the benchmarks' memory contexts parse.
 */
import type { ReferencePrompt } from '../util/fidelity.js';

export const WRITER_REFERENCE_PROMPTS: readonly ReferencePrompt[] = [
  // The provider's script prompt (OpenAILLM overrides BaseLLM.generate_script): the trajectory only.
  { slot: 'script.md', from: ['memrl/providers/llm.py:OpenAILLM.generate_script:prompt'], fields: { trajectory: 'trajectory' } },
  {
    slot: 'reflection.md',
    from: ['memrl/service/updater.py:BaseUpdater._generate_reflection:prompt'],
    fields: { task_description: 'task', failed_trajectory: 'trajectory' },
  },
  // What a failed reflection call stores instead.
  { slot: 'fallback-reflection.md', from: ['memrl/service/updater.py:BaseUpdater._generate_reflection@6'] },
];
