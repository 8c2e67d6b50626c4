/**
 * One ALFWorld turn's bookkeeping: which action a reply sends to the environment, and
 * which messages the turn adds to the conversation. The reference's rules
 * (memrl/agent/memp_agent.py:MempAgent.act and _parse_action, the blank-action check in
 * memrl/run/alfworld_rl_runner.py:AlfworldRunner._sample_from_batch), and memrl's
 * stricter parser behind the `alfworld.action-parse` switch.
 */
import type { ChatMessage } from '../../llm/types.js';
import { pyStrip } from '../../util/python/text.js';

export interface ParsedReply {
  thought: string;
  /** null when the reply has no "Action:" line with text. */
  action: string | null;
}

/** memrl's parser: "Thought: …" and the first "Action: …" line, normalised (lowercase, single spaces, no quotes or final period). */
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

/**
 * The reference's parser (MempAgent._parse_action): the text after the last "Action:"
 * (case-sensitive), else the whole reply, stripped. It is only called for a non-empty
 * reply; an empty one (or a failed call) gives no action at all.
 */
export function referenceAction(reply: string | null): string | null {
  if (!reply) return null;
  if (reply.includes('Action:')) return pyStrip(reply.split('Action:').at(-1)!);
  return pyStrip(reply);
}

/** The action the environment gets: a missing or blank action becomes `look` (the runner's check). */
export function envAction(agentAction: string | null): string {
  return agentAction === null || pyStrip(agentAction) === '' ? 'look' : agentAction;
}

/** The observation message the next turn starts with (none on the first turn: the first observation is in the task message). */
export function observationMessage(observation: string): ChatMessage {
  return { role: 'user', content: `Observation: ${pyStrip(observation)}` };
}

/** What a failed model call leaves in the conversation in place of a reply. */
export const NO_RESPONSE = 'No response.';

export interface TurnResult {
  /** What the agent returned (null: no reply, or no action in it). */
  agentAction: string | null;
  /** What goes to the environment. */
  envAction: string;
  /** Messages this turn adds to the conversation. */
  appended: ChatMessage[];
  /**
   * The reply held no action: no "Action:" in it (the reference then sends the whole
   * reply), or nothing after it (look is sent); with memrl's parser, nothing parsed.
   */
  unparsed: boolean;
}

/**
 * One turn, as MempAgent.act does it: the observation message (not on the first turn),
 * then the reply as the assistant's message ('No response.' when the call failed; an
 * empty reply is kept as it came), and the action. `memrlParse`: memrl's parser instead.
 */
export function actTurn(reply: string | null, observation: string, firstStep: boolean, memrlParse: boolean): TurnResult {
  const appended: ChatMessage[] = firstStep ? [] : [observationMessage(observation)];
  appended.push({ role: 'assistant', content: reply ?? NO_RESPONSE });
  if (memrlParse) {
    const action = reply === null ? null : parseReply(reply).action;
    return { agentAction: action, envAction: action ?? 'look', appended, unparsed: action === null };
  }
  const agentAction = referenceAction(reply);
  const env = envAction(agentAction);
  return { agentAction, envAction: env, appended, unparsed: reply === null || !reply.includes('Action:') || env !== agentAction };
}

/** The messages actually sent: the reference drops messages whose content is missing or blank. */
export function sendable(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.filter((m) => typeof m.content !== 'string' || pyStrip(m.content) !== '');
}
