/**
 * ALFWorld's recorded reference functions (../shared/fidelity/*.jsonl) and memrl's
 * counterparts, for `memrl fidelity`. Loaded only when asked (index.ts imports it lazily).
 *
 * - alfworld_action: exact. A reply → the action sent and the messages the turn adds.
 * - memctx_alfworld_record / memctx_alfworld_message: the text holds the reference's
 *   labels, which memrl does not ship; both outputs are reduced to a skeleton: the
 *   record's content pieces (script, reflection, kept trajectory lines, or the raw
 *   fallback), exactly, in order, and between them only the shape of the wording (how
 *   many label lines and blank lines). With an imported prompt pack they compare exactly.
 */
import { FidelityInputError, type FidelityTarget } from '../../core/fidelity.js';
import type { InjectedMemory } from '../../core/benchmark.js';
import type { ChatMessage } from '../../llm/types.js';
import { packNamespace } from '../../util/template.js';
import { actTurn } from './action.js';
import { formatMemoryRecord, recordBodies } from './memory-format.js';
import { AlfworldPrompts, MemoryFormatError, openingMessages } from './messages.js';
import { pyLen } from '../../util/python/text.js';
import { ACTION_PARSE, LLM_ERROR } from './switches.js';
import { isJsonObject } from '../../util/json.js';

function prompts(promptDir: string | undefined): AlfworldPrompts {
  return new AlfworldPrompts(packNamespace(promptDir, 'alfworld'));
}

const actionTarget: FidelityTarget = {
  name: 'alfworld_action',
  source: 'memrl/agent/memp_agent.py:MempAgent.act',
  compare: 'exact',
  switches: [ACTION_PARSE, LLM_ERROR],
  run(input, { fidelity }) {
    if (!isJsonObject(input) || !(typeof input.reply === 'string' || input.reply === null) || typeof input.observation !== 'string' || typeof input.first_step !== 'boolean') {
      throw new FidelityInputError('expected {reply: string|null, observation: string, first_step: boolean, llm_raises: boolean}');
    }
    if (input.llm_raises === true && fidelity.memrl(LLM_ERROR)) return { raises: 'EpisodeFault' };
    const reply = input.llm_raises === true ? null : (input.reply as string | null);
    const turn = actTurn(reply, input.observation, input.first_step, fidelity.memrl(ACTION_PARSE));
    return { agent_action: turn.agentAction, env_action: turn.envAction, history_appended: turn.appended };
  },
};

/** Blank-line chunks that open with one of the part labels: how the recorder listed a record's parts. */
function partsOf(formatted: string, heads: readonly string[]): string[] {
  const out: string[] = [];
  for (const chunk of formatted.split('\n\n')) {
    const h = heads.find((x) => x !== '' && chunk.startsWith(x));
    if (h !== undefined) out.push(h);
  }
  return out;
}

/**
 * A text reduced to its content pieces (exactly, in order) and, between them, the shape
 * of whatever else is there: one letter per line, W for wording, E for an empty line.
 */
function skeleton(text: string, bodies: readonly string[]): string[] {
  const shape = (gap: string): string =>
    gap === ''
      ? ''
      : gap
          .split('\n')
          .map((l) => (l === '' ? 'E' : 'W'))
          .join('');
  const out: string[] = [];
  let pos = 0;
  for (const body of bodies) {
    if (body === '') {
      out.push('∅');
      continue;
    }
    const at = text.indexOf(body, pos);
    if (at < 0) {
      out.push(`missing: ${body}`);
      continue;
    }
    out.push(`~${shape(text.slice(pos, at))}`, body);
    pos = at + body.length;
  }
  out.push(`~${shape(text.slice(pos))}`);
  return out;
}

const recordTarget: FidelityTarget = {
  name: 'memctx_alfworld_record',
  source: 'memrl/agent/memp_agent.py:MempAgent._format_retrieved_memory',
  compare: 'structure',
  switches: [],
  run(input, { promptDir }) {
    if (!isJsonObject(input) || typeof input.raw_content !== 'string') throw new FidelityInputError('expected {raw_content: string}');
    const p = prompts(promptDir);
    const r = formatMemoryRecord(input.raw_content, p.labels);
    if ('raises' in r) return { raises: r.raises };
    return { formatted: r.text, parts: partsOf(r.text, p.labels.heads), length: pyLen(r.text) };
  },
  structure(output, input) {
    if (isJsonObject(output) && 'raises' in output) return { raises: output.raises };
    if (!isJsonObject(output) || typeof output.formatted !== 'string' || !isJsonObject(input) || typeof input.raw_content !== 'string') return output;
    const bodies = recordBodies(input.raw_content);
    return { pieces: Array.isArray(bodies) ? skeleton(output.formatted, bodies) : bodies };
  },
};

/** The recorder's call: a pick_and_place task with a one-exchange example. */
const MESSAGE_TASK = 'Your task is to: put a mug in desk.';
const MESSAGE_EXAMPLES = {
  put: [
    { role: 'user' as const, content: 'You are in the middle of a room.' },
    { role: 'assistant' as const, content: 'Thought: example\nAction: go to desk 1' },
  ],
};

function buckets(input: unknown): { successes: string[]; failures: string[] } {
  const r = isJsonObject(input) ? input.retrieved_memories : undefined;
  const list = (v: unknown): string[] => {
    if (v === undefined) return [];
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new FidelityInputError('retrieved_memories.successed / .failed: lists of memory contents');
    return v as string[];
  };
  if (!isJsonObject(r)) throw new FidelityInputError('expected {retrieved_memories: {successed?: [content], failed?: [content]}}');
  return { successes: list(r.successed), failures: list(r.failed) };
}

const messageTarget: FidelityTarget = {
  name: 'memctx_alfworld_message',
  source: 'memrl/agent/memp_agent.py:MempAgent._construct_messages',
  compare: 'structure',
  switches: [],
  run(input, { promptDir }) {
    const b = buckets(input);
    const memory = (content: string, success: boolean, i: number): InjectedMemory => ({ id: `m${i}`, key: '', success, content, q: 0, sim: 1 });
    const memories = [...b.successes.map((c, i) => memory(c, true, i)), ...b.failures.map((c, i) => memory(c, false, b.successes.length + i))];
    let messages: ChatMessage[];
    try {
      messages = openingMessages({ task: MESSAGE_TASK, taskType: 'pick_and_place', memories, examples: MESSAGE_EXAMPLES }, prompts(promptDir));
    } catch (err) {
      if (err instanceof MemoryFormatError) return { raises: err.pyType };
      throw err;
    }
    const extra = messages.slice(1).filter((m) => m.role === 'system');
    return {
      memory_message: extra.length > 0 ? (extra[0]!.content as string) : null,
      n_messages: messages.length,
      last_user: messages.at(-1)!.content as string,
    };
  },
  structure(output, input) {
    if (isJsonObject(output) && 'raises' in output) return { raises: output.raises };
    if (!isJsonObject(output)) return output;
    const b = buckets(input);
    const bodies: string[] = [];
    for (const raw of [...b.successes, ...b.failures]) {
      const r = recordBodies(raw);
      if (!Array.isArray(r)) return { recordRaises: r.raises };
      bodies.push(...r);
    }
    const msg = output.memory_message;
    const last = typeof output.last_user === 'string' ? output.last_user : '';
    return {
      memory: typeof msg === 'string' ? skeleton(msg, bodies) : msg,
      n_messages: output.n_messages,
      // The task message: one line of wording, then the task description.
      task: last.split('\n').slice(1).join('\n'),
    };
  },
};

export const ALFWORLD_FIDELITY_TARGETS: readonly FidelityTarget[] = [actionTarget, recordTarget, messageTarget];
