/**
 * The simulator's replies to the memory-role calls of the Self-RAG and Mem0 baselines:
 * the retrieval gate, the per-candidate decision, and Mem0's extraction call (infer).
 * Deterministic: the gate draws from the call's own generator; the decision and the
 * extraction are functions of the prompt. They follow the JSON shapes the shipped
 * prompts ask for, so the methods' parsers see the same kind of reply a real model gives.
 */
import { isJsonObject } from '../../util/json.js';
import type { Rng } from '../../util/rng.js';
import type { ChatRequest } from '../types.js';
import { lexicalSimilarity, SHAPING } from './shaping.js';
import { keywords, lastUserText, snippet } from './text.js';

/** Words of the stored experience's own layout, not of the task: no key terms. */
const LAYOUT_WORDS = new Set(['task', 'trajectory', 'result', 'success', 'failure', 'question', 'solution', 'answer', 'pass', 'fail']);

/** Share of gate calls that answer "retrieve": most tasks look like they could use an example. */
const GATE_YES = 0.8;

/** Self-RAG's gate (purpose `selfrag-gate`): {"should_retrieve", "reason"} from the task alone. */
export function gateReply(req: ChatRequest, rng: Rng): string {
  const kw = keywords(lastUserText(req), 3);
  const yes = rng.next() < GATE_YES;
  const reason = yes ? `worked examples about ${kw.join(', ') || 'this kind of task'} would help` : 'the task is self-contained';
  return JSON.stringify({ should_retrieve: yes, reason });
}

interface DecisionInput {
  task?: unknown;
  candidates?: unknown;
}

/**
 * Self-RAG's decision (purpose `selfrag-decision`): the prompt carries one JSON object
 * {task, candidates: [{id, task_id, task, outcome, ...}]}. A candidate of the same task
 * (tags.taskId) is fully relevant; others by word overlap with the task. Successful
 * candidates at or above the shaping's similarity threshold are selected.
 */
export function decisionReply(req: ChatRequest): string {
  const text = lastUserText(req);
  let input: DecisionInput;
  try {
    input = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)) as DecisionInput;
  } catch {
    return JSON.stringify({ should_retrieve: false, docs: [] });
  }
  const task = typeof input.task === 'string' ? input.task : '';
  const candidates = Array.isArray(input.candidates) ? input.candidates.filter(isJsonObject) : [];
  const round = (x: number) => Math.round(x * 100) / 100;
  const docs = candidates.map((c) => {
    const same = c.task_id !== undefined && String(c.task_id) === req.tags.taskId;
    const relevance = round(same ? 1 : lexicalSimilarity(task, String(c.task ?? c.experience ?? '')));
    const success = c.outcome === 'success';
    const support = round(success ? relevance : relevance / 2);
    return { id: String(c.id), selected: success && relevance >= SHAPING.similarThreshold, relevance, support, utility: 1 + Math.round(4 * support) };
  });
  return JSON.stringify({ should_retrieve: docs.some((d) => d.selected), docs });
}

/**
 * Mem0's extraction (purpose `mem0-extract`, infer=true): mem0 sends its own prompt
 * with a `## New Messages` section; the reply is mem0's {"memory": [{"id", "text"}]}:
 * a one-line summary of the new messages and, when there are any, their key terms.
 */
export function extractionReply(req: ChatRequest): string {
  const text = lastUserText(req);
  const start = text.indexOf('## New Messages');
  let body = start >= 0 ? text.slice(start + '## New Messages'.length) : text;
  const end = body.indexOf('\n## ');
  if (end >= 0) body = body.slice(0, end);
  body = body.replace(/^\s*(assistant|user):\s*/i, '').trim();
  if (!body) return JSON.stringify({ memory: [] });
  const result = /Result:\s*([a-z]+)/i.exec(body)?.[1]?.toLowerCase();
  const memory = [{ id: '0', text: `Past attempt: ${snippet(body.replace(/\s+/g, ' '), 24)}${result ? ` (result: ${result})` : ''}` }];
  const kw = keywords(body, 20)
    .filter((w) => !LAYOUT_WORDS.has(w))
    .slice(0, 6);
  if (kw.length) memory.push({ id: '1', text: `Key terms of that attempt: ${kw.join(', ')}` });
  return JSON.stringify({ memory });
}
