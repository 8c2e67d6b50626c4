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
import { EpisodeFault, type EpisodeContext, type Outcome, type OutcomeExtra, type PartialEpisode } from '../../core/index.js';
import { BridgeFault, BridgeRequestError, type BridgePool, type ResetReply, type StepReply } from './bridge-client.js';
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
  // The sim player plays the expert's plan; it reaches it here, never through a prompt.
  const showExpert = (reply: ResetReply | StepReply): void => {
    if (expert) opts.sim!.set(simKey, { plan: reply.expert_plan ?? [], admissible: reply.admissible_commands });
  };
  const bridge = await opts.pool.acquire();
  const episode = new AlfworldEpisode(task, ctx);
  try {
    const reset = await episode.onBridge('reset', () => (task.index >= 0 ? bridge.reset({ split: task.split, index: task.index, expert }) : bridge.reset({ gameFile: task.gameFile, expert })));
    showExpert(reset);
    episode.open(reset, opts.examples, prompts);
    // The first observation is in the task message; later ones open each turn.
    let observation = '';
    let won = false;
    let done = false;
    for (let turn = 0; turn < opts.maxSteps && !done; turn++) {
      const first = turn === 0;
      const text = await episode.agentReply(turn, first ? [] : [observationMessage(observation)], opts, failOnModelError);
      const step = actTurn(text, observation, first, memrlParse);
      episode.history.push(...step.appended);
      if (step.unparsed) episode.unparsed += 1;
      const result = await episode.onBridge(`step ${turn + 1}`, () => bridge.step(step.envAction, expert));
      showExpert(result);
      if (/^nothing happens?\.?$/i.test(result.observation.trim()) || result.observation.trim() === 'Nothing happened.') episode.invalid += 1;
      won = result.won;
      done = result.done || won;
      observation = result.observation;
      episode.turns.push({ turn, reply: text ?? '', action: step.envAction, parsed: !step.unparsed, observation, won });
    }
    return episode.outcome(won, done, opts.maxSteps);
  } finally {
    opts.sim?.delete(simKey);
    await opts.pool.release(bridge);
  }
}

/** One episode being played: what it gathered so far (what its outcome, or a fault, reports) and the steps that add to it. */
class AlfworldEpisode {
  readonly turns: TranscriptTurn[] = [];
  history: ChatMessage[] = [];
  usage: TokenUsage = ZERO_USAGE;
  unparsed = 0;
  invalid = 0;
  modelErrors = 0;

  constructor(
    private readonly task: AlfworldTask,
    private readonly ctx: EpisodeContext,
  ) {}

  /** The opening conversation: system prompt, example, memories, and the task with its first observation. */
  open(reset: ResetReply, examples: FewShotExamples, prompts: AlfworldPrompts): void {
    try {
      this.history = openingMessages({ task: taskDescription(reset.observation), taskType: this.task.taskType, memories: this.ctx.memories, examples }, prompts);
    } catch (err) {
      if (err instanceof MemoryFormatError) throw new EpisodeFault('harness', 'memory_format', err.message, this.kept(), { cause: err });
      throw err;
    }
  }

  /** `call` on the bridge; a broken bridge ends the episode as a harness fault keeping what was played. */
  async onBridge<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof BridgeFault || err instanceof BridgeRequestError)) throw err;
      const { task, ctx } = this;
      ctx.log.error({ event: 'alfworld_bridge_fault', task: task.id, epoch: ctx.epoch, phase: ctx.phase, what, err: errorMessage(err) }, 'bridge fault');
      throw new EpisodeFault('harness', 'bridge_failed', `bridge failed during ${what}: ${errorMessage(err)}`, this.kept(), { cause: err });
    }
  }

  /** The model's reply to the conversation and `pending` (the new observation); null when a failed call leaves the turn to "No response.". */
  async agentReply(turn: number, pending: ChatMessage[], opts: AlfworldEpisodeOptions, failOnModelError: boolean): Promise<string | null> {
    const { task, ctx } = this;
    try {
      const reply = await ctx.model.chat(
        {
          messages: sendable([...this.history, ...pending]),
          temperature: opts.temperature,
          maxTokens: opts.maxTokens,
          tags: { benchmark: 'alfworld', taskId: task.id, epoch: ctx.epoch, phase: ctx.phase, role: 'agent', purpose: 'act', turn },
          memoryHints: ctx.memories.map(({ id, key, success, taskId }) => ({ id, key, success, taskId })),
        },
        ctx.signal,
      );
      this.usage = addUsage(this.usage, reply.usage);
      return reply.text;
    } catch (err) {
      if (failOnModelError || !survivable(err, ctx.model, ctx.signal)) {
        throw new EpisodeFault('model', 'model_call_failed', `model call failed: ${errorMessage(err)}`, this.kept(), { cause: err });
      }
      // memrl's client refuses an empty reply; the reference's provider returns "".
      if ((err as ProviderError).reason === 'empty') return '';
      // The reference's agent swallows the failure: "No response." and a look.
      this.modelErrors += 1;
      ctx.log.warn({ event: 'alfworld_model_error', task: task.id, epoch: ctx.epoch, phase: ctx.phase, turn, err: errorMessage(err) }, 'model call failed; the turn runs look');
      return null;
    }
  }

  outcome(won: boolean, done: boolean, maxSteps: number): Outcome {
    return {
      status: won ? 'pass' : 'fail',
      success: won,
      steps: this.turns.length,
      // The reference steps a batch's games in lockstep and collects each at the step it ended; those that ran out come last.
      finishRank: done ? this.turns.length : maxSteps + 1,
      answer: this.turns.at(-1)?.action,
      // The conversation up to the last reply: the last observation never entered it.
      trajectory: this.trajectory(),
      usage: this.usage,
      extra: { ...this.extra(), won },
    };
  }

  /** What a fault keeps of the episode. */
  private kept(): PartialEpisode {
    return { steps: this.turns.length, trajectory: this.trajectory(), usage: this.usage, extra: this.extra() };
  }

  private extra(): OutcomeExtra {
    return { taskType: this.task.taskType, gameFile: this.task.gameFile, unparsedActions: this.unparsed, invalidActions: this.invalid, modelErrors: this.modelErrors, transcript: this.turns };
  }

  private trajectory(): string {
    return reprMessages(this.history.map((m) => ({ role: m.role, content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content) })));
  }
}
