/**
 * The text Self-RAG and Mem0 store for a finished episode, as their reference
 * implementations do: the task, its trajectory (code / SQL / actions) and how the
 * evaluation ended. A template (experience.md) in the `memory` prompt namespace, beside
 * the memory writer's, so a prompt pack's memory/ folder overrides it like theirs.
 */
import type { Outcome } from '../core/outcome.js';
import { DEFAULT_PROMPT_DIR } from '../memory/writer.js';
import { loadTemplate, render } from '../util/template.js';

/** The methods' templates sit in the `memory` namespace (src/memory/prompts). */
export const METHOD_PROMPT_DIR = DEFAULT_PROMPT_DIR;
export const EXPERIENCE_TEMPLATE = 'experience.md';

/** "success (pass)" / "failure (runtime_error: NameError ...)": the verdict and its first error line. */
export function resultLine(outcome: Pick<Outcome, 'success' | 'status' | 'error'>): string {
  const detail = outcome.error ? `${outcome.status}: ${outcome.error.split('\n')[0]}` : outcome.status;
  return `${outcome.success ? 'success' : 'failure'} (${detail})`;
}

export function experienceText(task: string, outcome: Pick<Outcome, 'success' | 'status' | 'error' | 'trajectory'>, promptDir?: string): string {
  const t = loadTemplate(METHOD_PROMPT_DIR, EXPERIENCE_TEMPLATE, promptDir);
  return render(t.text, { task: task.trim(), trajectory: outcome.trajectory.trim(), result: resultLine(outcome) }, t.path).trim();
}
