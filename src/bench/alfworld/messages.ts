/**
 * The conversation an ALFWorld episode opens with, built as the reference's
 * MempAgent._construct_messages (memrl/agent/memp_agent.py) builds it:
 *
 *   system prompt · the few-shot example of the task's type (its first message introduced)
 *   · one system message with the retrieved memories (none when there are none)
 *   · the task message (the first observation without the banner)
 *
 * The reflection baseline puts its note about the previous attempt where the memories go
 * (alfworld_rl_runner.py:_sample_from_batch_baseline inserts it before the task message).
 * Every text is a template of the alfworld namespace; the layout is fixed.
 */
import type { InjectedMemory } from '../../core/benchmark.js';
import type { ChatMessage } from '../../llm/types.js';
import { loadTemplate, render } from '../../util/template.js';
import { EXAMPLE_FOR, type FewShotExamples, type TaskType } from './dataset.js';
import { attemptTurns, formatMemoryRecord, type RecordLabels } from './memory-format.js';
import { literalEval } from '../../util/python/literal-eval.js';
import { jsonDumpsMessages, type PyValue } from '../../util/python/values.js';

export const ALFWORLD_PROMPT_DIR = 'src/bench/alfworld/prompts';

/** A template's text without the file's final newline. */
function text(file: string, promptDir?: string): { text: string; path: string } {
  const t = loadTemplate(ALFWORLD_PROMPT_DIR, file, promptDir);
  return { text: t.text.replace(/\s+$/, ''), path: t.path };
}

/** What comes before a template's first placeholder, trimmed: the label it opens with. */
function head(t: { text: string }): string {
  return t.text.split('{{')[0]!.trim();
}

/** The alfworld templates of a run (memrl's own, or a pack's). */
export class AlfworldPrompts {
  readonly system: string;
  readonly exampleIntro: string;
  readonly memoryIntro: string;
  readonly successHeader: string;
  readonly failureHeader: string;
  readonly labels: RecordLabels;
  private readonly task: { text: string; path: string };
  private readonly note: { text: string; path: string };

  constructor(readonly promptDir?: string) {
    this.system = text('system.md', promptDir).text;
    this.exampleIntro = text('example-intro.md', promptDir).text;
    this.memoryIntro = text('memory.md', promptDir).text;
    this.successHeader = text('memory-successes.md', promptDir).text;
    this.failureHeader = text('memory-failures.md', promptDir).text;
    this.task = text('task.md', promptDir);
    this.note = text('reflection-note.md', promptDir);
    const script = text('memory-script.md', promptDir);
    const reflection = text('memory-reflection.md', promptDir);
    const trajectory = text('memory-trajectory.md', promptDir).text;
    this.labels = {
      script: (body) => render(script.text, { script: body }, script.path),
      reflection: (body) => render(reflection.text, { reflection: body }, reflection.path),
      trajectory,
      heads: [head(script), head(reflection), trajectory.trim()],
    };
  }

  taskMessage(task: string): string {
    return render(this.task.text, { task }, this.task.path);
  }

  /**
   * The reflection baseline's note on a previous attempt: its result and the agent's
   * turns and observations after the task message, as JSON
   * (alfworld_rl_runner.py:AlfworldRunner._format_reflection_note).
   */
  reflectionNote(trajectory: string, success: boolean): string {
    let parsed: PyValue = null;
    try {
      parsed = literalEval(trajectory);
    } catch {
      parsed = { py: 'list', items: [] };
    }
    // Messages opening like a note or the example are never kept (their first lines, as the reference checks).
    const firstLine = (t: string): string => t.split('\n')[0]!.trim();
    const turns = attemptTurns(parsed, [firstLine(head(this.note)), firstLine(this.exampleIntro)]);
    return render(this.note.text, { result: success ? 'CORRECT' : 'INCORRECT', trajectory: jsonDumpsMessages(turns) }, this.note.path);
  }
}

/** The example of the task's type, its first message introduced (a deep copy: the examples are shared). */
export function exampleFor(taskType: string, examples: FewShotExamples, prompts: AlfworldPrompts): ChatMessage[] {
  const name = EXAMPLE_FOR[taskType as TaskType] ?? 'put';
  const dialogue = (examples[name] ?? []).map((m) => ({ role: m.role, content: m.content }));
  if (dialogue[0]) dialogue[0].content = `${prompts.exampleIntro}\n${dialogue[0].content}`;
  return dialogue;
}

/** A memory the reference cannot read raises; the episode turns that into an error row. */
export class MemoryFormatError extends Error {
  constructor(readonly pyType: string) {
    super(`a retrieved memory could not be formatted (the reference raises ${pyType} here)`);
    this.name = 'MemoryFormatError';
  }
}

/**
 * The system message holding the retrieved memories: successes first, then failures,
 * each in retrieval order; null when there are none.
 */
export function memoryMessage(buckets: { successes: readonly string[]; failures: readonly string[] }, prompts: AlfworldPrompts): string | null {
  const fmt = (raw: string): string => {
    const r = formatMemoryRecord(raw, prompts.labels);
    if ('raises' in r) throw new MemoryFormatError(r.raises);
    return r.text;
  };
  const successes = buckets.successes.map(fmt);
  const failures = buckets.failures.map(fmt);
  if (successes.length === 0 && failures.length === 0) return null;
  const parts = [prompts.memoryIntro];
  if (successes.length > 0) parts.push(`${prompts.successHeader}\n${successes.join('\n')}`);
  if (failures.length > 0) parts.push(`${prompts.failureHeader}\n${failures.join('\n')}`);
  return parts.join('\n\n');
}

export interface OpeningInput {
  /** The first observation without the banner. */
  task: string;
  taskType: string;
  memories: readonly InjectedMemory[];
  examples: FewShotExamples;
}

/** The opening messages; an injected memory marked as a previous attempt becomes the reflection note. */
export function openingMessages(input: OpeningInput, prompts: AlfworldPrompts): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: prompts.system }, ...exampleFor(input.taskType, input.examples, prompts)];
  const attempts = input.memories.filter((m) => m.attempt);
  const retrieved = input.memories.filter((m) => !m.attempt);
  const memory = memoryMessage({ successes: retrieved.filter((m) => m.success).map((m) => m.content), failures: retrieved.filter((m) => !m.success).map((m) => m.content) }, prompts);
  if (memory !== null) messages.push({ role: 'system', content: memory });
  for (const a of attempts) messages.push({ role: 'system', content: prompts.reflectionNote(a.attempt!.trajectory, a.success) });
  messages.push({ role: 'user', content: prompts.taskMessage(input.task) });
  return messages;
}
