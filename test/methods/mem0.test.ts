/**
 * The Mem0 baseline with the real mem0ai package (no stand-in for it), talking to a
 * loopback OpenAI-compatible server through memrl's own OpenAI chat client and embedder:
 * what mem0 sends (its extraction prompt, dates pinned; embeddings), what memrl injects,
 * and a restore from the checkpoint that makes no call at all.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { TaskBase } from '../../src/core/benchmark.js';
import type { MethodInstance, Retrieval } from '../../src/core/method.js';
import { OpenAIEmbedder } from '../../src/embed/openai.js';
import { OpenAIChatModel } from '../../src/llm/openai.js';
import { defaultMemoryParams } from '../../src/memory/params.js';
import { clampForMem0, pinDates, MAX_MEM0_CHARS } from '../../src/methods/mem0-bridge.js';
import { MEM0_SWITCHES, mem0, RANKING, type Mem0Settings } from '../../src/methods/mem0.js';
import { MEMORY_SWITCHES } from '../../src/memory/fidelity-switches.js';
import { makeFidelity, REFERENCE_FIDELITY } from '../../src/util/fidelity.js';
import { Rng } from '../../src/util/rng.js';
import { errorReply, startOpenAIServer, type OpenAITestServer } from '../helpers/openai-server.js';

const servers: OpenAITestServer[] = [];
const methods: MethodInstance[] = [];
afterEach(async () => {
  for (const m of methods.splice(0)) await m.close?.();
  for (const s of servers.splice(0)) await s.close();
});

const TASKS: TaskBase[] = [
  { id: 'csv/1', key: 'Parse a CSV file and sum the price column.' },
  { id: 'csv/2', key: 'Parse a CSV file and average the price column.' },
  { id: 'img/1', key: 'Resize an image to half its width.' },
];

/** mem0's extraction reply: one memory naming the task it saw. */
function extraction(body: any): string {
  const user = String(body.messages.at(-1).content);
  const task = /Task: ([^\n]*)/.exec(user)?.[1] ?? 'nothing';
  return JSON.stringify({ memory: [{ id: '0', text: `The user worked on: ${task}` }] });
}

/** Word counts hashed into 64 buckets: texts sharing words are similar, and no cosine is negative. */
function bagOfWords(text: string): number[] {
  const v = new Array<number>(64).fill(0);
  for (const w of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 7;
    for (const ch of w) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
    v[h % 64]! += 1;
  }
  return v;
}

async function server(chat: (body: any) => string | ReturnType<typeof errorReply> = extraction): Promise<OpenAITestServer> {
  const s = await startOpenAIServer({ chat: (req) => chat(req.body), embeddings: (inputs) => inputs.map(bagOfWords) });
  servers.push(s);
  return s;
}

async function create(s: OpenAITestServer, settings: Partial<Mem0Settings>, restored?: unknown): Promise<MethodInstance> {
  const method = await mem0.create({
    benchmark: 'toy',
    settings: { limit: 2, threshold: null, infer: false, ...settings },
    params: defaultMemoryParams(),
    buildStrategy: 'trajectory',
    model: new OpenAIChatModel({ apiKey: 'sk-test-mem0', baseURL: s.url, model: 'chat-1', maxRetries: 0 }),
    embedder: new OpenAIEmbedder({ apiKey: 'sk-test-mem0', baseURL: s.url, model: 'embed-1', maxRetries: 0 }),
    fidelity: REFERENCE_FIDELITY,
    log: pino({ level: 'silent' }),
    ...(restored ? { restored } : {}),
  });
  methods.push(method);
  return method;
}

/** Learn and commit one solved (csv/1, img/1) or failed (csv/2) attempt at each task. */
async function fill(method: MethodInstance): Promise<void> {
  await method.prepare!(TASKS);
  const experiences = [];
  for (const [index, task] of TASKS.entries()) {
    const success = task.id !== 'csv/2';
    const retrieval: Retrieval = { memories: [], fields: { retrievedIds: [] } };
    const outcome = { status: success ? ('pass' as const) : ('fail' as const), success, steps: 1, trajectory: `def solve(): ...  # ${task.id}`, usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } };
    experiences.push((await method.learn!({ task, index, epoch: 1, retrieval, outcome }))!);
  }
  await method.commit(experiences, 1_800_000_000_000);
}

const retrieve = (method: MethodInstance, tasks = TASKS): Promise<Retrieval[]> => method.retrieve(tasks, { phase: 'train', epoch: 2, rng: new Rng('unused') });

describe('Mem0 with mem0ai, over memrl clients', () => {
  it('infer=false: one memory per experience, no chat call; search hits injected best first under stable ids', async () => {
    const s = await server();
    const method = await create(s, { infer: false });
    await fill(method);
    expect(s.chatRequests()).toHaveLength(0);
    expect(method.size).toBe(3);
    const [r] = await retrieve(method, [TASKS[0]!]);
    expect(r!.fields.retrievedIds).toEqual(['mem0-e1-t0', 'mem0-e1-t1']);
    expect(r!.memories[0]).toMatchObject({ id: 'mem0-e1-t0', taskId: 'csv/1', success: true, key: TASKS[0]!.key });
    expect(r!.memories[0]!.content).toMatch(/^Task: Parse a CSV file and sum the price column\.[\s\S]*Result: success \(pass\)$/);
    expect(r!.memories[1]).toMatchObject({ taskId: 'csv/2', success: false });
    // Sorted by mem0's score.
    expect(r!.fields.retrievedSim![0]).toBeGreaterThanOrEqual(r!.fields.retrievedSim![1]!);
    expect(method.records().map((m) => [m.id, m.createdAt, m.meta.experience])).toEqual([
      ['mem0-e1-t0', 1_800_000_000_000, 'mem0-e1-t0'],
      ['mem0-e1-t1', 1_800_000_000_000, 'mem0-e1-t1'],
      ['mem0-e1-t2', 1_800_000_000_000, 'mem0-e1-t2'],
    ]);
  });

  it("infer=true: mem0's own extraction call goes to memrl's model, with the dates pinned; its memories are injected", async () => {
    const s = await server();
    const method = await create(s, { infer: true, limit: 1 });
    await fill(method);
    const calls = s.chatRequests();
    expect(calls).toHaveLength(3);
    const prompt = String(calls[0]!.body.messages.at(-1).content);
    expect(prompt).toContain('## New Messages');
    expect(prompt).toContain('Parse a CSV file and sum the price column.');
    expect(prompt).toMatch(/## Observation Date\n\(not recorded\)/);
    expect(prompt).toMatch(/## Current Date\n\(not recorded\)/);
    expect(prompt).not.toMatch(/\d{4}-\d{2}-\d{2}/);
    expect(calls[0]!.body.response_format).toEqual({ type: 'json_object' });
    expect(calls[0]!.headers.authorization).toBe('Bearer sk-test-mem0');
    const [r] = await retrieve(method, [TASKS[2]!]);
    expect(r!.memories).toEqual([expect.objectContaining({ id: 'mem0-e1-t2-m0', taskId: 'img/1', content: 'The user worked on: Resize an image to half its width.' })]);
    expect(method.stats()).toMatchObject({ memories: 3, experiences: 3, infer: true });
  });

  it('restores from its checkpoint without a single call, to the same memory and the same search results', async () => {
    const live = await server();
    const method = await create(live, { infer: true });
    await fill(method);
    const before = await retrieve(method);
    const snapshot = JSON.parse(JSON.stringify(method.snapshot()));
    const used = live.requests.length;

    // The checkpoint's replay answers mem0 from what it recorded; this server sees only the searches' queries.
    const fresh = await server(() => {
      throw new Error('no chat call expected');
    });
    const restored = await create(fresh, { infer: true }, snapshot);
    expect(fresh.requests).toHaveLength(0);
    expect(JSON.stringify(restored.snapshot())).toBe(JSON.stringify(snapshot));
    expect(restored.records()).toEqual(method.records());
    expect(await retrieve(restored)).toEqual(before);
    expect(fresh.chatRequests()).toHaveLength(0);
    expect(live.requests.length).toBe(used);
  });

  it("a failed model call fails the barrier with the model's own error", async () => {
    const s = await server(() => errorReply(401, 'invalid api key'));
    const method = await create(s, { infer: true });
    await expect(fill(method)).rejects.toThrow(/invalid api key/);
  });
});

describe('what memrl changes in what mem0 gets', () => {
  it('clamps long experiences head and tail, as the reference', () => {
    const long = `${'a'.repeat(6000)}MIDDLE${'z'.repeat(6000)}`;
    const c = clampForMem0(long);
    expect(c.length).toBe(MAX_MEM0_CHARS);
    expect(c.startsWith('aaa')).toBe(true);
    expect(c.endsWith('zzz')).toBe(true);
    expect(c).not.toContain('MIDDLE');
    expect(clampForMem0('short')).toBe('short');
  });

  it('pins only the two dates of the extraction prompt', () => {
    const prompt = '## New Messages\nassistant: on 2024-01-02 it failed\n\n## Observation Date\n2026-11-23\n\n## Current Date\n2026-11-23\n\n# Output:';
    expect(pinDates(prompt)).toBe('## New Messages\nassistant: on 2024-01-02 it failed\n\n## Observation Date\n(not recorded)\n\n## Current Date\n(not recorded)\n\n# Output:');
  });
});

describe('mem0.ranking: which memory a search injects', () => {
  const A: TaskBase = { id: 'img/1', key: 'Resize an image to half its width.' };
  const B: TaskBase = { id: 'csv/1', key: 'Parse a CSV file and sum the price column.' };
  const Q: TaskBase = { id: 'csv/9', key: 'Parse the CSV file again, then sum the price column.' };
  /** The query is nearer A's memory by cosine (0.9 against 0.8); B shares its words. */
  function vector(text: string): number[] {
    if (text.includes('again')) return [1, 0, 0];
    if (text.includes('Resize an image')) return [0.9, Math.sqrt(1 - 0.81), 0];
    if (text.includes('Parse a CSV file')) return [0.8, 0.6, 0];
    return [0, 0, 1];
  }

  async function injected(ranking: 'reference' | 'memrl'): Promise<Retrieval> {
    const s = await startOpenAIServer({ chat: () => 'unused', embeddings: (inputs) => inputs.map(vector) });
    servers.push(s);
    const method = await mem0.create({
      benchmark: 'toy',
      settings: { limit: 1, threshold: null, infer: false },
      params: defaultMemoryParams(),
      buildStrategy: 'trajectory',
      model: new OpenAIChatModel({ apiKey: 'sk-test-mem0', baseURL: s.url, model: 'chat-1', maxRetries: 0 }),
      embedder: new OpenAIEmbedder({ apiKey: 'sk-test-mem0', baseURL: s.url, model: 'embed-1', maxRetries: 0 }),
      fidelity: makeFidelity('reference', [...MEMORY_SWITCHES, ...MEM0_SWITCHES], { [RANKING]: ranking }),
      log: pino({ level: 'silent' }),
    });
    methods.push(method);
    await method.prepare!([A, B, Q]);
    const outcome = { status: 'pass' as const, success: true, steps: 1, trajectory: 'def solve(): ...', usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } };
    const none: Retrieval = { memories: [], fields: { retrievedIds: [] } };
    const exps = [await method.learn!({ task: A, index: 0, epoch: 1, retrieval: none, outcome }), await method.learn!({ task: B, index: 1, epoch: 1, retrieval: none, outcome })];
    await method.commit(exps.filter((e) => e !== undefined), 1);
    return (await method.retrieve([Q], { phase: 'train', epoch: 2, rng: new Rng('unused') }))[0]!;
  }

  it('reference: by cosine alone, the nearer memory (A), scored by its cosine', async () => {
    const r = await injected('reference');
    expect(r.fields.retrievedIds).toEqual(['mem0-e1-t0']);
    expect(r.fields.retrievedSim![0]).toBeCloseTo(0.9, 6);
  });

  it("memrl: mem0ai 3.x's hybrid score lifts the memory that shares the query's words (B)", async () => {
    const r = await injected('memrl');
    expect(r.fields.retrievedIds).toEqual(['mem0-e1-t1']);
    // The score recorded is the cosine mem0's threshold compared, not the hybrid blend that ranked.
    expect(r.fields.retrievedSim![0]).toBeCloseTo(0.8, 6);
  });
});
