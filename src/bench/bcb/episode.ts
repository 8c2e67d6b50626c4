import { loadTemplate } from '../../util/template.js';
import { errorMessage } from '../../util/errors.js';
import type { ChatMessage } from '../../llm/types.js';
import { EpisodeFault, REFERENCE_FIDELITY, type EpisodeContext, type Fidelity, type InjectedMemory, type Outcome } from '../../core/index.js';
import type { BcbTask } from './dataset.js';
import type { BcbEvalOptions } from './evaluate.js';
import type { BcbEvaluator } from './evaluator.js';
import { extractCodeFor } from './extract.js';
import { BCB_PROMPT_DIR, BcbMemoryOutcomeError, buildBcbMemoryContext } from './memory-context.js';
import { EMPTY_REPLY_SWITCH, SANITIZE_SWITCH } from './switches.js';

export { BCB_PROMPT_DIR };

export interface BcbEpisodeOptions {
  temperature: number;
  maxTokens?: number;
  /** Character budget shared by the injected memories; undefined = no limit. */
  memoryBudgetChars?: number;
  promptDir?: string;
  eval: Omit<BcbEvalOptions, 'signal' | 'sanitize'>;
  /** The run's switch settings (default: the reference's behaviour everywhere). */
  fidelity?: Fidelity;
}

/** The memory block for a prompt ('' when there is none). */
export function bcbMemoryBlock(memories: readonly InjectedMemory[], opts: Pick<BcbEpisodeOptions, 'memoryBudgetChars' | 'promptDir'>): string {
  const records = memories.map((m) => ({ content: m.content, outcome: m.success ? 'success' : 'failure', taskId: m.taskId ?? '', task: m.key }));
  try {
    return buildBcbMemoryContext(records, opts.memoryBudgetChars ?? null, opts.promptDir).text;
  } catch (err) {
    // Only odd stored outcomes raise (never memrl's own): the reference then sends no block.
    if (err instanceof BcbMemoryOutcomeError) return '';
    throw err;
  }
}

/** The chat messages for one BCB attempt: system rules (+ memories) and the task prompt. */
export function bcbMessages(task: BcbTask, ctx: Pick<EpisodeContext, 'memories'>, opts: BcbEpisodeOptions): ChatMessage[] {
  // Sent as written, final newline included, as the reference sends its prompt.
  const system = loadTemplate(BCB_PROMPT_DIR, 'system.md', opts.promptDir).text;
  const memoryBlock = bcbMemoryBlock(ctx.memories, opts);
  return [
    { role: 'system', content: memoryBlock ? `${system}\n\n${memoryBlock}` : system },
    { role: 'user', content: task.key },
  ];
}

/** One generation, code extraction, then the task's unit tests in the evaluator (local sandbox or container). */
export async function runBcbEpisode(task: BcbTask, ctx: EpisodeContext, opts: BcbEpisodeOptions, evaluator: BcbEvaluator): Promise<Outcome> {
  const fidelity = opts.fidelity ?? REFERENCE_FIDELITY;
  let reply;
  try {
    reply = await ctx.model.chat(
      {
        messages: bcbMessages(task, ctx, opts),
        temperature: opts.temperature,
        maxTokens: opts.maxTokens,
        // bcb.empty-reply: the reference tests an empty reply as the code "".
        acceptEmpty: !fidelity.memrl(EMPTY_REPLY_SWITCH),
        tags: { benchmark: 'bcb', taskId: task.id, epoch: ctx.epoch, phase: ctx.phase, role: 'agent', purpose: 'solve' },
        memoryHints: ctx.memories.map(({ id, key, success, taskId }) => ({ id, key, success, taskId })),
      },
      ctx.signal,
    );
  } catch (err) {
    // The model call failed after the client's own retries: an error row, not a wrong answer.
    throw new EpisodeFault('model', 'model_call_failed', `model call failed: ${errorMessage(err)}`, {}, { cause: err });
  }
  const code = extractCodeFor(reply.text, fidelity);
  const sanitize = fidelity.memrl(SANITIZE_SWITCH);
  const verdict = await evaluator.evaluate(task, code, { ...opts.eval, sanitize, signal: ctx.signal });
  // What the tests said, beyond the first line: kept in the episode's transcript, not in the row.
  const evaluatorOutput = { testsRun: verdict.testsRun, failures: verdict.failures, errors: verdict.errors, firstError: verdict.firstError, issues: verdict.issues ?? [] };
  const extra = { evalMs: verdict.durationMs, testsRun: verdict.testsRun, evalMode: opts.eval.mode, ...(sanitize ? { sanitized: true } : {}), evaluatorOutput };
  // The sandbox or container failed (not the code under test): an error row.
  if (verdict.status === 'error') throw new EpisodeFault('harness', 'evaluator_failed', verdict.firstError ?? 'the evaluator failed', { steps: 1, trajectory: reply.text, usage: reply.usage, extra });
  return {
    status: verdict.status,
    success: verdict.status === 'pass',
    steps: 1,
    error: verdict.firstError,
    answer: code,
    // The reference stores the raw model reply as the trajectory.
    trajectory: reply.text,
    usage: reply.usage,
    extra,
  };
}
