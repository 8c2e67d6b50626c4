/**
 * The memory method's own model calls (the memory writer, Self-RAG's gate and decision,
 * Mem0's extraction), kept by the episode they serve until its transcript takes them:
 * the calls made at retrieval come first in it, the episode's own next, the writer's
 * after them, and calls made at the barrier (Mem0's extraction) last.
 */
import type { OutcomeRow } from '../core/outcome.js';
import type { ChatModel } from '../llm/types.js';
import type { RecordedCall } from '../metrics/transcripts.js';
import { attemptKey } from './attempts.js';
import { recording } from './episode.js';

export class MethodCalls {
  private readonly byAttempt = new Map<string, RecordedCall[]>();

  /** The model the method is given: every call recorded under the episode its tags name. */
  recording(model: ChatModel): ChatModel {
    return recording(model, 'memory', (call, req) => {
      const key = attemptKey(req.tags.phase, req.tags.epoch, req.tags.taskId);
      this.byAttempt.set(key, [...(this.byAttempt.get(key) ?? []), call]);
    });
  }

  /** The calls made so far for this episode, which are then forgotten here. */
  take(phase: string, epoch: number, taskId: string): RecordedCall[] {
    const key = attemptKey(phase, epoch, taskId);
    const calls = this.byAttempt.get(key) ?? [];
    this.byAttempt.delete(key);
    return calls;
  }
}

/** The row with the method's calls for it around the episode's own: before (at retrieval) and after (the writer). */
export function withMethodCalls(row: OutcomeRow, before: RecordedCall[], after: RecordedCall[]): OutcomeRow {
  if (before.length === 0 && after.length === 0) return row;
  const calls = [...before, ...((row.extra?.calls as RecordedCall[] | undefined) ?? []), ...after];
  return { ...row, extra: { ...row.extra, calls } };
}
