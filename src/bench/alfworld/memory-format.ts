/**
 * How a stored ALFWorld memory is read back into the prompt: the reference's
 * MempAgent._format_retrieved_memory (memrl/agent/memp_agent.py), rule for rule.
 *
 * A memory's content is the writer's layout: 'Task: …\n\nSCRIPT:\n…\n\nTRAJECTORY:\n<repr>'
 * for a success, 'TASK REFLECTION:…What went wrong:…\n\nFailed approach:\n<repr>' for a
 * failure, where <repr> is the episode's message list as Python prints it. The parser
 * keeps the script (or the reflection), and from the trajectory only what follows the
 * last task message, with `> ` before the agent's turns and system turns dropped.
 * What it cannot parse goes in raw, and in two odd cases the reference raises; both
 * are kept, bug for bug. The markers it splits on are the writer's section markers and
 * TURN_MARKER (protocol tokens the reference keeps fixed in code); the labels put in
 * front of each part are templates.
 */
import { literalEval } from '../../util/python/literal-eval.js';
import { PyError, isDict, pyGet, pyItem, pyIter, pyStr, type PyValue } from '../../util/python/values.js';
import { pyStrip } from '../../util/python/text.js';

/**
 * The reference finds the current task's first message by this phrase
 * (memp_agent.py:_format_retrieved_memory, alfworld_rl_runner.py:_sanitize_reflection_trajectory);
 * the task template (task.md) must begin with it for memories to be cut there.
 */
export const TURN_MARKER = "Now, it's your turn";

/** The prefix the reference gives assistant turns in a recalled trajectory. */
const ASSISTANT_PREFIX = '> ';

export type RecordPartKind = 'script' | 'reflection' | 'trajectory';

/** What the parser made of one memory: labelled parts, the raw text, or the reference's exception. */
export type ParsedRecord = { parts: { kind: RecordPartKind; body: string }[] } | { raw: string } | { raises: string };

function splitOnce(s: string, sep: string): [string, string] {
  const i = s.indexOf(sep);
  // Python's `a, b = s.split(sep, 1)` with no separator: too few values to unpack.
  if (i < 0) throw new PyError('ValueError', 'not enough values to unpack (expected 2, got 1)');
  return [s.slice(0, i), s.slice(i + sep.length)];
}

/** Keeps the list from the last task message on (the reference's "Now, it's your turn" cut). */
function fromLastTurn(list: PyValue): PyValue[] {
  const items = pyIter(list);
  let at = -1;
  items.forEach((msg, i) => {
    if (pyGet(msg, 'role') === 'user' && typeof pyGet(msg, 'content', '') === 'string') {
      const content = pyItem(msg as Extract<PyValue, { py: 'dict' }>, 'content');
      if (typeof content === 'string' && content.includes(TURN_MARKER)) at = i;
    }
  });
  return at === -1 ? items : items.slice(at);
}

/** The trajectory's lines: `> ` + agent turns, user turns that are text (only observations, in the fallback). */
function trajectoryLines(items: PyValue[], onlyObservations: boolean): string[] {
  const lines: string[] = [];
  for (const msg of items) {
    const role = pyGet(msg, 'role');
    const content = pyGet(msg, 'content', '');
    if (role === 'assistant') lines.push(ASSISTANT_PREFIX + pyStr(content));
    else if (role === 'user' && typeof content === 'string' && (!onlyObservations || content.startsWith('Observation:'))) lines.push(content);
  }
  return lines;
}

const pyType = (err: unknown): string => (err instanceof PyError ? err.pyType : 'Exception');

/** memp_agent.py:MempAgent._format_retrieved_memory, without the labels. */
export function parseMemoryRecord(raw: string): ParsedRecord {
  let parts: { kind: RecordPartKind; body: string }[] | undefined;
  try {
    let header = '';
    let trajectory = raw;
    if (raw.includes('TRAJECTORY')) [header, trajectory] = splitOnce(raw, '\n\nTRAJECTORY:\n');
    else if (raw.includes('Failed approach')) [header, trajectory] = splitOnce(raw, '\n\nFailed approach:\n');
    parts = [];
    if (header.includes('SCRIPT:')) parts.push({ kind: 'script', body: pyStrip(header.split('SCRIPT:')[1]!) });
    if (header.includes('What went wrong:')) parts.push({ kind: 'reflection', body: pyStrip(header.split('What went wrong:')[1]!) });
    const lines = trajectoryLines(fromLastTurn(literalEval(trajectory)), false);
    if (lines.length > 0) parts.push({ kind: 'trajectory', body: lines.join('\n') });
    return { parts };
  } catch {
    // The reference's fallback: from the first '[' on, parsed again; raw text if that fails too.
    const idx = raw.indexOf('[');
    const rest = idx !== -1 ? raw.slice(idx) : raw;
    let list: PyValue;
    try {
      list = literalEval(rest);
    } catch {
      return { raw: rest };
    }
    let lines: string[];
    try {
      lines = trajectoryLines(fromLastTurn(list), true);
    } catch (err) {
      return { raises: pyType(err) };
    }
    // A split that failed left the part list unassigned: the reference raises here.
    if (parts === undefined) return { raises: 'UnboundLocalError' };
    if (lines.length > 0) parts.push({ kind: 'trajectory', body: lines.join('\n') });
    return { parts };
  }
}

/** The label text put before each part (a template's first words, before its placeholder). */
export interface RecordLabels {
  /** Renders a script part (template with {{script}}). */
  script(body: string): string;
  reflection(body: string): string;
  /** The trajectory part's label line (the body follows on the next line). */
  trajectory: string;
  /** The label at the start of each kind of part, for telling parts apart in a formatted record. */
  heads: readonly string[];
}

/** The text injected for one memory, or the exception the reference raises for it. */
export function formatMemoryRecord(raw: string, labels: RecordLabels): { text: string } | { raises: string } {
  const parsed = parseMemoryRecord(raw);
  if ('raises' in parsed) return parsed;
  if ('raw' in parsed) return { text: parsed.raw };
  const chunks = parsed.parts.map((p) => (p.kind === 'script' ? labels.script(p.body) : p.kind === 'reflection' ? labels.reflection(p.body) : `${labels.trajectory}\n${p.body}`));
  return { text: chunks.join('\n\n') };
}

/** The label-free content of a record, in order: what any wording of it must keep. */
export function recordBodies(raw: string): string[] | { raises: string } {
  const parsed = parseMemoryRecord(raw);
  if ('raises' in parsed) return parsed;
  if ('raw' in parsed) return [parsed.raw];
  return parsed.parts.map((p) => p.body);
}

/**
 * The reflection baseline's view of a previous attempt
 * (alfworld_rl_runner.py:AlfworldRunner._sanitize_reflection_trajectory): the agent's
 * turns and the observations after the last task message, nothing else.
 * `skipPrefixes` are the openings of the example and note messages, which are never kept.
 */
export function attemptTurns(trajectory: PyValue, skipPrefixes: readonly string[]): { role: 'user' | 'assistant'; content: string }[] {
  let items: PyValue[];
  try {
    items = pyIter(trajectory);
  } catch {
    items = [];
  }
  const dicts = items.filter(isDict);
  let start: number | null = null;
  items.forEach((msg, i) => {
    if (!isDict(msg) || pyGet(msg, 'role') !== 'user') return;
    if (pyStrip(pyStr(pyGet(msg, 'content', ''))).startsWith(TURN_MARKER)) start = i;
  });
  const from = start === null ? dicts : items.slice((start as number) + 1).filter(isDict);
  const out: { role: 'user' | 'assistant'; content: string }[] = [];
  for (const msg of from) {
    const role = pyGet(msg, 'role');
    if (role === 'system') continue;
    const content = pyStr(pyGet(msg, 'content', ''));
    const opening = pyStrip(content);
    if (skipPrefixes.some((p) => p !== '' && opening.startsWith(p))) continue;
    if (role === 'user' && opening.startsWith('Observation:')) out.push({ role: 'user', content });
    else if (role === 'assistant') out.push({ role: 'assistant', content });
  }
  return out;
}
