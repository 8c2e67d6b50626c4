/**
 * Self-RAG's adaptive decision against the reference's own SelfRAGClient.decide, run on
 * scripted replies (test/fixtures/fidelity/selfrag_decide.jsonl; README.md there says
 * how it was recorded): under the reference's settings (selfrag.gate-call and
 * selfrag.decision-parse at reference) memrl makes the same calls and injects the same
 * candidates. memrl's own settings differ where the switches say.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ChatModel, ChatRequest } from '../../src/llm/types.js';
import { chooseCandidates, type DecisionCandidate } from '../../src/methods/selfrag-decide.js';

interface Vector {
  input: {
    what: string;
    candidates: { id: string; score: number; task_id: string }[];
    replies: (string | { raises: string })[];
    config: { retrieval_mode?: string; max_decision_retries?: number; fallback_on_error?: boolean };
  };
  output: { calls: number; should_retrieve: boolean; selected: string[]; error: boolean };
}

const [, ...lines] = readFileSync('test/fixtures/fidelity/selfrag_decide.jsonl', 'utf8').split('\n').filter((l) => l.trim() !== '');
const vectors = lines.map((l) => JSON.parse(l) as Vector);
// always/never make no call and need no decision: selfrag.test.ts covers them through the method.
const adaptive = vectors.filter((v) => (v.input.config.retrieval_mode ?? 'adaptive') === 'adaptive');

function scripted(replies: Vector['input']['replies']): ChatModel & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    label: 'scripted',
    simulated: false,
    requests,
    async chat(req) {
      const r = replies[requests.length] ?? '';
      requests.push(req);
      if (typeof r !== 'string') throw new Error(r.raises);
      return { text: r, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 }, model: 'scripted', latencyMs: 0 };
    },
  };
}

async function decide(v: Vector, opts: { gate: boolean; referenceParse: boolean }) {
  const model = scripted(opts.gate ? [JSON.stringify({ should_retrieve: true }), ...v.input.replies] : v.input.replies);
  const candidates: DecisionCandidate[] = v.input.candidates.map((c) => ({ id: c.id, taskId: c.task_id, key: `solve ${c.task_id}`, content: `TASK:\nsolve ${c.task_id}`, success: true, sim: c.score }));
  const choice = await chooseCandidates(
    { model, tags: { benchmark: 'toy', taskId: 'q', epoch: 1, phase: 'train' }, attempts: v.input.config.max_decision_retries ?? 2 },
    'count the rows of table t',
    candidates,
    { ...opts, fallbackOnError: v.input.config.fallback_on_error ?? true },
  );
  return { calls: model.requests.length, selected: choice.chosen.map((i) => candidates[i]!.id), error: choice.fallback !== undefined };
}

describe('Self-RAG decisions as the reference makes them', () => {
  it.each(adaptive.map((v) => [v.input.what, v] as const))('%s', async (_, v) => {
    const got = await decide(v, { gate: false, referenceParse: true });
    expect(got).toEqual({ calls: v.output.calls, selected: v.output.selected, error: v.output.error });
  });
});

describe("memrl's settings differ where the switches say", () => {
  const byWhat = (what: string): Vector => adaptive.find((v) => v.input.what.startsWith(what))!;

  it('selfrag.gate-call=memrl: one more call, the gate, before the decision', async () => {
    const v = byWhat('one call decides');
    expect(await decide(v, { gate: true, referenceParse: true })).toEqual({ calls: 2, selected: v.output.selected, error: false });
  });

  it('selfrag.decision-parse=memrl: "false" is false, and text after the object does not spoil it', async () => {
    expect((await decide(byWhat('python truthiness'), { gate: false, referenceParse: false })).selected).toEqual([]);
    const trailing = byWhat('a reply starting with {');
    expect(await decide(trailing, { gate: false, referenceParse: false })).toEqual({ calls: 1, selected: ['selfrag-0', 'selfrag-1', 'selfrag-2'], error: false });
  });
});
