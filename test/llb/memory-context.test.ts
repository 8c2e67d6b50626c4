/**
 * The LLB memory context and prompt layout, as the reference builds them
 * (lifelongbench_eval/memory_context.py, prompts.py, llb_rl_runner.py), in memrl's
 * wording: no block without memories; successes then failures, numbered within
 * their bucket with gaps for skipped ones; the environment preamble removed from
 * transcripts (memrl's own as well as the reference's); failures cut where the
 * failed trajectory starts.
 */
import { describe, expect, it } from 'vitest';
import type { InjectedMemory } from '../../src/core/index.js';
import { loadTemplate, render } from '../../src/util/template.js';
import { DEFAULT_PROMPT_DIR, MEMORY_TEMPLATES } from '../../src/memory/writer.js';
import {
  dbTaskPrompt,
  LLB_PROMPT_DIR,
  llbMemoryBlock,
  llbOpening,
  llbSystemPrompt,
  llbTranscript,
  writerFailureMarker,
  type LlbEpisodeOptions,
} from '../../src/bench/llb/episode.js';
import { bucketMemories, cutFailedTrajectory, formatLlbMemoryContext, removeEnvPreamble } from '../../src/bench/llb/memory-context.js';
import type { DbTask } from '../../src/bench/llb/dataset.js';

const opts: LlbEpisodeOptions = { maxSteps: 15, temperature: 0 };
const task: DbTask = {
  kind: 'db',
  id: 'db/1',
  key: 'k',
  index: '1',
  instruction: 'How many orders are there?',
  table: { name: 'orders', columns: [{ name: 'id', type: 'INT' }, { name: 'qty', type: 'INT' }], rows: [] },
  answer: { direct: [[5]], md5: null, sql: 'SELECT COUNT(*) FROM orders' },
  skills: [],
};

const memory = (content: string, success: boolean, id = 'm'): InjectedMemory => ({ id, key: 'k', content, success, q: 0.5, sim: 0.6 });

/** A memory as memrl's writer stores a failure: the transcript under its failure template. */
function failureMemory(transcript: string): string {
  const t = loadTemplate(DEFAULT_PROMPT_DIR, MEMORY_TEMPLATES.failure);
  return render(t.text.trimEnd(), { task: task.instruction, reflection: 'Counted the wrong table.', trajectory: transcript }, t.path);
}

describe('LLB prompt layout', () => {
  it('no memories: no block at all; the system prompt is the agent prompt then the format block', () => {
    expect(llbMemoryBlock('db', [], opts)).toBeNull();
    const system = llbSystemPrompt('db', null, opts);
    const base = loadTemplate(LLB_PROMPT_DIR, 'system.md').text.trim();
    const format = loadTemplate(LLB_PROMPT_DIR, 'db-format.md').text.trim();
    expect(system).toBe(`${base}\n\n${format}`);
  });

  it('opens with the preamble as a user turn, "OK." from the assistant, then the task with its table line', () => {
    const messages = llbOpening('db', dbTaskPrompt(task, opts), [], opts);
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(messages[2]!.content).toBe('OK.');
    expect(messages[1]!.content).toContain('15 rounds');
    expect(messages[3]!.content).toBe(`${task.instruction}\nTable name: orders. Its columns, in order: id, qty.`);
  });

  it('memories go between the agent prompt and the format block', () => {
    const system = llbSystemPrompt('db', llbMemoryBlock('db', [memory('Task: t\n\nSCRIPT:\nstep', true)], opts), opts);
    const block = system.indexOf('[Memories from similar tasks]');
    expect(block).toBeGreaterThan(0);
    expect(system.indexOf('OUTPUT FORMAT')).toBeGreaterThan(block);
    expect(system).toContain('(worked #1, procedure)\nTask: t\n\nSCRIPT:\nstep');
  });
});

describe('LLB memory context', () => {
  const opening = llbOpening('db', dbTaskPrompt(task, opts), [], opts);
  const transcript = llbTranscript([...opening, { role: 'assistant', content: 'Action: Operation\n```sql\nSELECT COUNT(*) FROM orders;\n```' }, { role: 'user', content: '[(5,)]' }]);

  it("memrl's transcripts lose the environment preamble but keep the rest", () => {
    expect(transcript.startsWith('user: I will give you a question about a MySQL database')).toBe(true);
    const block = llbMemoryBlock('db', [memory(`Task: t\n\nTrajectory:\n${transcript}`, true)], opts)!;
    expect(block).not.toContain('I will give you a question');
    expect(block).toContain('Trajectory:\nassistant: OK.\nuser: How many orders are there?');
  });

  it("failures are cut where memrl's writer puts the failed trajectory, which is the reference's \"Failed approach:\"", () => {
    expect(writerFailureMarker(undefined)).toBe('failed approach:');
    const block = llbMemoryBlock('db', [memory(failureMemory(transcript), false)], opts)!;
    expect(block).toContain('Counted the wrong table.');
    expect(block).not.toContain('SELECT COUNT');
    expect(cutFailedTrajectory('What went wrong:\nx\n\nFAILED APPROACH:\nuser: y')).toBe('What went wrong:\nx');
  });

  it('numbers items within their bucket, leaving gaps for empty ones; failures after successes', () => {
    const buckets = bucketMemories(
      [
        { content: 'fail one', type: 'adjustment', ok: false },
        { content: '', type: 'procedure', ok: true },
        { content: 'win two', type: 'procedure', ok: true },
      ],
      (m) => m.ok,
    );
    const out = formatLlbMemoryContext(buckets, { task: 'db' });
    expect(out.headers).toEqual(['(worked #2, procedure)', '(failed #1, adjustment)']);
    expect(out.sections).toHaveLength(2);
    expect(out.text.indexOf('win two')).toBeLessThan(out.text.indexOf('fail one'));
  });

  it('a word budget stops after the item that reaches it (the reference runner never sets one)', () => {
    const buckets = bucketMemories([{ content: 'a b c d e f', type: 'procedure' }, { content: 'g', type: 'procedure' }], () => true);
    expect(formatLlbMemoryContext(buckets, { task: 'db', budgetWords: 4 }).headers).toHaveLength(1);
    expect(formatLlbMemoryContext(buckets, { task: 'db', budgetWords: null }).headers).toHaveLength(2);
  });

  it("removes the reference's preamble markers too, only from user turns", () => {
    expect(removeEnvPreamble('user: I will ask you a question, then ...\nrules\nassistant: OK.\nuser: q')).toBe('assistant: OK.\nuser: q');
    expect(removeEnvPreamble('assistant: I will ask you a question')).toBe('assistant: I will ask you a question');
  });

  it('the transcript stops before an empty reply and drops the message it answered', () => {
    expect(llbTranscript([{ role: 'system', content: 's' }, { role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: 'c' }, { role: 'assistant', content: '' }])).toBe('user: a\nassistant: b');
  });
});
