/**
 * Tasks the evaluator says cannot pass here whatever the model writes (BigCodeBench
 * tasks that import a library the sandbox lacks): run.json keeps the list under
 * evaluator.blockedTasks; the run's start says so in one line, so a lower score is
 * no surprise and the fix, where there is one, is in view.
 */
import type { RunComposition } from '../core/run-files/index.js';
import type { EvaluatorFacts } from '../env/contract.js';

/** The notice for the run's start, or null when every task it plays can pass. Names at most `shown` tasks. */
export function blockedTasksNotice(evaluator: EvaluatorFacts, played: readonly string[], shown = 3): string | null {
  const ids = new Set(played);
  const blocked = (evaluator.blockedTasks ?? []).filter((b) => ids.has(b.taskId));
  if (!blocked.length) return null;
  const named = blocked.slice(0, shown).map((b) => `${b.taskId} ${b.reason}`);
  const more = blocked.length > shown ? `; ${blocked.length - shown} more` : '';
  return `${blocked.length} of the ${ids.size} tasks cannot pass here, whatever the model writes: ${named.join('; ')}${more} (run.json: evaluator.blockedTasks)`;
}

/** A run under a profile (run.json `profile`) lists its blocked tasks among what it could not match. */
export function profileWithBlocked(manifest: RunComposition, notice: string | null): Pick<RunComposition, 'profile'> {
  const { profile } = manifest;
  if (!profile || !notice) return {};
  return { profile: { ...profile, unmatched: [...profile.unmatched, notice] } };
}
