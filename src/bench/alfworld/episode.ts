/**
 * One ALFWorld episode, ReAct style: the model answers "Thought: … / Action: …"
 * each turn; the action goes to the environment through a bridge; the
 * observation comes back as the next user message. At most maxSteps actions;
 * success = the environment reports won.
 */
import { errorMessage } from '../../util/errors.js';
import { formatMemoryBlock } from '../memory-context.js';
import { loadTemplate, render } from '../../util/template.js';
import { ZERO_USAGE, type ChatMessage, type TokenUsage } from '../../llm/types.js';
import { EpisodeFault, type EpisodeContext, type Outcome } from '../../core/index.js';
import { BridgeFault, BridgeRequestError, type BridgePool, type ResetReply } from './bridge-client.js';
import { EXAMPLE_FOR, stripBanner, type AlfworldTask, type FewShotExamples, type TaskType } from './dataset.js';
import type { SimChannel } from './sim-player.js';

export const ALFWORLD_PROMPT_DIR = 'src/bench/alfworld/prompts';

export interface AlfworldEpisodeOptions {
  pool: BridgePool;
  examples: FewShotExamples;
  maxSteps: number;
  temperature: number;
  maxTokens?: number;
  promptDir?: string;
  /** Shared with the sim player: the expert plan never enters a prompt. */
  sim?: SimChannel;
}

export interface ParsedReply {
  thought: string;
  /** null when the reply has no "Action:" line with text. */
  action: string | null;
}

/** Reads "Thought: …" and the first "Action: …" line; normalises the action (lowercase, single spaces, no quotes or final period). */
export function parseReply(text: string): ParsedReply {
  const thought = /^\s*Thought\s*:\s*(.*)$/im.exec(text)?.[1]?.trim() ?? '';
  const m = /^\s*[*_`]*Action[*_`]*\s*:\s*(.+)$/im.exec(text);
  if (!m) return { thought, action: null };
  const action = (m[1] as string)
    .trim()
    .replace(/^[\s`"'*]+|[\s`"'*]+$/g, '')
    .replace(/\.$/, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
  return { thought, action: action || null };
}

export function exampleFor(taskType: string, examples: FewShotExamples): ChatMessage[] {
  const name = EXAMPLE_FOR[taskType as TaskType] ?? 'put';
  return (examples[name] ?? []).map((m) => ({ role: m.role, content: m.content }));
}

/** The opening messages: rules, memories (own system message), the example, the task. */
export function openingMessages(task: AlfworldTask, firstObservation: string, ctx: Pick<EpisodeContext, 'memories'>, opts: AlfworldEpisodeOptions): ChatMessage[] {
  const sys = loadTemplate(ALFWORLD_PROMPT_DIR, 'system.md', opts.promptDir);
  const kind = EXAMPLE_FOR[task.taskType as TaskType] ?? 'put';
  const messages: ChatMessage[] = [{ role: 'system', content: render(sys.text, { maxSteps: opts.maxSteps, taskKind: kind }, sys.path).trimEnd() }];
  const memory = formatMemoryBlock(ctx.memories, { templateDir: ALFWORLD_PROMPT_DIR, promptDir: opts.promptDir });
  if (memory) messages.push({ role: 'system', content: memory });
  messages.push(...exampleFor(task.taskType, opts.examples));
  const t = loadTemplate(ALFWORLD_PROMPT_DIR, 'task.md', opts.promptDir);
  messages.push({ role: 'user', content: render(t.text, { observation: stripBanner(firstObservation) }, t.path).trimEnd() });
  return messages;
}

export interface TranscriptTurn {
  turn: number;
  reply: string;
  action: string;
  parsed: boolean;
  observation: string;
  won: boolean;
}

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return { promptTokens: a.promptTokens + b.promptTokens, completionTokens: a.completionTokens + b.completionTokens, totalTokens: a.totalTokens + b.totalTokens };
}

/** What memory stores: the task, then the actions and observations. */
export function alfworldTrajectory(task: AlfworldTask, turns: readonly TranscriptTurn[], won: boolean): string {
  const lines = [`Task: ${task.key}`, ''];
  for (const t of turns) lines.push(`> ${t.action}`, t.observation);
  lines.push('', won ? 'Result: task completed.' : 'Result: task not completed.');
  return lines.join('\n');
}

export async function runAlfworldEpisode(task: AlfworldTask, ctx: EpisodeContext, opts: AlfworldEpisodeOptions): Promise<Outcome> {
  const expert = ctx.model.simulated && opts.sim !== undefined;
  const simKey = `${task.id}|${ctx.epoch}|${ctx.phase}`;
  const bridge = await opts.pool.acquire();
  const turns: TranscriptTurn[] = [];
  let usage: TokenUsage = ZERO_USAGE;
  let unparsed = 0;
  let invalid = 0;
  const base = (): Record<string, unknown> => ({ taskType: task.taskType, gameFile: task.gameFile, unparsedActions: unparsed, invalidActions: invalid, transcript: turns });
  const kept = () => ({ steps: turns.length, trajectory: alfworldTrajectory(task, turns, false), usage, extra: base() });
  const fault = (what: string, err: unknown): never => {
    ctx.log.error({ event: 'alfworld_bridge_fault', task: task.id, epoch: ctx.epoch, phase: ctx.phase, what, err: errorMessage(err) }, 'bridge fault');
    throw new EpisodeFault('harness', 'bridge_failed', `bridge failed during ${what}: ${errorMessage(err)}`, kept(), { cause: err });
  };
  try {
    let reset: ResetReply;
    try {
      reset = task.index >= 0 ? await bridge.reset({ split: task.split, index: task.index, expert }) : await bridge.reset({ gameFile: task.gameFile, expert });
    } catch (err) {
      if (err instanceof BridgeFault || err instanceof BridgeRequestError) return fault('reset', err);
      throw err;
    }
    if (expert) opts.sim!.set(simKey, { plan: reset.expert_plan ?? [], admissible: reset.admissible_commands });
    const messages = openingMessages(task, reset.observation, ctx, opts);
    let won = false;
    for (let turn = 0; turn < opts.maxSteps && !won; turn++) {
      let reply;
      try {
        reply = await ctx.model.chat(
          {
            messages: [...messages],
            temperature: opts.temperature,
            maxTokens: opts.maxTokens,
            tags: { benchmark: 'alfworld', taskId: task.id, epoch: ctx.epoch, phase: ctx.phase, role: 'agent', purpose: 'act', turn },
            memoryHints: ctx.memories.map(({ id, key, success, taskId }) => ({ id, key, success, taskId })),
          },
          ctx.signal,
        );
      } catch (err) {
        throw new EpisodeFault('model', 'model_call_failed', `model call failed: ${errorMessage(err)}`, kept(), { cause: err });
      }
      usage = addUsage(usage, reply.usage);
      const parsed = parseReply(reply.text);
      if (parsed.action === null) unparsed += 1;
      const action = parsed.action ?? 'look';
      let step;
      try {
        step = await bridge.step(action, expert);
      } catch (err) {
        if (err instanceof BridgeFault || err instanceof BridgeRequestError) return fault(`step ${turn + 1}`, err);
        throw err;
      }
      if (expert) opts.sim!.set(simKey, { plan: step.expert_plan ?? [], admissible: step.admissible_commands });
      if (/^nothing happens?\.?$/i.test(step.observation.trim()) || step.observation.trim() === 'Nothing happened.') invalid += 1;
      won = step.won;
      turns.push({ turn, reply: reply.text, action, parsed: parsed.action !== null, observation: step.observation, won });
      messages.push({ role: 'assistant', content: reply.text.trim() });
      messages.push({ role: 'user', content: `Observation: ${step.observation}` });
    }
    return {
      status: won ? 'pass' : 'fail',
      success: won,
      steps: turns.length,
      answer: turns.at(-1)?.action,
      trajectory: alfworldTrajectory(task, turns, won),
      usage,
      extra: { ...base(), won },
    };
  } finally {
    opts.sim?.delete(simKey);
    await opts.pool.release(bridge);
  }
}
