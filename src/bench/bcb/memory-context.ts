/**
 * BigCodeBench's memory block, built the way MemRL's BCBRunner._format_memory_context
 * builds it (the wording is ours, in prompts/memory*.md):
 *
 *   <block header>                      memory.md, as is (its final newline leaves a blank line)
 *   <example header: index, OUTCOME>    memory-example.md, one per kept memory, numbered by position
 *   <task line>                         memory-task.md, only when the memory has a task id
 *   <content>                           memory-success.md / memory-failure.md, cut to the budget
 *   (blank line)
 *
 * Each memory's content is first rewritten by outcome: "failure", "fail", "failed", "0",
 * "false" and "no" (any case, trimmed) are failures and show the task plus the text
 * after a line starting "Reflection:" (else the whole text); any other outcome,
 * "unknown" included, is a success and shows the task plus the text (after a quirky
 * legacy header check that needs literal backslashes, so it rarely matches). Content
 * that already carries a "[MEMORY TYPE]" marker is shown as is, and empty content is
 * skipped (its number is skipped too). The character budget is split evenly over all
 * selected memories (empty ones included): a rewritten content longer than
 * budget // n is cut to that many characters, wrapper included, and "..." appended.
 */
import { loadTemplate, render } from '../../util/template.js';
import { PY_WS, pyIgnoreCase, pyLen, pySlice, pyStrip, pyTruthy as truthy } from '../../util/python/text.js';

export const BCB_PROMPT_DIR = 'src/bench/bcb/prompts';

/** One selected memory, as the reference reads it. */
export interface BcbMemoryRecord {
  /** The stored text ('' when it has none). */
  content: string;
  /** metadata.outcome: 'success' / 'failure' in runs; other values come from older stores. */
  outcome: unknown;
  /** metadata.task_id; shown when truthy. */
  taskId?: unknown;
  /** The task text the memory was written for (memory_item.memory). */
  task: string;
}

export interface BcbMemoryEntryFacts {
  index: number;
  kept: boolean;
  /** Characters of the rewritten content before the cut. */
  coerced_length: number;
  /** Its first line (null when skipped). */
  memory_type: string | null;
  truncated: boolean;
}

export interface BcbMemoryContext {
  text: string;
  /** The example header lines, in order. */
  headers: string[];
  /** per_entry_cap null: no budget. */
  facts: { per_entry_cap: number | null; entries: BcbMemoryEntryFacts[] } | null;
}

/** The reference raises here (str.upper on a non-string outcome); its runner then sends no memory block. */
export class BcbMemoryOutcomeError extends Error {
  override name = 'AttributeError';
}

const FAILURE_OUTCOMES = new Set(['failure', 'fail', 'failed', '0', 'false', 'no']);
const MARKER = '[MEMORY TYPE]';
const REFLECTION = new RegExp(`(?:^|\\n)${pyIgnoreCase('reflection')}${PY_WS}*:${PY_WS}*([\\s\\S]*)$`);
// The reference's pattern is a raw string with doubled backslashes: it matches "task\s:\s ... \n\n" literally.
const LEGACY_TASK_HEADER = new RegExp(`^${pyIgnoreCase('task')}\\\\s*:\\\\s*[\\s\\S]*?\\\\n\\\\n([\\s\\S]*)$`);


/** Python's str() of a JSON-like scalar. */
export function pyStr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  return String(v);
}

export function isFailureOutcome(outcome: unknown): boolean {
  return FAILURE_OUTCOMES.has(pyStrip(pyStr(truthy(outcome) ? outcome : 'unknown')).toLowerCase());
}

/** How a memory is shown, before the wording: skipped, as stored, or a success/failure wrapper around `core`. */
export type BcbMemoryShape = { kind: 'skip' } | { kind: 'as-is'; core: string } | { kind: 'success' | 'failure'; task: string; core: string };

export function bcbMemoryShape(raw: string, outcome: unknown, task: string): BcbMemoryShape {
  const text = pyStrip(raw);
  if (!text) return { kind: 'skip' };
  if (text.toUpperCase().includes(MARKER)) return { kind: 'as-is', core: text };
  const td = pyStrip(task);
  if (isFailureOutcome(outcome)) {
    const m = REFLECTION.exec(text);
    return { kind: 'failure', task: td, core: pyStrip(m ? (m[1] ?? '') : text) };
  }
  const m = LEGACY_TASK_HEADER.exec(text);
  return { kind: 'success', task: td, core: m ? pyStrip(m[1] ?? '') : text };
}

/** A memory's content rewritten for the prompt ('' = skip it). */
export function coerceBcbContent(raw: string, outcome: unknown, task: string, promptDir?: string): string {
  const shape = bcbMemoryShape(raw, outcome, task);
  if (shape.kind === 'skip') return '';
  if (shape.kind === 'as-is') return shape.core;
  const t = loadTemplate(BCB_PROMPT_DIR, shape.kind === 'failure' ? 'memory-failure.md' : 'memory-success.md', promptDir);
  return pyStrip(render(t.text, { task: shape.task, content: shape.core }, t.path));
}

/** A one-line template: its text without the file's final newline. */
function line(file: string, vars: Record<string, string | number>, promptDir?: string): string {
  const t = loadTemplate(BCB_PROMPT_DIR, file, promptDir);
  return render(t.text.replace(/\r?\n$/, ''), vars, t.path);
}

/**
 * The memory block ('' for no memories). `budgetChars` null = no cut. Throws
 * BcbMemoryOutcomeError where the reference raises; `facts` are computed first (the
 * fidelity vectors record them either way).
 */
export function buildBcbMemoryContext(records: readonly BcbMemoryRecord[], budgetChars: number | null, promptDir?: string): BcbMemoryContext {
  if (records.length === 0) return { text: '', headers: [], facts: null };
  const cap = budgetChars === null ? Infinity : Math.floor(budgetChars / records.length);
  const header = loadTemplate(BCB_PROMPT_DIR, 'memory.md', promptDir).text;
  const parts = [header];
  const headers: string[] = [];
  const entries: BcbMemoryEntryFacts[] = [];
  let failure: Error | undefined;
  records.forEach((r, i) => {
    const index = i + 1;
    let content = coerceBcbContent(r.content, r.outcome, r.task, promptDir);
    const length = pyLen(content);
    const truncated = length > cap;
    entries.push({ index, kept: content !== '', coerced_length: length, memory_type: content ? (content.split('\n')[0] ?? '') : null, truncated: content !== '' && truncated });
    if (!content || failure) return;
    if (truncated) content = `${pySlice(content, cap)}...`;
    if (typeof r.outcome !== 'string') {
      failure = new BcbMemoryOutcomeError(`the outcome of memory ${index} is not text`);
      return;
    }
    headers.push(line('memory-example.md', { index, outcome: r.outcome.toUpperCase() }, promptDir));
    parts.push(headers[headers.length - 1] as string);
    if (truthy(r.taskId)) parts.push(line('memory-task.md', { taskId: pyStr(r.taskId) }, promptDir));
    parts.push(content, '');
  });
  const facts = { per_entry_cap: budgetChars === null ? null : cap, entries };
  if (failure) throw Object.assign(failure, { facts });
  return { text: parts.join('\n'), headers, facts };
}
