/**
 * An episode's transcript in memory: every model call it made, with the exact messages
 * sent (system prompt, the injected memories as rendered, the task, each observation
 * fed back) and every reply, plus what the evaluator reported and the Q updates the
 * episode caused at its commit. The runner assembles these; on disk they are
 * transcripts.jsonl.gz and transcript-parts.jsonl.gz (src/core/run-files/transcripts.ts).
 */

/** One model call as the episode made it. */
export interface RecordedCall {
  /** agent: the model under test; judge: the grading model (HLE); memory: the method's own calls for this episode (the memory writer, Self-RAG's gate and decisions, Mem0's extraction). */
  role: 'agent' | 'judge' | 'memory';
  /** What a memory call was for (e.g. 'script', 'selfrag-gate'). */
  purpose?: string;
  messages: { role: string; content: unknown }[];
  reply?: string;
  /** The call failed: why. */
  error?: string;
  model?: string;
  usage?: { promptTokens: number; completionTokens: number; totalTokens: number };
  cached?: boolean;
  latencyMs?: number;
}

export interface Transcript {
  /** `<phase>/<epoch>/<taskIndex>`: the outcome row's extra.transcriptId. */
  id: string;
  taskId: string;
  taskIndex: number;
  epoch: number;
  phase: string;
  calls: RecordedCall[];
  /** What the evaluator reported beyond the outcome row (BCB: the failing tests and their messages), when the benchmark gives it. */
  evaluatorOutput?: unknown;
  /** The Q updates this episode caused at its batch's commit, in the order applied. */
  qUpdates?: { memoryId: string; before: number; after: number }[];
}

export const transcriptId = (phase: string, epoch: number, taskIndex: number): string => `${phase}/${epoch}/${taskIndex}`;
