/**
 * LLB episodes, multi-turn, laid out as the reference runs them
 * (memrl/run/llb_rl_runner.py over LifelongAgentBench's Task/Agent loop):
 * - system: the agent prompt, then the memory context when something was retrieved,
 *   then the task family's output-format block (lifelongbench_eval/prompts.py);
 * - user: the environment's instructions; assistant: "OK."; user: the task
 *   (db: the question and a line naming the table and its columns);
 * - then one model reply and one observation per round, up to max_steps rounds.
 * db: `Action: Operation` + a ```sql block (run as the task's limited user with a
 *   statement time limit; rows or the error come back), or `Action: Answer` +
 *   `Final Answer: …`. Scored after the episode (md5: the table state; direct: the
 *   answer); the database is dropped whatever happens.
 * os: `Act: bash` + ```bash blocks (20 s), or `Act: finish`; scored by the task's
 *   evaluation script.
 * Parsing, scoring and flow follow the reference; each place memrl can do otherwise
 * is a fidelity switch (switches.ts). A fault of the evaluator itself (server or
 * container gone) or of the model endpoint ends the episode with an EpisodeFault
 * (an `error` row), never as a model failure.
 */
import { errorMessage } from '../../util/errors.js';
import { REFERENCE_FIDELITY, type Fidelity } from '../../util/fidelity.js';
import { loadTemplate, render } from '../../util/template.js';
import { ZERO_USAGE, type ChatMessage, type TokenUsage } from '../../llm/types.js';
import { DEFAULT_PROMPT_DIR as MEMORY_PROMPT_DIR, MEMORY_TEMPLATES } from '../../memory/writer.js';
import { EpisodeFault, type EpisodeContext, type InjectedMemory, type Outcome, type OutcomeExtra } from '../../core/index.js';
import type { TaskDatabase } from '../../env/sql/contract.js';
import type { SqlServer } from '../../env/sql/sql-server.js';
import type { ShellEnvironment } from '../../env/shell/contract.js';
import type { DbTask, OsTask } from './dataset.js';
import { DB_STATEMENT_TIMEOUT_S, openDbTask, scoreDbTask } from './db-env.js';
import { parseDbReply, sqlStatements, type ParsedAction } from './db-parse.js';
import { adaptSql, observationOf } from './db-score.js';
import { createLocalOsEnvironment } from './evaluator.js';
import { bucketMemories, formatLlbMemoryContext, LLB_PROMPT_DIR } from './memory-context.js';
import { osObservation, parseOsReply } from './os-parse.js';
import { LLB_SWITCHES } from './switches.js';

export { LLB_PROMPT_DIR };
export const OS_COMMAND_TIMEOUT_S = 20;
/** The agent's reply to the environment's instructions (fixed in the reference's code). */
export const PREAMBLE_ACK = 'OK.';

export interface LlbEpisodeOptions {
  maxSteps: number;
  temperature: number;
  maxTokens?: number;
  /** A prompt pack's llb namespace. */
  promptDir?: string;
  /** A prompt pack's memory namespace (where the writer's failure template says the trajectory starts). */
  memoryPromptDir?: string;
  statementTimeoutS?: number;
  /** Default: every switch at the reference's behaviour. */
  fidelity?: Fidelity;
  /** What the memory context calls a memory (the reference's metadata.type); default procedure / adjustment by outcome. */
  memoryType?: (m: InjectedMemory) => string;
}

export interface LlbTurn {
  turn: number;
  reply: string;
  /** `unexecuted`: the reply after the round limit, never acted on (the reference asks for it anyway). */
  action: 'operation' | 'answer' | 'bash' | 'finish' | 'invalid' | 'unexecuted';
  /** The SQL / bash run, if any. */
  command?: string;
  observation?: string;
  /** Why a reply was invalid. */
  reason?: string;
}

/** How an episode ended, in the reference's sample-status words. */
export type LlbStatus = 'completed' | 'agent_validation_failed' | 'task_limit_reached';

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return { promptTokens: a.promptTokens + b.promptTokens, completionTokens: a.completionTokens + b.completionTokens, totalTokens: a.totalTokens + b.totalTokens };
}

/** A template filled in; the file's own trailing newline dropped, the values left as they are. */
function text(file: string, vars: Record<string, string | number>, opts: LlbEpisodeOptions): string {
  const t = loadTemplate(LLB_PROMPT_DIR, file, opts.promptDir);
  return render(t.text.trimEnd(), vars, t.path);
}

/** The first line of a template, up to its first placeholder: how its text is recognised inside a transcript. */
function openingLine(file: string, promptDir: string | undefined): string | null {
  const first = loadTemplate(LLB_PROMPT_DIR, file, promptDir).text.split('\n').find((l) => l.trim() !== '');
  const head = first?.split('{{')[0]?.trim();
  return head ? head : null;
}

/** Where the writer's failure template puts the failed trajectory (its heading, lower case), e.g. "failed trajectory:". */
export function writerFailureMarker(memoryPromptDir: string | undefined): string | null {
  const lines = loadTemplate(MEMORY_PROMPT_DIR, MEMORY_TEMPLATES.failure, memoryPromptDir).text.split('\n');
  const at = lines.findIndex((l) => /\{\{\s*trajectory\s*\}\}/.test(l));
  if (at < 0) return null;
  const before = (lines[at] as string).split('{{')[0]?.trim();
  if (before) return before.toLowerCase();
  const heading = lines
    .slice(0, at)
    .reverse()
    .find((l) => l.trim() !== '');
  return heading ? heading.trim().toLowerCase() : null;
}

/** The reference's label of a memory: its metadata.type, procedure for successes, adjustment for reflections. */
function defaultMemoryType(m: InjectedMemory): string {
  return m.success ? 'procedure' : 'adjustment';
}

/** The memory context for this episode, or null when nothing was retrieved (no block at all). */
export function llbMemoryBlock(kind: 'db' | 'os', memories: readonly InjectedMemory[], opts: LlbEpisodeOptions): string | null {
  if (memories.length === 0) return null;
  const type = opts.memoryType ?? defaultMemoryType;
  const buckets = bucketMemories(
    memories.map((m) => ({ content: m.content, type: type(m), success: m.success })),
    (m) => m.success,
  );
  const markers = ['db-preamble.md', 'os-preamble.md'].map((f) => openingLine(f, opts.promptDir)).filter((m): m is string => m !== null);
  const failure = writerFailureMarker(opts.memoryPromptDir);
  return formatLlbMemoryContext(buckets, {
    task: kind,
    promptDir: opts.promptDir,
    preambleMarkers: markers,
    failureMarkers: failure ? [failure] : [],
  }).text;
}

/** System prompt: agent prompt, memory context (if any), then the format block (lifelongbench_eval/prompts.py:build_llb_prompt_with_memory). */
export function llbSystemPrompt(kind: 'db' | 'os', memoryBlock: string | null, opts: LlbEpisodeOptions): string {
  const base = text('system.md', { maxSteps: opts.maxSteps }, opts).trim();
  const memory = memoryBlock?.trim() ?? '';
  const combined = memory ? `${base}\n\n${memory}` : base;
  return `${combined}\n\n${text(`${kind}-format.md`, {}, opts).trim()}`.trim();
}

/** The messages before the first reply. */
export function llbOpening(kind: 'db' | 'os', taskPrompt: string, memories: readonly InjectedMemory[], opts: LlbEpisodeOptions): ChatMessage[] {
  return [
    { role: 'system', content: llbSystemPrompt(kind, llbMemoryBlock(kind, memories, opts), opts) },
    { role: 'user', content: text(`${kind}-preamble.md`, { maxSteps: opts.maxSteps }, opts) },
    { role: 'assistant', content: PREAMBLE_ACK },
    { role: 'user', content: taskPrompt },
  ];
}

export function dbTaskPrompt(task: DbTask, opts: LlbEpisodeOptions): string {
  const tableLine = text('db-table.md', { table: task.table.name, headers: task.table.columns.map((c) => c.name).join(', ') }, opts);
  return text('db-task.md', { instruction: task.instruction, tableLine }, opts);
}

export function osTaskPrompt(task: OsTask, opts: LlbEpisodeOptions): string {
  return text('os-task.md', { instruction: task.instruction }, opts);
}

/**
 * What memory stores: the conversation after the system prompt as `user: …` /
 * `assistant: …` lines (LifelongAgentBench's ChatHistory.get_value_str). An empty
 * reply ends it, and the message before that reply is dropped too.
 */
export function llbTranscript(messages: readonly ChatMessage[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    const content = typeof m.content === 'string' ? m.content : '';
    if (m.role === 'assistant' && content === '') {
      lines.pop();
      break;
    }
    lines.push(`${m.role}: ${content}`);
  }
  return lines.join('\n');
}

async function chat(task: { id: string }, ctx: EpisodeContext, opts: LlbEpisodeOptions, messages: ChatMessage[], turn: number) {
  return ctx.model.chat(
    {
      messages: [...messages],
      temperature: opts.temperature,
      maxTokens: opts.maxTokens,
      // llb.empty-reply: the reference parses an empty reply (no valid format) and scores the task.
      acceptEmpty: !(opts.fidelity ?? REFERENCE_FIDELITY).memrl(LLB_SWITCHES.emptyReply),
      tags: { benchmark: 'llb', taskId: task.id, epoch: ctx.epoch, phase: ctx.phase, role: 'agent', purpose: 'act', turn },
      memoryHints: ctx.memories.map(({ id, key, success, taskId }) => ({ id, key, success, taskId })),
    },
    ctx.signal,
  );
}

interface TurnLoopResult {
  usage: TokenUsage;
  status: LlbStatus;
  /** Model calls made. */
  calls: number;
  /** The model call failed: the episode is a harness error. */
  modelError?: string;
  /** The evaluator failed while acting (server or container gone): a harness error too. */
  evaluatorError?: unknown;
}

/**
 * The rounds both families share: ask the model, parse, stop on an invalid reply,
 * else `act` returns the next observation, or null when the action ends the task.
 * The round limit is checked after the model replied, as LifelongAgentBench's
 * Task.interact does: the reference asks once more at the limit and never acts on
 * that reply (switch llb.extra-turn-at-limit: memrl stops before the call).
 */
async function turnLoop(
  task: { id: string },
  ctx: EpisodeContext,
  opts: LlbEpisodeOptions,
  messages: ChatMessage[],
  turns: LlbTurn[],
  parse: (text: string) => ParsedAction,
  act: (action: ParsedAction, turn: number, reply: string) => Promise<string | null>,
): Promise<TurnLoopResult> {
  const fidelity = opts.fidelity ?? REFERENCE_FIDELITY;
  const askAtLimit = !fidelity.memrl(LLB_SWITCHES.extraTurnAtLimit);
  let usage: TokenUsage = ZERO_USAGE;
  let calls = 0;
  for (let turn = 0; ; turn++) {
    if (turn >= opts.maxSteps && !askAtLimit) return { usage, status: 'task_limit_reached', calls };
    let reply;
    try {
      reply = await chat(task, ctx, opts, messages, turn);
    } catch (err) {
      return { usage, status: 'agent_validation_failed', calls, modelError: `model call failed: ${errorMessage(err)}` };
    }
    calls++;
    usage = addUsage(usage, reply.usage);
    messages.push({ role: 'assistant', content: reply.text });
    if (turn >= opts.maxSteps) {
      turns.push({ turn, reply: reply.text, action: 'unexecuted' });
      return { usage, status: 'task_limit_reached', calls };
    }
    const action = parse(reply.text);
    if (action.action === 'invalid') {
      turns.push({ turn, reply: reply.text, action: 'invalid', ...(action.finish_reason ? { reason: action.finish_reason } : {}) });
      return { usage, status: 'agent_validation_failed', calls };
    }
    let observation: string | null;
    try {
      observation = await act(action, turn, reply.text);
    } catch (err) {
      return { usage, status: 'agent_validation_failed', calls, evaluatorError: err };
    }
    if (observation === null) return { usage, status: 'completed', calls };
    messages.push({ role: 'user', content: observation });
  }
}

/** The rows or error of an Operation: each statement in turn, the last result (or the first error) shown, whole. */
async function runOperation(db: TaskDatabase, sql: string, opts: LlbEpisodeOptions, fidelity: Fidelity): Promise<{ observation: string; timeouts: number }> {
  let observation = '';
  let timeouts = 0;
  for (const statement of sqlStatements(sql, fidelity)) {
    const r = await db.exec(adaptSql(statement, db.dialect), opts.statementTimeoutS ?? DB_STATEMENT_TIMEOUT_S);
    if (r.timedOut) timeouts++;
    observation = observationOf(r);
    if (!r.ok) break;
  }
  return { observation, timeouts };
}

export async function runDbEpisode(task: DbTask, ctx: EpisodeContext, opts: LlbEpisodeOptions, server?: SqlServer): Promise<Outcome> {
  const fidelity = opts.fidelity ?? REFERENCE_FIDELITY;
  const turns: LlbTurn[] = [];
  let usage: TokenUsage = ZERO_USAGE;
  const kind = task.answer.md5 !== null ? 'md5' : 'direct';
  const base = () => ({ task: 'db', kind, transcript: turns });
  const messages = llbOpening('db', dbTaskPrompt(task, opts), ctx.memories, opts);
  let db: TaskDatabase;
  try {
    db = await openDbTask(task, server);
  } catch (err) {
    throw new EpisodeFault('harness', 'evaluator_setup_failed', `database setup failed: ${errorMessage(err)}`, partial(messages, 0, usage, base()), { cause: err });
  }
  let calls = 0;
  try {
    // Held in an object: the loop's callback sets it, which plain `let` narrowing would not see.
    const final: { answer: string | null } = { answer: null };
    let timeouts = 0;
    const loop = await turnLoop(task, ctx, opts, messages, turns, (t) => parseDbReply(t, fidelity), async (action, turn, reply) => {
      if (action.action === 'finish') {
        final.answer = action.content ?? '';
        turns.push({ turn, reply, action: 'answer', observation: final.answer });
        return null;
      }
      const sql = action.content ?? '';
      const r = await runOperation(db, sql, opts, fidelity);
      timeouts += r.timeouts;
      turns.push({ turn, reply, action: 'operation', command: sql, observation: r.observation });
      return r.observation;
    });
    usage = loop.usage;
    calls = loop.calls;
    if (loop.evaluatorError !== undefined) throw loop.evaluatorError;
    if (loop.modelError) throw new EpisodeFault('model', 'model_call_failed', loop.modelError, partial(messages, calls, usage, base()));
    const invalid = loop.status === 'agent_validation_failed';
    const score =
      invalid && fidelity.memrl(LLB_SWITCHES.dbScoreAfterInvalid)
        ? { success: false, kind, error: 'reply in no valid format' }
        : await scoreDbTask(db, task, final.answer, fidelity);
    return {
      status: score.success ? 'pass' : 'fail',
      success: score.success,
      steps: calls,
      // The reference collects a batch as its threads finish (as_completed); a thread's time is mostly its
      // model calls, so finishing order is taken as the number of replies: the same whatever the timing or --concurrency.
      finishRank: calls,
      answer: final.answer ?? undefined,
      error: score.success ? undefined : (score.error ?? (invalid ? 'reply in no valid format' : undefined)),
      trajectory: llbTranscript(messages),
      usage,
      extra: { ...base(), sampleStatus: loop.status, invalidFormat: invalid, answered: final.answer !== null, statementTimeouts: timeouts },
    };
  } catch (err) {
    throw evaluatorFault('database', err, partial(messages, calls, usage, base()));
  } finally {
    await db.dispose();
  }
}

/** What an episode that stops early keeps in its error row: the conversation so far and its tokens. */
function partial(messages: readonly ChatMessage[], steps: number, usage: TokenUsage, extra: OutcomeExtra) {
  return { steps, trajectory: llbTranscript(messages), usage, extra };
}

/** The evaluator failed under the episode: an error row, not the model's failure (a fault raised inside passes through). */
function evaluatorFault(what: string, err: unknown, kept: ReturnType<typeof partial>): EpisodeFault {
  if (err instanceof EpisodeFault) return err;
  return new EpisodeFault('harness', 'evaluator_failed', `${what} evaluator failed: ${errorMessage(err)}`, kept, { cause: err });
}

export async function runOsEpisode(
  task: OsTask,
  ctx: EpisodeContext,
  opts: LlbEpisodeOptions,
  create: () => Promise<ShellEnvironment> = createLocalOsEnvironment,
): Promise<Outcome> {
  const fidelity = opts.fidelity ?? REFERENCE_FIDELITY;
  const turns: LlbTurn[] = [];
  let usage: TokenUsage = ZERO_USAGE;
  const base = () => ({ task: 'os', transcript: turns });
  const messages = llbOpening('os', osTaskPrompt(task, opts), ctx.memories, opts);
  let env: ShellEnvironment | undefined;
  try {
    env = await create();
    if (task.initScript) await env.init(task.initScript);
  } catch (err) {
    if (env) await env.dispose().catch(() => undefined);
    throw new EpisodeFault('harness', 'evaluator_setup_failed', `os environment setup failed: ${errorMessage(err)}`, partial(messages, 0, usage, base()), { cause: err });
  }
  const os = env;
  let calls = 0;
  try {
    const loop = await turnLoop(task, ctx, opts, messages, turns, (t) => parseOsReply(t, fidelity), async (action, turn, reply) => {
      if (action.action === 'finish') {
        turns.push({ turn, reply, action: 'finish' });
        return null;
      }
      const script = action.content ?? '';
      const r = await os.exec(script, OS_COMMAND_TIMEOUT_S);
      const observation = osObservation({ output: r.output, timedOut: r.timedOut }, OS_COMMAND_TIMEOUT_S, fidelity);
      turns.push({ turn, reply, action: 'bash', command: script, observation });
      return observation;
    });
    usage = loop.usage;
    calls = loop.calls;
    if (loop.evaluatorError !== undefined) throw loop.evaluatorError;
    if (loop.modelError) throw new EpisodeFault('model', 'model_call_failed', loop.modelError, partial(messages, calls, usage, base()));
    const invalid = loop.status === 'agent_validation_failed';
    // The reference runs the evaluation script whatever the status (switch llb.os-eval-always).
    const success = invalid && fidelity.memrl(LLB_SWITCHES.osEvalAlways) ? false : await os.check(task.evalScript);
    return {
      status: success ? 'pass' : 'fail',
      success,
      steps: calls,
      finishRank: calls,
      error: success ? undefined : invalid ? 'reply in no valid format' : undefined,
      trajectory: llbTranscript(messages),
      usage,
      extra: { ...base(), sampleStatus: loop.status, invalidFormat: invalid },
    };
  } catch (err) {
    throw evaluatorFault('os', err, partial(messages, calls, usage, base()));
  } finally {
    await os.dispose().catch(() => undefined);
  }
}
