/**
 * Built-in replies of the simulator for role 'memory' (building scripts,
 * reflections, keywords; the Self-RAG and Mem0 calls in memory-baselines.ts), so
 * every memory method works for every benchmark without a benchmark-specific
 * player. Short, generic and deterministic.
 */
import type { Rng } from '../../util/rng.js';
import type { ChatRequest } from '../types.js';
import { decisionReply, extractionReply, gateReply } from './memory-baselines.js';
import { keywords, lastUserText, snippet } from './text.js';

const STEP_TEMPLATES: ((kw: string[]) => string)[] = [
  (kw) => `Restate the goal in one sentence and note what must be produced${kw[0] ? ` (about ${kw[0]})` : ''}.`,
  (kw) => `Identify the inputs and constraints mentioned${kw.length > 1 ? `: ${kw.slice(1, 4).join(', ')}` : ''}.`,
  (kw) => `Work in small steps, checking each intermediate result${kw[4] ? ` around ${kw[4]}` : ''}.`,
  () => `Handle edge cases (empty inputs, missing values, wrong types) explicitly.`,
  (kw) => `Before finishing, check the result against every requirement${kw[5] ? `, especially ${kw[5]}` : ''}.`,
];

function scriptReply(task: string, rng: Rng): string {
  const kw = keywords(task, 8);
  const count = 3 + rng.int(3); // 3–5 steps
  // Keep the templates' order so the script reads as a procedure.
  const chosen = rng.sample(STEP_TEMPLATES.map((_, i) => i), count).sort((a, b) => a - b);
  return chosen.map((ti, i) => `${i + 1}. ${STEP_TEMPLATES[ti]!(kw)}`).join('\n');
}

const REFLECTION_OPENERS = [
  'The attempt went wrong because a requirement was read too loosely.',
  'The attempt missed a detail of the task statement.',
  'The attempt stopped before verifying the result.',
];

function reflectionReply(task: string, rng: Rng): string {
  const kw = keywords(task, 4);
  const opener = REFLECTION_OPENERS[rng.int(REFLECTION_OPENERS.length)]!;
  const focus = kw.length ? ` Pay closer attention to ${kw.join(', ')}.` : '';
  return `${opener}${focus} Next time, list the requirements first and check each one before answering.`;
}

/** The built-in memory-role reply for a purpose ('script', 'reflection', 'keywords', the baselines' calls; others get a script). */
export function memoryReply(req: ChatRequest, rng: Rng): string {
  const task = lastUserText(req);
  switch (req.tags.purpose) {
    case 'reflection':
      return reflectionReply(task, rng);
    case 'keywords':
      return keywords(task, 8).join(', ');
    case 'summary':
      return `Task: ${snippet(task, 20)}`;
    case 'selfrag-gate':
      return gateReply(req, rng);
    case 'selfrag-decision':
      return decisionReply(req);
    case 'mem0-extract':
      return extractionReply(req);
    default:
      return scriptReply(task, rng);
  }
}
