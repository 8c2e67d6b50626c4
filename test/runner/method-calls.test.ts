/** The method's own calls, kept by the episode their tags name until its row or transcript takes them. */
import { describe, expect, it } from 'vitest';
import type { OutcomeRow } from '../../src/core/outcome.js';
import type { ChatModel, ChatRequest } from '../../src/llm/types.js';
import type { RecordedCall } from '../../src/metrics/transcripts.js';
import { MethodCalls, withMethodCalls } from '../../src/runner/method-calls.js';

const echo: ChatModel = {
  label: 'echo',
  simulated: true,
  chat: async (req) => {
    if (req.messages[0]!.content === 'fail') throw new Error('endpoint said no');
    return { text: `re: ${String(req.messages[0]!.content)}`, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 }, model: 'echo', latencyMs: 0 };
  },
};
const ask = (m: ChatModel, taskId: string, content: string, purpose = 'script'): Promise<unknown> =>
  m.chat({ messages: [{ role: 'user', content }], tags: { benchmark: 'toy', taskId, epoch: 1, phase: 'train', role: 'memory', purpose } } as ChatRequest).catch(() => undefined);

describe('MethodCalls', () => {
  it("keeps each call, failed ones too, under the episode its tags name, in order, until taken", async () => {
    const calls = new MethodCalls();
    const model = calls.recording(echo);
    await ask(model, 't1', 'gate', 'selfrag-gate');
    await ask(model, 't2', 'other');
    await ask(model, 't1', 'fail');
    const t1 = calls.take('train', 1, 't1');
    expect(t1.map((c) => [c.role, c.purpose, c.reply ?? c.error])).toEqual([['memory', 'selfrag-gate', 're: gate'], ['memory', 'script', 'endpoint said no']]);
    expect(calls.take('train', 1, 't1')).toEqual([]);
    expect(calls.take('valid', 1, 't2')).toEqual([]);
    expect(calls.take('train', 1, 't2')).toHaveLength(1);
  });

  it("puts the method's calls around the episode's own in its row", () => {
    const c = (reply: string): RecordedCall => ({ role: 'memory', messages: [], reply });
    const row = { taskId: 't', extra: { calls: [{ role: 'agent', messages: [], reply: 'own' }], steps: 2 } } as unknown as OutcomeRow;
    expect(withMethodCalls(row, [c('before')], [c('after')]).extra).toEqual({ steps: 2, calls: [c('before'), { role: 'agent', messages: [], reply: 'own' }, c('after')] });
    expect(withMethodCalls(row, [], [])).toBe(row);
    const bare = { taskId: 't' } as unknown as OutcomeRow;
    expect(withMethodCalls(bare, [c('before')], []).extra).toEqual({ calls: [c('before')] });
  });
});
