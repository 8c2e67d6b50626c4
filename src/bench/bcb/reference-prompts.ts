/**
 * Where BigCodeBench's templates (prompts/) sit in the MemRL reference, for
 * `memrl prompts import`. Locations only, never the text. The memory pieces are
 * string literals inside BCBRunner's methods, counted as extract_strings.py counts
 * them (`@N`: the N-th literal of the body).
 */
import type { ReferencePrompt } from '../../util/fidelity.js';

const RUNNER = 'memrl/run/bcb_runner.py';

export const BCB_REFERENCE_PROMPTS: readonly ReferencePrompt[] = [
  { slot: 'system.md', from: [`${RUNNER}:DEFAULT_SYSTEM_PROMPT`] },
  // "# Relevant Code Examples from Memory\n"
  { slot: 'memory.md', from: [`${RUNNER}:BCBRunner._format_memory_context@2`] },
  // f"## Example {i} [{outcome.upper()}]"
  { slot: 'memory-example.md', from: [`${RUNNER}:BCBRunner._format_memory_context@20`], fields: { i: 'index', 'outcome.upper()': 'outcome' } },
  // f"Task: {task_id}"
  { slot: 'memory-task.md', from: [`${RUNNER}:BCBRunner._format_memory_context@21`], fields: { task_id: 'taskId' } },
  // The FAILURE_REFLECTION and SUCCESS_PROCEDURE wrappers (the method strips the result).
  { slot: 'memory-failure.md', from: [`${RUNNER}:BCBRunner._coerce_bcb_memory_content@14`], fields: { td: 'task', reflection: 'content' } },
  { slot: 'memory-success.md', from: [`${RUNNER}:BCBRunner._coerce_bcb_memory_content@18`], fields: { td: 'task', body: 'content' } },
];
