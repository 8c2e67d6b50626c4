/**
 * Self-RAG's decisions: the JSON it accepts from the gate and the decision call, what it
 * does with replies it cannot read (ask again, then fall back), and what each outcome
 * row records. The calls go through memrl's real OpenAI client to a loopback
 * OpenAI-compatible server that answers as scripted.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { TaskBase } from '../../src/core/benchmark.js';
import type { MethodInstance, Retrieval } from '../../src/core/method.js';
import { LocalNgramEmbedder } from '../../src/embed/local.js';
import { OpenAIChatModel } from '../../src/llm/openai.js';
import { MEMORY_SWITCHES } from '../../src/memory/fidelity-switches.js';
import { defaultMemoryParams } from '../../src/memory/params.js';
import { askDecision, askGate, extractJsonObject, parseDecision, parseGate, UnparseableReply } from '../../src/methods/selfrag-decide.js';
import { DECISION_PARSE, GATE_CALL, SELFRAG_SWITCHES, selfrag, type SelfRagSettings } from '../../src/methods/selfrag.js';
import { makeFidelity, REFERENCE_FIDELITY, type Fidelity } from '../../src/util/fidelity.js';
import { errorReply, startOpenAIServer, type ChatHandler, type OpenAITestServer } from '../helpers/openai-server.js';

let srv: OpenAITestServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

async function modelAnswering(chat: ChatHandler): Promise<OpenAIChatModel> {
  srv = await startOpenAIServer({ chat });
  return new OpenAIChatModel({ apiKey: 'sk-test-selfrag', baseURL: srv.url, model: 'judge-1', maxRetries: 0 });
}

const isDecision = (body: unknown): boolean => JSON.stringify(body).includes('The task and the candidates');
const tags = { benchmark: 'toy', taskId: 'toy/1', epoch: 2, phase: 'train' as const };

describe('reading the gate and decision replies', () => {
  it('takes a JSON object, bare, fenced or with words around it', () => {
    expect(parseGate('{"should_retrieve": true, "reason": "similar tasks"}')).toEqual({ shouldRetrieve: true, reason: 'similar tasks' });
    expect(parseGate('```json\n{"should_retrieve": false}\n```')).toEqual({ shouldRetrieve: false });
    expect(parseGate('Sure. {"should_retrieve": "true"} Hope that helps.')).toEqual({ shouldRetrieve: true });
    // A missing flag reads as "no", as in the reference.
    expect(parseGate('{"reason": "?"}')).toEqual({ shouldRetrieve: false, reason: '?' });
  });

  it('refuses replies with no readable object', () => {
    for (const raw of ['yes, retrieve', '{"should_retrieve": tru', '"true"', '']) {
      expect(() => parseGate(raw), raw).toThrow(UnparseableReply);
    }
    expect(() => extractJsonObject('{"a": 1} and {"b": 2}')).toThrow(/invalid JSON/);
  });

  it('labels only the candidates it was given, once each', () => {
    const raw = JSON.stringify({
      should_retrieve: true,
      docs: [
        { id: 'a', selected: true, relevance: 0.9, support: '0.8', utility: 4.6 },
        { id: 'ghost', selected: true, relevance: 1, support: 1, utility: 5 },
        { id: 'a', selected: false },
        { id: 'b', selected: 'false', relevance: 'high' },
        'not an object',
      ],
    });
    expect(parseDecision(raw, ['a', 'b', 'c'])).toEqual({
      shouldRetrieve: true,
      docs: [
        { id: 'a', selected: true, relevance: 0.9, support: 0.8, utility: 5 },
        { id: 'b', selected: false, relevance: null, support: null, utility: null },
      ],
    });
    expect(parseDecision('{"should_retrieve": false, "docs": "none"}', ['a'])).toEqual({ shouldRetrieve: false, docs: [] });
  });
});

describe('asking again, through the OpenAI client', () => {
  it('retries an unparseable reply as a new sample, in JSON mode, with role memory', async () => {
    const model = await modelAnswering((_req, n) => (n === 0 ? 'I think we should look.' : '{"should_retrieve": true}'));
    const got = await askGate({ model, tags, attempts: 2 }, 'Parse a CSV file.');
    expect(got).toEqual({ answer: { shouldRetrieve: true }, attempts: 2 });
    const bodies = srv!.chatRequests().map((r) => r.body);
    expect(bodies).toHaveLength(2);
    expect(bodies[0].response_format).toEqual({ type: 'json_object' });
    expect(bodies[0].messages[1].content).toContain('Parse a CSV file.');
  });

  it('counts a failed call as a failed attempt, and gives up after the configured number', async () => {
    const model = await modelAnswering((req, n) => (n === 0 ? errorReply(400, 'bad request') : isDecision(req.body) ? 'no JSON here' : '{}'));
    const cands = [{ id: 'm1', taskId: 't1', key: 'Sort a list.', content: 'Task: Sort a list.', success: true, sim: 0.5 }];
    const got = await askDecision({ model, tags, attempts: 3 }, 'Sort numbers.', cands);
    expect(got.answer).toBeUndefined();
    expect(got.attempts).toBe(3);
    expect(got.error).toMatch(/no JSON object/);
    expect(srv!.chatRequests()).toHaveLength(3);
    // The candidates reach the model as JSON: id, task, outcome, similarity, a preview.
    const input = JSON.parse(/\{[\s\S]*\}/.exec(srv!.chatRequests()[1]!.body.messages[1].content)![0]);
    expect(input).toEqual({ task: 'Sort numbers.', candidates: [{ id: 'm1', task_id: 't1', task: 'Sort a list.', outcome: 'success', similarity: 0.5, experience: 'Task: Sort a list.' }] });
  });
});

const TASKS: TaskBase[] = [
  { id: 'csv/1', key: 'Parse a CSV file and sum the price column.' },
  { id: 'csv/2', key: 'Parse a CSV file and average the price column.' },
  { id: 'img/1', key: 'Resize an image to half its width.' },
];

/** memrl's two calls (gate, then decision) and its strict reading of the decision. */
const TWO_CALLS = makeFidelity('reference', [...MEMORY_SWITCHES, ...SELFRAG_SWITCHES], { [GATE_CALL]: 'memrl', [DECISION_PARSE]: 'memrl' });

/** A Self-RAG instance whose memory holds an attempt at each of TASKS (csv/1 and img/1 solved). */
async function withMemory(model: OpenAIChatModel, settings: Partial<SelfRagSettings>, fidelity: Fidelity = TWO_CALLS, baselineThreshold?: number): Promise<MethodInstance> {
  const method = await selfrag.create({
    benchmark: 'toy',
    settings: { top_k: 3, retrieval_mode: 'adaptive', max_decision_retries: 2, fallback_on_error: true, threshold: null, ...settings },
    params: { ...defaultMemoryParams(), ...(baselineThreshold !== undefined ? { baselineThreshold } : {}) },
    buildStrategy: 'trajectory',
    model,
    embedder: new LocalNgramEmbedder(),
    fidelity,
    log: pino({ level: 'silent' }),
  });
  await method.prepare!(TASKS);
  const experiences = [];
  for (const [index, task] of TASKS.entries()) {
    const success = task.id !== 'csv/2';
    const retrieval: Retrieval = { memories: [], fields: { retrievedIds: [] } };
    const outcome = { status: success ? ('pass' as const) : ('fail' as const), success, steps: 1, trajectory: `def solve(): ...  # ${task.id}`, usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } };
    experiences.push(await method.learn!({ task, index, epoch: 1, retrieval, outcome }));
  }
  await method.commit(experiences.filter((e) => e !== undefined), 1_800_000_000_000);
  return method;
}

const retrieveFor = async (method: MethodInstance, task: TaskBase): Promise<Retrieval> => {
  const { Rng } = await import('../../src/util/rng.js');
  return (await method.retrieve([task], { phase: 'train', epoch: 2, rng: new Rng('x') }))[0]!;
};

describe('Self-RAG retrieval, recorded in the row', () => {
  it('reference (selfrag.gate-call): one decision call, no gate; it picks, injected in similarity order', async () => {
    const model = await modelAnswering((req) =>
      isDecision(req.body) ? JSON.stringify({ should_retrieve: true, docs: [{ id: 'selfrag-e1-t1', selected: true }, { id: 'selfrag-e1-t0', selected: 'yes' }] }) : '{"should_retrieve": false}',
    );
    const method = await withMemory(model, {}, REFERENCE_FIDELITY);
    const r = await retrieveFor(method, TASKS[0]!);
    expect(srv!.chatRequests()).toHaveLength(1);
    expect(isDecision(srv!.chatRequests()[0]!.body)).toBe(true);
    // Asked without JSON mode, as the reference's provider call.
    expect(srv!.chatRequests()[0]!.body.response_format).toBeUndefined();
    // The reference reads "yes" as true (selfrag.decision-parse).
    expect(r.fields.retrievedIds).toEqual(['selfrag-e1-t0', 'selfrag-e1-t1']);
    expect(r.record).toMatchObject({ gate: null, decision: { attempts: 1, retrieve: true }, fallback: null });
  });

  it("the similarity floor defaults to the run's baseline threshold (the reference's sim_threshold, or tau on HLE)", async () => {
    const model = await modelAnswering(() => '{"should_retrieve": true, "docs": []}');
    const floored = await withMemory(model, {}, REFERENCE_FIDELITY, 0.99);
    const r = await retrieveFor(floored, TASKS[2]!);
    expect(r.record).toMatchObject({ candidates: [], selected: [] });
    expect(srv!.chatRequests()).toHaveLength(0);
    // An explicit threshold wins over it.
    const open = await withMemory(model, { threshold: -1 }, REFERENCE_FIDELITY, 0.99);
    expect((await retrieveFor(open, TASKS[2]!)).fields.pool).toBe(3);
  });

  it('selfrag.gate-call=memrl: the gate says yes, the decision picks; injected in similarity order with every label recorded', async () => {
    const model = await modelAnswering((req) => {
      if (!isDecision(req.body)) return '{"should_retrieve": true, "reason": "similar CSV work"}';
      return JSON.stringify({
        should_retrieve: true,
        docs: [
          { id: 'selfrag-e1-t1', selected: true, relevance: 0.9, support: 0.4, utility: 3 },
          { id: 'selfrag-e1-t0', selected: true, relevance: 0.95, support: 0.9, utility: 5 },
          { id: 'selfrag-e1-t2', selected: false, relevance: 0.1, support: 0, utility: 1 },
        ],
      });
    });
    const method = await withMemory(model, {});
    const r = await retrieveFor(method, TASKS[0]!);
    expect(r.fields.retrievedIds).toEqual(['selfrag-e1-t0', 'selfrag-e1-t1']);
    expect(r.memories[0]).toMatchObject({ taskId: 'csv/1', success: true, content: expect.stringContaining('Result: success (pass)') });
    expect(r.fields.pool).toBe(3);
    expect(r.record).toMatchObject({
      mode: 'adaptive',
      gate: { attempts: 1, retrieve: true },
      decision: { attempts: 1, retrieve: true, labels: [{ id: 'selfrag-e1-t0', selected: true, utility: 5 }, { id: 'selfrag-e1-t1', selected: true }, { id: 'selfrag-e1-t2', selected: false }] },
      fallback: null,
      selected: ['selfrag-e1-t0', 'selfrag-e1-t1'],
    });
    expect((r.record!.candidates as { id: string }[]).map((c) => c.id)).toEqual(['selfrag-e1-t0', 'selfrag-e1-t1', 'selfrag-e1-t2']);
  });

  it('adaptive: a gate that says no means no decision call and nothing injected', async () => {
    const model = await modelAnswering(() => '{"should_retrieve": false}');
    const method = await withMemory(model, {});
    const r = await retrieveFor(method, TASKS[2]!);
    expect(r.memories).toEqual([]);
    expect(r.record).toMatchObject({ gate: { retrieve: false }, decision: null, fallback: null, selected: [] });
    expect(srv!.chatRequests()).toHaveLength(1);
  });

  it('falls back to plain top-k when the decision never parses, or to nothing when fallback_on_error is false', async () => {
    const answer: ChatHandler = (req) => (isDecision(req.body) ? 'selected: the first two' : '{"should_retrieve": true}');
    for (const [fallbackOnError, expected] of [
      [true, ['selfrag-e1-t0', 'selfrag-e1-t1', 'selfrag-e1-t2']],
      [false, []],
    ] as const) {
      const method = await withMemory(await modelAnswering(answer), { fallback_on_error: fallbackOnError });
      const r = await retrieveFor(method, TASKS[0]!);
      expect(r.fields.retrievedIds).toEqual(expected);
      expect(r.record).toMatchObject({ decision: { attempts: 2, error: expect.stringMatching(/no JSON object/) }, fallback: fallbackOnError ? 'top-k' : 'none' });
      expect(srv!.chatRequests()).toHaveLength(3); // gate + two decision attempts
      await srv!.close();
      srv = undefined;
    }
  });

  it('always and never make no model call', async () => {
    for (const [mode, injected] of [
      ['always', 3],
      ['never', 0],
    ] as const) {
      const method = await withMemory(await modelAnswering(() => 'unused'), { retrieval_mode: mode });
      const r = await retrieveFor(method, TASKS[1]!);
      expect(r.memories).toHaveLength(injected);
      expect(r.record).toMatchObject({ mode, selected: r.fields.retrievedIds });
      expect(srv!.chatRequests()).toHaveLength(0);
      await srv!.close();
      srv = undefined;
    }
  });

  it('snapshots and restores its memory exactly', async () => {
    const model = await modelAnswering(() => '{"should_retrieve": false}');
    const method = await withMemory(model, { retrieval_mode: 'always' });
    const again = await selfrag.create({
      benchmark: 'toy',
      settings: { top_k: 3, retrieval_mode: 'always', max_decision_retries: 2, fallback_on_error: true, threshold: null },
      params: defaultMemoryParams(),
      buildStrategy: 'trajectory',
      model,
      embedder: new LocalNgramEmbedder(),
      fidelity: REFERENCE_FIDELITY,
    log: pino({ level: 'silent' }),
      restored: JSON.parse(JSON.stringify(method.snapshot())),
    });
    await again.prepare!(TASKS);
    expect(JSON.stringify(again.snapshot())).toBe(JSON.stringify(method.snapshot()));
    expect(again.records()).toEqual(method.records());
    expect(await retrieveFor(again, TASKS[1]!)).toEqual(await retrieveFor(method, TASKS[1]!));
  });
});
