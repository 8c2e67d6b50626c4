/**
 * One ALFWorld episode, ReAct style, as the reference's runner plays one game slot
 * (memrl/run/alfworld_rl_runner.py:AlfworldRunner._sample_from_batch with
 * memrl/agent/memp_agent.py:MempAgent.act): the model answers "Thought: … / Action: …",
 * the action goes to the environment through a bridge, the observation opens the next
 * turn. At most maxSteps actions; the game ends when the environment says done; success
 * = the environment reports won. The trajectory memory stores is the conversation
 * itself, as Python prints the message list (what the reference stores and parses back).
 */
import { errorMessage } from '../../util/errors.js';
import { REFERENCE_FIDELITY, type Fidelity } from '../../util/fidelity.js';
import { ReplayMissError } from '../../llm/cache.js';
import { ProviderError } from '../../llm/errors.js';
import { ZERO_USAGE, type ChatMessage, type ChatModel, type TokenUsage } from '../../llm/types.js';
import { EpisodeFault, type EpisodeContext, type Outcome, type OutcomeExtra } from '../../core/index.js';
import { BridgeFault, BridgeRequestError, type BridgePool, type ResetReply } from './bridge-client.js';
import { taskDescription, type AlfworldTask, type FewShotExamples } from './dataset.js';
import { actTurn, observationMessage, sendable } from './action.js';
import { AlfworldPrompts, MemoryFormatError, openingMessages } from './messages.js';
import { reprMessages } from '../../util/python/values.js';
import type { SimChannel } from './sim-player.js';
import { ACTION_PARSE, LLM_ERROR } from './switches.js';

export { ALFWORLD_PROMPT_DIR } from './messages.js';

export interface AlfworldEpisodeOptions {
  pool: BridgePool;
  examples: FewShotExamples;
  maxSteps: number;
  temperature: number;
  maxTokens?: number;
  promptDir?: string;
  /** Switch settings (default: every switch at the reference's behaviour). */
  fidelity?: Fidelity;
  /** Shared with the sim player: the expert plan never enters a prompt. */
  sim?: SimChannel;
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

/** A failed call the reference would have survived as "No response." (not a cancelled run, a replay miss or a dead endpoint). */
function survivable(err: unknown, model: ChatModel, signal: AbortSignal): boolean {
  if (signal.aborted || !(err instanceof ProviderError) || err instanceof ReplayMissError || err.reason === 'aborted') return false;
  return (model as { fatal?: unknown }).fatal === undefined;
}

export async function runAlfworldEpisode(task: AlfworldTask, ctx: EpisodeContext, opts: AlfworldEpisodeOptions): Promise<Outcome> {
  const fidelity = opts.fidelity ?? REFERENCE_FIDELITY;
  const memrlParse = fidelity.memrl(ACTION_PARSE);
  const failOnModelError = fidelity.memrl(LLM_ERROR);
  const prompts = new AlfworldPrompts(opts.promptDir);
  const expert = ctx.model.simulated && opts.sim !== undefined;
  const simKey = `${task.id}|${ctx.epoch}|${ctx.phase}`;
  const bridge = await opts.pool.acquire();
  const turns: TranscriptTurn[] = [];
  let history: ChatMessage[] = [];
  let usage: TokenUsage = ZERO_USAGE;
  let unparsed = 0;
  let invalid = 0;
  let modelErrors = 0;
  const trajectory = (): string => reprMessages(history.map((m) => ({ role: m.role, content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content) })));
  const base = (): OutcomeExtra => ({ taskType: task.taskType, gameFile: task.gameFile, unparsedActions: unparsed, invalidActions: invalid, modelErrors, transcript: turns });
  const kept = () => ({ steps: turns.length, trajectory: trajectory(), usage, extra: base() });
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
    try {
      history = openingMessages({ task: taskDescription(reset.observation), taskType: task.taskType, memories: ctx.memories, examples: opts.examples }, prompts);
    } catch (err) {
      if (err instanceof MemoryFormatError) throw new EpisodeFault('harness', 'memory_format', err.message, kept(), { cause: err });
      throw err;
    }
    // The first observation is in the task message; later ones open each turn.
    let observation = '';
    let won = false;
    let done = false;
    for (let turn = 0; turn < opts.maxSteps && !done; turn++) {
      const first = turn === 0;
      const pending = first ? [] : [observationMessage(observation)];
      let text: string | null = null;
      try {
        const reply = await ctx.model.chat(
          {
            messages: sendable([...history, ...pending]),
            temperature: opts.temperature,
            maxTokens: opts.maxTokens,
            tags: { benchmark: 'alfworld', taskId: task.id, epoch: ctx.epoch, phase: ctx.phase, role: 'agent', purpose: 'act', turn },
            memoryHints: ctx.memories.map(({ id, key, success, taskId }) => ({ id, key, success, taskId })),
          },
          ctx.signal,
        );
        usage = addUsage(usage, reply.usage);
        text = reply.text;
      } catch (err) {
        if (failOnModelError || !survivable(err, ctx.model, ctx.signal)) {
          throw new EpisodeFault('model', 'model_call_failed', `model call failed: ${errorMessage(err)}`, kept(), { cause: err });
        }
        if ((err as ProviderError).reason === 'empty') {
          // memrl's client refuses an empty reply; the reference's provider returns "".
          text = '';
        } else {
          // The reference's agent swallows the failure: "No response." and a look.
          modelErrors += 1;
          ctx.log.warn({ event: 'alfworld_model_error', task: task.id, epoch: ctx.epoch, phase: ctx.phase, turn, err: errorMessage(err) }, 'model call failed; the turn runs look');
        }
      }
      const step = actTurn(text, observation, first, memrlParse);
      history.push(...step.appended);
      if (step.unparsed) unparsed += 1;
      let result;
      try {
        result = await bridge.step(step.envAction, expert);
      } catch (err) {
        if (err instanceof BridgeFault || err instanceof BridgeRequestError) return fault(`step ${turn + 1}`, err);
        throw err;
      }
      if (expert) opts.sim!.set(simKey, { plan: result.expert_plan ?? [], admissible: result.admissible_commands });
      if (/^nothing happens?\.?$/i.test(result.observation.trim()) || result.observation.trim() === 'Nothing happened.') invalid += 1;
      won = result.won;
      done = result.done || won;
      observation = result.observation;
      turns.push({ turn, reply: text ?? '', action: step.envAction, parsed: !step.unparsed, observation, won });
    }
    return {
      status: won ? 'pass' : 'fail',
      success: won,
      steps: turns.length,
      // The reference steps a batch's games in lockstep and collects each at the step it ended; those that ran out come last.
      finishRank: done ? turns.length : opts.maxSteps + 1,
      answer: turns.at(-1)?.action,
      // The conversation up to the last reply: the last observation never entered it.
      trajectory: trajectory(),
      usage,
      extra: { ...base(), won },
    };
  } finally {
    opts.sim?.delete(simKey);
    await opts.pool.release(bridge);
  }
}
