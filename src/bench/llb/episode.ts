/**
 * LLB episodes, multi-turn.
 * db: each reply carries `Action: Operation` + one ```sql block (run as the task's
 *   limited user with a statement timeout; rows or the error text come back as the
 *   next user message) or `Action: Answer` + `Final Answer: …` (ends the task). A
 *   reply matching neither ends the task as a failure, as LLB does. Scoring after
 *   the episode (db-score.ts); the database is dropped whatever happens.
 * os: `Act: bash` + a ```bash block (20 s), or `Act: finish`; scored by the task's
 *   evaluation script.
 * Where they run (local or containers) is the caller's (evaluator.ts). A fault of
 * the evaluator itself (server or container gone, engine restarted) or of the model
 * endpoint ends the episode with an EpisodeFault (an `error` row), never as a model
 * failure.
 */
import { errorMessage } from '../../util/errors.js';
import { loadTemplate, render } from '../../util/template.js';
import { ZERO_USAGE, type ChatMessage, type TokenUsage } from '../../llm/types.js';
import { formatMemoryBlock } from '../memory-context.js';
import { EpisodeFault, type EpisodeContext, type Outcome } from '../../core/index.js';
import type { TaskDatabase } from '../../env/sql/contract.js';
import type { SqlServer } from '../../env/sql/sql-server.js';
import type { ShellEnvironment } from '../../env/shell/contract.js';
import type { DbTask, OsTask } from './dataset.js';
import { DB_STATEMENT_TIMEOUT_S, openDbTask, scoreDbTask } from './db-env.js';
import { adaptSql, observationOf } from './db-score.js';
import { createLocalOsEnvironment } from './evaluator.js';

export const LLB_PROMPT_DIR = 'src/bench/llb/prompts';
export const OS_COMMAND_TIMEOUT_S = 20;
/** os output is cut like LLB's (800 chars); db results are kept up to this many characters. */
const OUTPUT_LIMIT = 800;
const DB_OUTPUT_LIMIT = 20_000;

export interface LlbEpisodeOptions {
  maxSteps: number;
  temperature: number;
  maxTokens?: number;
  promptDir?: string;
  statementTimeoutS?: number;
}

export interface LlbTurn {
  turn: number;
  reply: string;
  action: 'operation' | 'answer' | 'bash' | 'finish' | 'invalid';
  /** The SQL / bash run, if any. */
  command?: string;
  observation?: string;
}

export type DbAction = { kind: 'operation'; sql: string } | { kind: 'answer'; answer: string } | { kind: 'invalid' };

/** Parses a db reply. Answer wins when both appear after each other? No: the first `Action:` line decides. */
export function parseDbReply(text: string): DbAction {
  const m = /Action\s*:\s*(Operation|Answer)/i.exec(text);
  if (!m) return { kind: 'invalid' };
  if ((m[1] as string).toLowerCase() === 'answer') {
    const fa = /Final\s+Answer\s*:\s*([^]*)$/i.exec(text.slice(m.index));
    return fa ? { kind: 'answer', answer: (fa[1] as string).trim() } : { kind: 'invalid' };
  }
  const block = /```(?:sql|mysql)?\s*\n?([^]*?)```/i.exec(text.slice(m.index));
  const sql = block?.[1]?.trim();
  return sql ? { kind: 'operation', sql } : { kind: 'invalid' };
}

export type OsAction = { kind: 'bash'; script: string } | { kind: 'finish' } | { kind: 'invalid' };

export function parseOsReply(text: string): OsAction {
  const m = /Act\s*:\s*(bash|finish)/i.exec(text);
  if (!m) return { kind: 'invalid' };
  if ((m[1] as string).toLowerCase() === 'finish') return { kind: 'finish' };
  const block = /```(?:bash|sh|shell)?\s*\n([^]*?)```/i.exec(text.slice(m.index));
  const script = block?.[1]?.trim();
  return script ? { kind: 'bash', script } : { kind: 'invalid' };
}

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return { promptTokens: a.promptTokens + b.promptTokens, completionTokens: a.completionTokens + b.completionTokens, totalTokens: a.totalTokens + b.totalTokens };
}

function opening(systemFile: string, taskFile: string, vars: Record<string, string | number>, ctx: EpisodeContext, opts: LlbEpisodeOptions): ChatMessage[] {
  const sys = loadTemplate(LLB_PROMPT_DIR, systemFile, opts.promptDir);
  const messages: ChatMessage[] = [{ role: 'system', content: render(sys.text, { maxSteps: opts.maxSteps }, sys.path).trimEnd() }];
  const memory = formatMemoryBlock(ctx.memories, { templateDir: LLB_PROMPT_DIR, promptDir: opts.promptDir });
  if (memory) messages.push({ role: 'system', content: memory });
  const t = loadTemplate(LLB_PROMPT_DIR, taskFile, opts.promptDir);
  messages.push({ role: 'user', content: render(t.text, vars, t.path).trimEnd() });
  return messages;
}

/** What memory stores: the task, the commands and what came back, the result. */
export function llbTrajectory(instruction: string, turns: readonly LlbTurn[], success: boolean): string {
  const lines = [`Task: ${instruction}`, ''];
  for (const t of turns) {
    if (t.command !== undefined) lines.push(`> ${t.command}`, t.observation ?? '');
    else if (t.action === 'answer') lines.push(`Final answer: ${t.observation ?? ''}`);
    else if (t.action === 'finish') lines.push('(finished)');
    else lines.push('(reply in no valid format)');
  }
  lines.push('', success ? 'Result: task completed.' : 'Result: task not completed.');
  return lines.join('\n');
}

async function chat(task: { id: string }, ctx: EpisodeContext, opts: LlbEpisodeOptions, messages: ChatMessage[], turn: number, benchmark: string) {
  return ctx.model.chat(
    {
      messages: [...messages],
      temperature: opts.temperature,
      maxTokens: opts.maxTokens,
      tags: { benchmark, taskId: task.id, epoch: ctx.epoch, phase: ctx.phase, role: 'agent', purpose: 'act', turn },
      memoryHints: ctx.memories.map(({ id, key, success, taskId }) => ({ id, key, success, taskId })),
    },
    ctx.signal,
  );
}

interface TurnLoopResult {
  usage: TokenUsage;
  /** A reply in neither format ended the episode (a failure, as in LLB). */
  invalid: boolean;
  /** The model call failed: the episode is a harness error. */
  modelError?: string;
  /** The evaluator failed while acting (server or container gone): a harness error too. */
  evaluatorError?: unknown;
}

/**
 * The turn loop both tasks share: ask the model, parse its reply, stop on an invalid
 * reply; otherwise `act` handles the action and returns the next observation, or null
 * when the action ends the episode (answer, finish).
 */
async function turnLoop<A extends { kind: string }>(
  task: { id: string },
  ctx: EpisodeContext,
  opts: LlbEpisodeOptions,
  messages: ChatMessage[],
  turns: LlbTurn[],
  parse: (text: string) => A,
  act: (action: Exclude<A, { kind: 'invalid' }>, turn: number, reply: string) => Promise<string | null>,
): Promise<TurnLoopResult> {
  let usage: TokenUsage = ZERO_USAGE;
  for (let turn = 0; turn < opts.maxSteps; turn++) {
    let reply;
    try {
      reply = await chat(task, ctx, opts, messages, turn, 'llb');
    } catch (err) {
      return { usage, invalid: false, modelError: `model call failed: ${errorMessage(err)}` };
    }
    usage = addUsage(usage, reply.usage);
    messages.push({ role: 'assistant', content: reply.text.trim() });
    const action = parse(reply.text);
    if (action.kind === 'invalid') {
      turns.push({ turn, reply: reply.text, action: 'invalid' });
      return { usage, invalid: true };
    }
    let observation: string | null;
    try {
      observation = await act(action as Exclude<A, { kind: 'invalid' }>, turn, reply.text);
    } catch (err) {
      return { usage, invalid: false, evaluatorError: err };
    }
    if (observation === null) break;
    messages.push({ role: 'user', content: observation });
  }
  return { usage, invalid: false };
}

export async function runDbEpisode(task: DbTask, ctx: EpisodeContext, opts: LlbEpisodeOptions, server?: SqlServer): Promise<Outcome> {
  const turns: LlbTurn[] = [];
  let usage: TokenUsage = ZERO_USAGE;
  const kind = task.answer.md5 !== null ? 'md5' : 'direct';
  const base = () => ({ task: 'db', kind, transcript: turns });
  let db: TaskDatabase;
  try {
    db = await openDbTask(task, server);
  } catch (err) {
    throw new EpisodeFault('harness', 'evaluator_setup_failed', `database setup failed: ${errorMessage(err)}`, partial(task.instruction, turns, usage, base()), { cause: err });
  }
  try {
    const messages = opening('db-system.md', 'db-task.md', { instruction: task.instruction, table: task.table.name, headers: JSON.stringify(task.table.columns.map((c) => c.name)) }, ctx, opts);
    // Held in an object: the loop's callback sets it, which plain `let` narrowing would not see.
    const final: { answer: string | null } = { answer: null };
    let timeouts = 0;
    const loop = await turnLoop(task, ctx, opts, messages, turns, parseDbReply, async (action, turn, reply) => {
      if (action.kind === 'answer') {
        final.answer = action.answer;
        turns.push({ turn, reply, action: 'answer', observation: action.answer });
        return null;
      }
      const r = await db.exec(adaptSql(action.sql, db.dialect), opts.statementTimeoutS ?? DB_STATEMENT_TIMEOUT_S);
      if (r.timedOut) timeouts++;
      let observation = observationOf(r);
      if (observation.length > DB_OUTPUT_LIMIT) observation = `${observation.slice(0, DB_OUTPUT_LIMIT)}... (truncated)`;
      turns.push({ turn, reply, action: 'operation', command: action.sql, observation });
      return observation;
    });
    usage = loop.usage;
    if (loop.evaluatorError !== undefined) throw loop.evaluatorError;
    if (loop.modelError) throw new EpisodeFault('model', 'model_call_failed', loop.modelError, partial(task.instruction, turns, usage, base()));
    const invalid = loop.invalid;
    const score = invalid ? { success: false, kind, error: 'reply in no valid format' } : await scoreDbTask(db, task, final.answer);
    return {
      status: score.success ? 'pass' : 'fail',
      success: score.success,
      steps: turns.length,
      answer: final.answer ?? undefined,
      error: score.success ? undefined : score.error,
      trajectory: llbTrajectory(task.instruction, turns, score.success),
      usage,
      extra: { ...base(), invalidFormat: invalid, answered: final.answer !== null, statementTimeouts: timeouts },
    };
  } catch (err) {
    throw evaluatorFault('database', err, partial(task.instruction, turns, usage, base()));
  } finally {
    await db.dispose();
  }
}

/** What an episode that stops early keeps in its error row: the turns so far and their tokens. */
function partial(instruction: string, turns: LlbTurn[], usage: TokenUsage, extra: Record<string, unknown>) {
  return { steps: turns.length, trajectory: llbTrajectory(instruction, turns, false), usage, extra };
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
  const turns: LlbTurn[] = [];
  let usage: TokenUsage = ZERO_USAGE;
  const base = () => ({ task: 'os', transcript: turns });
  let env: ShellEnvironment | undefined;
  try {
    env = await create();
    if (task.initScript) await env.init(task.initScript);
  } catch (err) {
    if (env) await env.dispose().catch(() => undefined);
    throw new EpisodeFault('harness', 'evaluator_setup_failed', `os environment setup failed: ${errorMessage(err)}`, partial(task.instruction, turns, usage, base()), { cause: err });
  }
  const os = env;
  try {
    const messages = opening('os-system.md', 'os-task.md', { instruction: task.instruction }, ctx, opts);
    const loop = await turnLoop(task, ctx, opts, messages, turns, parseOsReply, async (action, turn, reply) => {
      if (action.kind === 'finish') {
        turns.push({ turn, reply, action: 'finish' });
        return null;
      }
      const r = await os.exec(action.script, OS_COMMAND_TIMEOUT_S);
      let out = r.output;
      if (out.length > OUTPUT_LIMIT) out = `${out.slice(0, OUTPUT_LIMIT)}... (truncated)`;
      const observation = r.timedOut
        ? `The command timed out after ${OS_COMMAND_TIMEOUT_S} seconds.${out ? `\n${out}` : ''}`
        : out.trim() === ''
          ? 'The output of the OS is empty.'
          : `The output of the OS:\n\n${out}`;
      turns.push({ turn, reply, action: 'bash', command: action.script, observation });
      return observation;
    });
    usage = loop.usage;
    if (loop.evaluatorError !== undefined) throw loop.evaluatorError;
    if (loop.modelError) throw new EpisodeFault('model', 'model_call_failed', loop.modelError, partial(task.instruction, turns, usage, base()));
    const invalid = loop.invalid;
    const success = invalid ? false : await os.check(task.evalScript);
    return { status: success ? 'pass' : 'fail', success, steps: turns.length, trajectory: llbTrajectory(task.instruction, turns, success), usage, extra: { ...base(), invalidFormat: invalid } };
  } catch (err) {
    throw evaluatorFault('os', err, partial(task.instruction, turns, usage, base()));
  } finally {
    await os.dispose().catch(() => undefined);
  }
}
