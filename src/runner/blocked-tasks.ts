/**
 * Tasks the evaluator says cannot pass here whatever the model writes (BigCodeBench
 * tasks that import a library the sandbox lacks): run.json keeps the list under
 * evaluator.blockedTasks; the run's start says so in one line, so a lower score is
 * no surprise and the fix, where there is one, is in view.
 */
interface Blocked {
  taskId: string;
  reason: string;
}

function blockedOf(evaluator: Record<string, unknown>): Blocked[] {
  const list = evaluator.blockedTasks;
  if (!Array.isArray(list)) return [];
  return list.filter((b): b is Blocked => typeof b?.taskId === 'string' && typeof b?.reason === 'string');
}

/** The notice for the run's start, or null when every task it plays can pass. Names at most `shown` tasks. */
export function blockedTasksNotice(evaluator: Record<string, unknown>, played: readonly string[], shown = 3): string | null {
  const ids = new Set(played);
  const blocked = blockedOf(evaluator).filter((b) => ids.has(b.taskId));
  if (!blocked.length) return null;
  const named = blocked.slice(0, shown).map((b) => `${b.taskId} ${b.reason}`);
  const more = blocked.length > shown ? `; ${blocked.length - shown} more` : '';
  return `${blocked.length} of the ${ids.size} tasks cannot pass here, whatever the model writes: ${named.join('; ')}${more} (run.json: evaluator.blockedTasks)`;
}

/** A run under a profile (run.json `profile`) lists its blocked tasks among what it could not match. */
export function profileWithBlocked(manifest: Record<string, unknown>, notice: string | null): Record<string, unknown> {
  const profile = manifest.profile as { unmatched?: unknown } | undefined;
  if (!profile || !notice || !Array.isArray(profile.unmatched)) return {};
  return { profile: { ...profile, unmatched: [...(profile.unmatched as unknown[]), notice] } };
}
