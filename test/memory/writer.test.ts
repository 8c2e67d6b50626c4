import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatModel, ChatRequest, ChatResponse } from '../../src/llm/types.js';
import { MemoryWriter } from '../../src/memory/writer.js';
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
  it('proceduralization, success: task + script (from the model) + trajectory', async () => {
    const { model, calls } = fakeModel(() => '1. Read the spec\n2. Sort');
    const w = new MemoryWriter({ strategy: 'proceduralization', model });
    const out = await w.write({ ...episode, success: true });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.tags).toEqual({ ...tags, role: 'memory', purpose: 'script' });
    const prompt = calls[0]!.messages[0]!.content as string;
    expect(prompt).toContain('Sort the list');
    expect(prompt).toContain('def f(x)');
    expect(out.content).toContain('Sort the list');
    expect(out.content).toContain('1. Read the spec\n2. Sort');
    expect(out.content).toContain('def f(x): return sorted(x)');
    expect(out.content.indexOf('1. Read the spec')).toBeLessThan(out.content.indexOf('def f(x)'));
    expect(out.usage).toEqual({ promptTokens: 10, completionTokens: 5, totalTokens: 15 });
    expect(out.llmError).toBeUndefined();
  });

  it('proceduralization, failure: a reflection at temperature 0.3 + the failed trajectory', async () => {
    const { model, calls } = fakeModel(() => 'Assumed the input was sorted.');
    const out = await new MemoryWriter({ strategy: 'proceduralization', model }).write({ ...episode, success: false });
    expect(calls[0]!.tags.purpose).toBe('reflection');
    expect(calls[0]!.temperature).toBe(0.3);
    expect(out.content).toContain('Assumed the input was sorted.');
    expect(out.content).toContain('def f(x)');
  });

  it('still writes a memory, with fixed placeholder text, when the model call fails', async () => {
    const { model } = fakeModel(() => new Error('HTTP 500'));
    const w = new MemoryWriter({ strategy: 'proceduralization', model });
    const failed = await w.write({ ...episode, success: false });
    expect(failed.llmError).toMatch(/HTTP 500/);
    expect(failed.content).toContain('No reflection could be written');
    expect(failed.content).toContain('def f(x)');
    const ok = await w.write({ ...episode, success: true });
    expect(ok.content).toContain('No script could be written');
    expect(ok.usage.totalTokens).toBe(0);
  });

  it('rethrows when the run was cancelled instead of writing a placeholder', async () => {
    const ctrl = new AbortController();
    ctrl.abort();
    const { model } = fakeModel(() => new Error('aborted'));
    await expect(
      new MemoryWriter({ strategy: 'proceduralization', model }).write({ ...episode, success: true, signal: ctrl.signal }),
    ).rejects.toThrow(/aborted/);
  });

  it('trajectory strategy stores the raw trajectory and calls no model', async () => {
    const out = await new MemoryWriter({ strategy: 'trajectory' }).write({ ...episode, success: false });
    expect(out.content).toContain('def f(x): return sorted(x)');
    expect(out.content).toContain('Sort the list');
    expect(out.usage.totalTokens).toBe(0);
  });

  it('script strategy stores the script without the trajectory', async () => {
    const { model } = fakeModel(() => '1. Sort');
    const out = await new MemoryWriter({ strategy: 'script', model }).write({ ...episode, success: true });
    expect(out.content).toContain('1. Sort');
    expect(out.content).not.toContain('def f(x)');
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

  it('takes templates from a prompt dir, file by file', async () => {
    const dir = tempDir('memrl-prompts-');
    writeFileSync(join(dir, 'script.md'), 'CUSTOM SCRIPT PROMPT for {{task}}\n');
    writeFileSync(join(dir, 'memory-success.md'), '[{{task}}] {{script}}\n');
    const { model, calls } = fakeModel(() => 'steps');
    const out = await new MemoryWriter({ strategy: 'proceduralization', model, promptDir: dir }).write({
      ...episode,
      success: true,
    });
    expect(calls[0]!.messages[0]!.content).toBe('CUSTOM SCRIPT PROMPT for Sort the list');
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
