import { pyStrip } from '../../util/python/text.js';
import { loadTemplate, render } from '../../util/template.js';
import { errorMessage } from '../../util/errors.js';
import type { ChatMessage, ContentPart } from '../../llm/types.js';
import { EpisodeFault, REFERENCE_FIDELITY, type EpisodeContext, type Fidelity, type InjectedMemory, type Outcome, type OutcomeExtra } from '../../core/index.js';
import type { HleTask } from './dataset.js';
import { parseJudgeReply, statedConfidence } from './judge.js';
import { parseJudgeReference, referenceVerdict } from './judge-reference.js';
import { buildHleMemoryContext, HLE_PROMPT_DIR } from './memory-context.js';
import { ATTEMPT_SOLUTION_SWITCH, EMPTY_REPLY_SWITCH, JUDGE_VERDICT_SWITCH } from './switches.js';

export { HLE_PROMPT_DIR };

export interface HleEpisodeOptions {
  temperature: number;
  maxTokens?: number;
  judgeTemperature: number;
  judgeMaxTokens?: number;
  promptDir?: string;
  /** Every loaded task by id: a retrieved memory brings its source question's image along. */
  tasksById?: ReadonlyMap<string, HleTask>;
  /** The run's switch settings (default: the reference's behaviour everywhere). */
  fidelity?: Fidelity;
}

/**
 * Successful and failed experiences as one system message ('' when there are none).
 * A memory's image id is its source question's id (when that question has an image).
 */
export function hleMemoryBlock(memories: readonly InjectedMemory[], promptDir?: string, tasksById?: ReadonlyMap<string, HleTask>): string {
  const records = memories.map((m) => ({
    id: m.id,
    content: m.content,
    success: m.success,
    imageIds: m.taskId && tasksById?.get(m.taskId)?.image ? [m.taskId] : [],
  }));
  return buildHleMemoryContext(records, records.length, promptDir).text;
}

/** Image URLs to send: the question's own, then those of retrieved memories' source questions (no duplicates). */
export function hleImages(task: HleTask, memories: readonly InjectedMemory[], tasksById?: ReadonlyMap<string, HleTask>): string[] {
  const urls: string[] = [];
  const add = (u: string | undefined): void => void (u && !urls.includes(u) && urls.push(u));
  add(task.image);
  for (const m of memories) if (m.taskId && m.taskId !== task.id) add(tasksById?.get(m.taskId)?.image);
  return urls;
}

/** Stands for the solution while the trajectory template's shape is read. */
const SOLUTION_SENTINEL = '\u0000solution\u0000';

/**
 * What memory stores of an attempt: the question and the solution, stripped (template
 * trajectory.md, rendered as written: the reference's ends with a newline, memrl's not).
 */
export function hleTrajectory(task: Pick<HleTask, 'question'>, reply: string, promptDir?: string): string {
  const t = loadTemplate(HLE_PROMPT_DIR, 'trajectory.md', promptDir);
  return render(t.text, { question: task.question, solution: pyStrip(reply) }, t.path);
}

/** The solution part of a trajectory hleTrajectory wrote (the whole text when it has another shape). */
function solutionOf(task: Pick<HleTask, 'question'>, trajectory: string, promptDir?: string): string {
  const [before = '', after = ''] = hleTrajectory(task, SOLUTION_SENTINEL, promptDir).split(SOLUTION_SENTINEL);
  const fits = trajectory.length >= before.length + after.length && trajectory.startsWith(before) && trajectory.endsWith(after);
  return fits ? trajectory.slice(before.length, trajectory.length - after.length) : trajectory;
}

/**
 * The reflection baseline's note on this question's previous attempt, as the reference
 * builds it (HLERunner._format_reflection_note): its result, the question and the
 * solution alone; the solution's line is left out when there is none.
 */
export function hleAttemptNote(
  task: Pick<HleTask, 'question'>,
  attempt: { trajectory: string; success: boolean },
  opts: { promptDir?: string; fidelity?: Fidelity } = {},
): string {
  const { promptDir } = opts;
  const answer = pyStrip(solutionOf(task, attempt.trajectory, promptDir));
  // The reference keeps "QUESTION\n<q>\n\nSOLUTION\n<answer>\n" and takes what follows the first "SOLUTION" in it.
  const referenceCut = (): string => {
    const kept = `QUESTION\n${task.question}\n\nSOLUTION\n${answer}\n`;
    return pyStrip(kept.slice(kept.indexOf('SOLUTION') + 'SOLUTION'.length));
  };
  const solution = (opts.fidelity ?? REFERENCE_FIDELITY).memrl(ATTEMPT_SOLUTION_SWITCH) ? answer : referenceCut();
  const result = loadTemplate(HLE_PROMPT_DIR, attempt.success ? 'attempt-result-correct.md' : 'attempt-result-incorrect.md', promptDir).text.trim();
  const t = loadTemplate(HLE_PROMPT_DIR, 'attempt-note.md', promptDir);
  // A sentinel line stands for the solution so that an empty one drops its line, as the reference's filter does.
  const SENTINEL = '\u0000solution\u0000';
  const text = render(t.text, { result, question: task.question, solution: SENTINEL }, t.path).trimEnd();
  return solution === '' ? text.replace(new RegExp(`^${SENTINEL}\n?`, 'm'), '') : text.replace(SENTINEL, () => solution);
}

/** The solver's messages: format rules, a retried question's note on its attempt, memories (own system message), then the question with its images. */
export function hleMessages(task: HleTask, ctx: Pick<EpisodeContext, 'memories'>, opts: HleEpisodeOptions): ChatMessage[] {
  const file = task.answerType === 'multipleChoice' ? 'system-multiple-choice.md' : 'system-exact-match.md';
  const system = loadTemplate(HLE_PROMPT_DIR, file, opts.promptDir).text.trimEnd();
  const messages: ChatMessage[] = [{ role: 'system', content: system }];
  for (const m of ctx.memories) {
    if (m.attempt) {
      const note = hleAttemptNote(task, { trajectory: m.attempt.trajectory, success: m.success }, { ...(opts.promptDir ? { promptDir: opts.promptDir } : {}), ...(opts.fidelity ? { fidelity: opts.fidelity } : {}) });
      messages.push({ role: 'system', content: note });
    }
  }
  const memory = hleMemoryBlock(ctx.memories.filter((m) => !m.attempt), opts.promptDir, opts.tasksById);
  if (memory) messages.push({ role: 'system', content: memory });
  const images = hleImages(task, ctx.memories, opts.tasksById);
  const content: string | ContentPart[] =
    images.length === 0
      ? task.question
      : [{ type: 'text', text: task.question }, ...images.map((url): ContentPart => ({ type: 'image_url', image_url: { url } }))];
  messages.push({ role: 'user', content });
  return messages;
}

/** The judge's one user message: question, the solver's raw output (nothing extracted first), gold answer. */
export function hleJudgeMessages(task: Pick<HleTask, 'question' | 'answer'>, response: string, promptDir?: string): ChatMessage[] {
  const t = loadTemplate(HLE_PROMPT_DIR, 'judge.md', promptDir);
  return [{ role: 'user', content: render(t.text, { question: task.question, response, correct_answer: task.answer }, t.path).trimEnd() }];
}

/** One solver call, one judge call. Reward = the judge says yes. */
export async function runHleEpisode(task: HleTask, ctx: EpisodeContext, opts: HleEpisodeOptions): Promise<Outcome> {
  const images = hleImages(task, ctx.memories, opts.tasksById);
  const base: OutcomeExtra = {
    category: task.category,
    answerType: task.answerType,
    images: images.length,
    ...(task.imageWarning ? { imageWarning: task.imageWarning } : {}),
  };
  const tags = { benchmark: 'hle', taskId: task.id, epoch: ctx.epoch, phase: ctx.phase };
  const fidelity = opts.fidelity ?? REFERENCE_FIDELITY;
  let reply;
  try {
    reply = await ctx.model.chat(
      {
        messages: hleMessages(task, ctx, opts),
        temperature: opts.temperature,
        maxTokens: opts.maxTokens,
        // hle.empty-reply: the reference judges an empty reply as the answer ''.
        acceptEmpty: !fidelity.memrl(EMPTY_REPLY_SWITCH),
        tags: { ...tags, role: 'agent', purpose: 'solve' },
        memoryHints: ctx.memories.map(({ id, key, success, taskId }) => ({ id, key, success, taskId })),
      },
      ctx.signal,
    );
  } catch (err) {
    throw new EpisodeFault('model', 'model_call_failed', `model call failed: ${errorMessage(err)}`, { extra: base }, { cause: err });
  }
  const trajectory = hleTrajectory(task, reply.text, opts.promptDir);
  const solverConfidence = statedConfidence(reply.text);
  const solved = { ...base, ...(solverConfidence !== undefined ? { solverConfidence } : {}) };
  // The judge failed, not the solver: an error row, with the solver's reply kept.
  const fail = (code: string, error: string, extra: OutcomeExtra, cause?: unknown): never => {
    throw new EpisodeFault('model', code, error, { steps: 1, trajectory, usage: reply.usage, extra: { ...solved, ...extra } }, { cause });
  };

  if (!ctx.judge) return fail('no_judge', 'no judge model configured for HLE', {});
  // hle.judge-verdict: the reference asks without JSON mode and reads any reply (or none) as a verdict.
  const strict = fidelity.memrl(JUDGE_VERDICT_SWITCH);
  let judged;
  let judgeError: string | undefined;
  try {
    judged = await ctx.judge.chat(
      {
        messages: hleJudgeMessages(task, reply.text, opts.promptDir),
        temperature: opts.judgeTemperature,
        maxTokens: opts.judgeMaxTokens,
        ...(strict ? { jsonMode: true } : {}),
        tags: { ...tags, role: 'judge', purpose: 'judge' },
      },
      ctx.signal,
    );
  } catch (err) {
    // A stopped run is never a verdict.
    if (strict || ctx.signal.aborted) return fail('judge_call_failed', `judge call failed: ${errorMessage(err)}`, {}, err);
    judgeError = errorMessage(err);
  }
  if (!strict) return referenceJudged(task, judged?.text ?? '', judged?.usage.totalTokens ?? 0, judgeError, { trajectory, usage: reply.usage, extra: solved });
  if (!judged) return fail('judge_call_failed', `judge call failed: ${judgeError ?? 'no reply'}`, {});
  const verdict = parseJudgeReply(judged.text);
  const judgeExtra = { judgeRaw: judged.text, judgeTokens: judged.usage.totalTokens };
  if (!verdict) {
    const first = judged.text.trim().split(/\r?\n/)[0]?.slice(0, 120) ?? '';
    return fail('judge_unparseable', `judge reply has no yes/no verdict: ${first || '(empty reply)'}`, judgeExtra);
  }
  return {
    status: verdict.correct ? 'pass' : 'fail',
    success: verdict.correct,
    steps: 1,
    answer: verdict.extractedFinalAnswer,
    trajectory,
    usage: reply.usage,
    extra: {
      ...solved,
      ...judgeExtra,
      extractedAnswer: verdict.extractedFinalAnswer,
      verdict: verdict.correct ? 'yes' : 'no',
      judgeReasoning: verdict.reasoning,
      ...(verdict.confidence !== undefined ? { judgeConfidence: verdict.confidence } : {}),
      judgeFormat: verdict.format,
    },
  };
}

/** The outcome as the reference scores it: its verdict parse, "no" for anything unreadable or a failed call. */
function referenceJudged(
  task: HleTask,
  judgeText: string,
  judgeTokens: number,
  judgeError: string | undefined,
  solved: Pick<Outcome, 'trajectory' | 'usage'> & { extra: OutcomeExtra },
): Outcome {
  const r = parseJudgeReference(judgeText, task.answer);
  const yes = referenceVerdict(r);
  const answer = r.model_answer === null ? '' : typeof r.model_answer === 'string' ? r.model_answer : JSON.stringify(r.model_answer);
  return {
    status: yes ? 'pass' : 'fail',
    success: yes,
    steps: 1,
    answer,
    trajectory: solved.trajectory,
    usage: solved.usage,
    ...(judgeError ? { error: `judge call failed (counted as "no", as the reference does): ${judgeError}` } : {}),
    extra: {
      ...solved.extra,
      judgeRaw: judgeText,
      judgeTokens,
      extractedAnswer: answer,
      verdict: r.correct,
      judgeReasoning: r.reasoning,
      judgeConfidence: r.confidence,
      judgeFormat: 'reference',
      ...(judgeError ? { judgeError } : {}),
    },
  };
}
