import { loadTemplate } from '../../util/template.js';
import { errorMessage } from '../../util/errors.js';
import type { ChatMessage } from '../../llm/types.js';
import { formatMemoryBlock } from '../memory-context.js';
import { EpisodeFault, type EpisodeContext, type Outcome } from '../../core/index.js';
import type { BcbTask } from './dataset.js';
import type { BcbEvalOptions } from './evaluate.js';
import type { BcbEvaluator } from './evaluator.js';
import { extractCode } from './extract.js';

export const BCB_PROMPT_DIR = 'src/bench/bcb/prompts';

export interface BcbEpisodeOptions {
  temperature: number;
  maxTokens?: number;
  /** Character budget shared by the injected memories; undefined = no limit. */
  memoryBudgetChars?: number;
  promptDir?: string;
  eval: Omit<BcbEvalOptions, 'signal'>;
}

/** The chat messages for one BCB attempt: system rules (+ memories) and the task prompt. */
export function bcbMessages(task: BcbTask, ctx: Pick<EpisodeContext, 'memories'>, opts: BcbEpisodeOptions): ChatMessage[] {
  const system = loadTemplate(BCB_PROMPT_DIR, 'system.md', opts.promptDir).text.trimEnd();
  const memoryBlock = formatMemoryBlock(ctx.memories, {
    templateDir: BCB_PROMPT_DIR,
    promptDir: opts.promptDir,
    budgetChars: opts.memoryBudgetChars,
  });
  return [
    { role: 'system', content: memoryBlock ? `${system}\n\n${memoryBlock}` : system },
    { role: 'user', content: task.key },
  ];
}

/** One generation, code extraction, then the task's unit tests in the evaluator (local sandbox or container). */
export async function runBcbEpisode(task: BcbTask, ctx: EpisodeContext, opts: BcbEpisodeOptions, evaluator: BcbEvaluator): Promise<Outcome> {
  let reply;
  try {
    reply = await ctx.model.chat(
      {
        messages: bcbMessages(task, ctx, opts),
        temperature: opts.temperature,
        maxTokens: opts.maxTokens,
        tags: { benchmark: 'bcb', taskId: task.id, epoch: ctx.epoch, phase: ctx.phase, role: 'agent', purpose: 'solve' },
        memoryHints: ctx.memories.map(({ id, key, success, taskId }) => ({ id, key, success, taskId })),
      },
      ctx.signal,
    );
  } catch (err) {
    // The model call failed after the client's own retries: an error row, not a wrong answer.
    throw new EpisodeFault('model', 'model_call_failed', `model call failed: ${errorMessage(err)}`, {}, { cause: err });
  }
  const code = extractCode(reply.text);
  const verdict = await evaluator.evaluate(task, code, { ...opts.eval, signal: ctx.signal });
  const extra = { evalMs: verdict.durationMs, testsRun: verdict.testsRun, evalMode: opts.eval.mode };
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
