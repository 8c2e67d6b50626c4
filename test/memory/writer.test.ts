import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatModel, ChatRequest, ChatResponse } from '../../src/llm/types.js';
import { ProviderError } from '../../src/llm/errors.js';
import { OpenAIChatModel } from '../../src/llm/openai.js';
import { FAILED_CALL, SCRIPT_INPUT, SCRIPT_TEMPERATURE, WRITER_SWITCHES } from '../../src/memory/fidelity-switches.js';
import { MemoryWriter, TASK_CHARS } from '../../src/memory/writer.js';
import { makeFidelity } from '../../src/util/fidelity.js';
import { tempDir } from '../helpers/temp.js';

/** A chat model that records requests and answers (or fails) per purpose. */
function fakeModel(reply: (req: ChatRequest) => string | Error) {
  const calls: ChatRequest[] = [];
  const model: ChatModel = {
    label: 'fake',
    simulated: true,
    async chat(req): Promise<ChatResponse> {
      calls.push(req);
      const r = reply(req);
      if (r instanceof Error) throw r;
      return { text: r, usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 }, model: 'fake', latencyMs: 0 };
    },
  };
  return { model, calls };
}

const tags = { benchmark: 'bcb', taskId: 'BigCodeBench/7', epoch: 2, phase: 'train' as const };
const episode = { task: 'Sort the list', trajectory: 'def f(x): return sorted(x)', tags };

describe('MemoryWriter', () => {
  it('proceduralization, success: the reference layout, the script written from the trajectory alone at the run defaults', async () => {
    const { model, calls } = fakeModel(() => '1. Read the spec\n2. Sort');
    const w = new MemoryWriter({ strategy: 'proceduralization', model });
    const out = await w.write({ ...episode, success: true });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.tags).toEqual({ ...tags, role: 'memory', purpose: 'script' });
    const prompt = calls[0]!.messages[0]!.content as string;
    expect(prompt).toContain('def f(x)');
    // The reference's script prompt never sees the task description.
    expect(prompt).not.toContain('Sort the list');
    // No temperature or max_tokens: the client's defaults (the run's llm.temperature / max_tokens) apply.
    expect(calls[0]!.temperature).toBeUndefined();
    expect(calls[0]!.maxTokens).toBeUndefined();
    expect(out.content).toBe('Task: Sort the list\n\nSCRIPT:\n1. Read the spec\n2. Sort\n\nTRAJECTORY:\ndef f(x): return sorted(x)');
    expect(out.usage).toEqual({ promptTokens: 10, completionTokens: 5, totalTokens: 15 });
    expect(out.llmError).toBeUndefined();
  });

  it("the script call goes out at the run's llm.temperature (HLE 0.6), not 0.7", async () => {
    const { model, calls } = fakeModel(() => 'steps');
    await new MemoryWriter({ strategy: 'proceduralization', model }).write({ ...episode, success: true });
    const client = new OpenAIChatModel({ apiKey: 'sk-test', model: 'gpt-x', defaultTemperature: 0.6, defaultMaxTokens: 4096 });
    const body = client.buildBody(calls[0]!);
    expect(body.temperature).toBe(0.6);
    expect(body.max_tokens).toBe(4096);
  });

  it('writer.script-temperature=memrl: scripts at 0.7; writer.script-input=memrl: the prompt sees the task too', async () => {
    const { model, calls } = fakeModel(() => 'steps');
    const fidelity = makeFidelity('reference', WRITER_SWITCHES, { [SCRIPT_TEMPERATURE]: 'memrl', [SCRIPT_INPUT]: 'memrl' });
    await new MemoryWriter({ strategy: 'proceduralization', model, fidelity }).write({ ...episode, success: true });
    expect(calls[0]!.temperature).toBe(0.7);
    const prompt = calls[0]!.messages[0]!.content as string;
    expect(prompt).toContain('Sort the list');
    expect(prompt).toContain('def f(x)');
  });

  it('the fixed profile keeps the reference writer (its switches are choices)', async () => {
    const { model, calls } = fakeModel(() => 'steps');
    await new MemoryWriter({ strategy: 'proceduralization', model, fidelity: makeFidelity('fixed', WRITER_SWITCHES) }).write({ ...episode, success: true });
    expect(calls[0]!.temperature).toBeUndefined();
    expect(calls[0]!.messages[0]!.content).not.toContain('Sort the list');
  });

  it('proceduralization, failure: a reflection at temperature 0.3 on task and trajectory, in the TASK REFLECTION layout', async () => {
    const { model, calls } = fakeModel(() => 'Assumed the input was sorted.');
    const out = await new MemoryWriter({ strategy: 'proceduralization', model }).write({ ...episode, success: false });
    expect(calls[0]!.tags.purpose).toBe('reflection');
    expect(calls[0]!.temperature).toBe(0.3);
    expect(calls[0]!.messages[0]!.content).toContain('Sort the list');
    expect(calls[0]!.messages[0]!.content).toContain('def f(x)');
    expect(out.content).toBe('TASK REFLECTION:\nTask: Sort the list\n\nWhat went wrong:\nAssumed the input was sorted.\n\nFailed approach:\ndef f(x): return sorted(x)');
  });

  it('a failed reflection call stores a fixed note; a failed script call writes no memory (as the reference)', async () => {
    const { model } = fakeModel(() => new Error('HTTP 500'));
    const w = new MemoryWriter({ strategy: 'proceduralization', model });
    const failed = await w.write({ ...episode, success: false });
    expect(failed.llmError).toMatch(/HTTP 500/);
    expect(failed.content).toContain('No reflection could be written');
    expect(failed.content).toContain('def f(x)');
    const ok = await w.write({ ...episode, success: true });
    expect(ok.content).toBeNull();
    expect(ok.llmError).toMatch(/HTTP 500/);
    expect(ok.usage.totalTokens).toBe(0);
  });

  it('an empty reply is stored as it came under the reference (also when the client refuses it as empty)', async () => {
    const expected = 'Task: Sort the list\n\nSCRIPT:\n\n\nTRAJECTORY:\ndef f(x): return sorted(x)';
    const { model } = fakeModel(() => '');
    const out = await new MemoryWriter({ strategy: 'proceduralization', model }).write({ ...episode, success: true });
    expect(out.content).toBe(expected);
    expect(out.llmError).toBeUndefined();
    const refused = fakeModel(() => new ProviderError('openai:x chat returned no content', 'openai:x', 'empty')).model;
    expect((await new MemoryWriter({ strategy: 'proceduralization', model: refused }).write({ ...episode, success: true })).content).toBe(expected);
  });

  it('writer.failed-call=memrl: failed and empty calls store placeholders, every episode writes a memory', async () => {
    const fidelity = makeFidelity('reference', WRITER_SWITCHES, { [FAILED_CALL]: 'memrl' });
    const failing = new MemoryWriter({ strategy: 'proceduralization', model: fakeModel(() => new Error('HTTP 500')).model, fidelity });
    const ok = await failing.write({ ...episode, success: true });
    expect(ok.content).toContain('No script could be written');
    expect(ok.llmError).toMatch(/HTTP 500/);
    const empty = await new MemoryWriter({ strategy: 'proceduralization', model: fakeModel(() => '  ').model, fidelity }).write({ ...episode, success: false });
    expect(empty.content).toContain('No reflection could be written');
    expect(empty.llmError).toMatch(/empty reflection reply/);
  });

  it('rethrows when the run was cancelled instead of writing a placeholder', async () => {
    const ctrl = new AbortController();
    ctrl.abort();
    const { model } = fakeModel(() => new Error('aborted'));
    await expect(
      new MemoryWriter({ strategy: 'proceduralization', model }).write({ ...episode, success: true, signal: ctrl.signal }),
    ).rejects.toThrow(/aborted/);
  });

  it('trajectory strategy stores the raw trajectory and calls no model for a success', async () => {
    const out = await new MemoryWriter({ strategy: 'trajectory', updateStrategy: 'vanilla' }).write({ ...episode, success: false });
    expect(out.content).toBe('Task: Sort the list\n\ndef f(x): return sorted(x)');
    expect(out.usage.totalTokens).toBe(0);
  });

  it('under adjustment a failure is reflected on whatever the build strategy', async () => {
    const { model, calls } = fakeModel(() => 'lesson');
    const out = await new MemoryWriter({ strategy: 'trajectory', model }).write({ ...episode, success: false });
    expect(calls.map((c) => c.tags.purpose)).toEqual(['reflection']);
    expect(out.content).toContain('What went wrong:\nlesson');
    expect(() => new MemoryWriter({ strategy: 'trajectory' })).toThrow(/needs a chat model/);
  });

  it('script strategy stores the script without the trajectory', async () => {
    const { model } = fakeModel(() => '1. Sort');
    const out = await new MemoryWriter({ strategy: 'script', model }).write({ ...episode, success: true });
    expect(out.content).toBe('Task: Sort the list\n\n1. Sort');
  });

  it('vanilla update strategy distils failures into a script like successes', async () => {
    const { model, calls } = fakeModel((req) => `reply for ${req.tags.purpose}`);
    const out = await new MemoryWriter({ strategy: 'proceduralization', updateStrategy: 'vanilla', model }).write({
      ...episode,
      success: false,
    });
    expect(calls[0]!.tags.purpose).toBe('script');
    expect(out.content).toContain('reply for script');
  });

  it('validation update strategy writes nothing for a failure, with no model call', async () => {
    const { model, calls } = fakeModel(() => 'x');
    const out = await new MemoryWriter({ strategy: 'proceduralization', updateStrategy: 'validation', model }).write({ ...episode, success: false });
    expect(out.content).toBeNull();
    expect(calls).toHaveLength(0);
  });

  it('keeps the first 4096 characters of the task, as the reference stores it', async () => {
    const long = 'x'.repeat(TASK_CHARS + 10);
    const out = await new MemoryWriter({ strategy: 'trajectory', updateStrategy: 'vanilla' }).write({ ...episode, task: long, success: true });
    expect(out.content).toBe(`Task: ${'x'.repeat(TASK_CHARS)}\n\ndef f(x): return sorted(x)`);
  });

  it('takes templates from a prompt dir, file by file', async () => {
    const dir = tempDir('memrl-prompts-');
    writeFileSync(join(dir, 'script.md'), 'CUSTOM SCRIPT PROMPT for {{trajectory}}\n');
    writeFileSync(join(dir, 'memory-success.md'), '[{{task}}] {{script}}\n');
    const { model, calls } = fakeModel(() => 'steps');
    const out = await new MemoryWriter({ strategy: 'proceduralization', model, promptDir: dir }).write({
      ...episode,
      success: true,
    });
    expect(calls[0]!.messages[0]!.content).toBe('CUSTOM SCRIPT PROMPT for def f(x): return sorted(x)');
    expect(out.content).toBe('[Sort the list] steps');
  });

  it('a template with an unknown placeholder is a user error naming it', async () => {
    const dir = tempDir('memrl-prompts-');
    writeFileSync(join(dir, 'reflection.md'), 'Reflect on {{taks}}');
    const { model } = fakeModel(() => 'x');
    await expect(
      new MemoryWriter({ strategy: 'proceduralization', model, promptDir: dir }).write({ ...episode, success: false }),
    ).rejects.toThrow(/\{\{taks\}\}.*reflection\.md/);
  });

  it('needs a model for strategies that call one', () => {
    expect(() => new MemoryWriter({ strategy: 'proceduralization' })).toThrow(/needs a chat model/);
  });
});
