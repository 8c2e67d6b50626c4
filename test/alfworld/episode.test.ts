import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createAlfworldBenchmark, type AlfworldBenchmark } from '../../src/bench/alfworld/benchmark.js';
import { parseReply } from '../../src/bench/alfworld/action.js';
import { taskDescription } from '../../src/bench/alfworld/dataset.js';
import { literalEval } from '../../src/util/python/literal-eval.js';
import { pyRepr } from '../../src/util/python/values.js';
import { ACTION_PARSE, ALFWORLD_SWITCHES, LLM_ERROR } from '../../src/bench/alfworld/switches.js';
import type { EpisodeContext, InjectedMemory } from '../../src/core/index.js';
import { ProviderError } from '../../src/llm/errors.js';
import type { ChatModel, ChatRequest } from '../../src/llm/types.js';
import { makeFidelity, type Fidelity } from '../../src/util/fidelity.js';
import { sharedDataDir } from '../../src/util/paths.js';
import { join } from 'node:path';
import { settleEpisode } from '../../src/runner/episode-outcome.js';

const benches: AlfworldBenchmark[] = [];
function bench(maxSteps = 30, fidelity?: Fidelity): AlfworldBenchmark {
  const b = createAlfworldBenchmark({
    ...(fidelity ? { fidelity } : {}),
    env: 'standin',
    load: { validSplit: 'valid_seen', validate: true, gameFile: null, datasetRatio: 1, seed: 1 },
    bridge: { seed: 1, timeoutMs: 20_000, gamesPerType: { train: 1, valid_seen: 1 } },
    poolSize: 1,
    fewShotPath: join(sharedDataDir(), 'alfworld', 'alfworld_examples.json'),
    maxSteps,
    temperature: 0,
  });
  benches.push(b);
  return b;
}
afterEach(async () => {
  await Promise.all(benches.splice(0).map((b) => b.close()));
});

function model(reply: (req: ChatRequest) => string | Error): ChatModel & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    label: 'stub',
    simulated: false,
    requests,
    async chat(req) {
      requests.push(req);
      const r = reply(req);
      if (r instanceof Error) throw r;
      return { text: r, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } };
    },
  } as ChatModel & { requests: ChatRequest[] };
}

function ctx(m: ChatModel, memories: InjectedMemory[] = []): EpisodeContext {
  return { model: m, memories, epoch: 1, phase: 'train', signal: new AbortController().signal, log: pino({ level: 'silent' }) };
}

/** A stored trajectory read back as {role, content} messages. */
function messagesOf(trajectory: string): { role: string; content: string }[] {
  const v = literalEval(trajectory) as { py: 'list'; items: { py: 'dict'; entries: [string, string][] }[] };
  return v.items.map((d) => Object.fromEntries(d.entries) as { role: string; content: string });
}

describe('parseReply (alfworld.action-parse=memrl)', () => {
  it('reads the thought and the first action, normalised', () => {
    expect(parseReply('Thought: find the mug.\nAction: Go to Cabinet 1.')).toEqual({ thought: 'find the mug.', action: 'go to cabinet 1' });
    expect(parseReply('**Action:** `open drawer 2`').action).toBe('open drawer 2');
    expect(parseReply('Thought: hmm\nI will go to the desk.').action).toBeNull();
    expect(parseReply('Action:   ').action).toBeNull();
  });
});

describe('ALFWorld episode on the stand-in', () => {
  it('loads tasks keyed by the task description; opens with the system prompt, the introduced example, then the task', async () => {
    const b = bench();
    const loaded = await b.load();
    expect(loaded.train.length).toBe(6);
    expect(loaded.valid.length).toBe(6);
    const t = loaded.train.find((x) => x.taskType === 'pick_heat_then_place')!;
    // The banner paragraph is cut, the others joined by one newline (the reference's runner).
    expect(t.key).toBe(taskDescription(t.observation));
    expect(t.key).toMatch(/^You are in the middle of a room\..*\nYour task is to: heat some/s);
    expect(t.key).not.toContain('\n\n');
    const m = model(() => 'Thought: t\nAction: look');
    await settleEpisode(b.episode(t, ctx(m)));
    const first = m.requests[0]!.messages;
    expect(first.map((x) => x.role)).toEqual(['system', ...first.slice(1, -1).map((x) => x.role), 'user']);
    // The example of the heat type, its first message introduced; no memory message.
    expect(String(first[1]!.content)).toMatch(/^A solved example of a task like yours:\nYou are in the middle of a room/);
    expect(first.some((x) => x.role === 'assistant' && String(x.content).includes('microwave'))).toBe(true);
    expect(first.filter((x) => x.role === 'system')).toHaveLength(1);
    expect(first.at(-1)!.content).toBe(`Now, it's your turn. Here is a new task for you:\n${t.key}`);
    expect(m.requests.map((r) => r.tags.turn)).toEqual([...Array(30).keys()]);
  });

  it("each turn adds 'Observation: <stripped>' and the reply as it came; memory gets the conversation as Python prints it", async () => {
    const b = bench(3);
    const { train } = await b.load();
    const replies = ['Thought: a\nAction: look', '  Thought: b\nAction: inventory  ', 'Thought: c\nAction: look'];
    const m = model((req) => replies[req.tags.turn!]!);
    const o = await settleEpisode(b.episode(train[0]!, ctx(m)));
    const opening = m.requests[0]!.messages.length;
    // Turn 0 starts from the task message; turn n adds reply n-1 and observation n.
    expect(m.requests.map((r) => r.messages.length)).toEqual([opening, opening + 2, opening + 4]);
    const second = m.requests[2]!.messages;
    const transcript = o.extra!.transcript as { observation: string }[];
    expect(second.slice(opening)).toEqual([
      { role: 'assistant', content: replies[0] },
      { role: 'user', content: `Observation: ${transcript[0]!.observation.trim()}` },
      { role: 'assistant', content: replies[1] },
      { role: 'user', content: `Observation: ${transcript[1]!.observation.trim()}` },
    ]);
    // The stored trajectory: every message up to the last reply (the last observation never entered it).
    const stored = messagesOf(o.trajectory);
    expect(stored).toEqual([...second.map((x) => ({ role: x.role, content: x.content })), { role: 'assistant', content: replies[2] }]);
    expect(o.trajectory).toBe(pyRepr(literalEval(o.trajectory)));
    expect(o.trajectory.startsWith("[{'role': 'system', 'content': ")).toBe(true);
  });

  it('a reply without "Action:" goes to the environment as it is, a blank one runs look (the reference parser)', async () => {
    const b = bench(4);
    const { train } = await b.load();
    const replies = ['I would rather think about it.', 'Thought: x\nAction: inventory\nObservation: you carry nothing', '   ', 'THOUGHT: y\nACTION: Look'];
    const m = model((req) => replies[req.tags.turn!]!);
    const o = await settleEpisode(b.episode(train[0]!, ctx(m)));
    expect(o.status).toBe('fail');
    expect(o.steps).toBe(4);
    // Ran out of steps: the reference collects it after every game that ended (engine.commit-order).
    expect(o.finishRank).toBe(5);
    const transcript = o.extra!.transcript as { action: string; observation: string }[];
    expect(transcript.map((x) => x.action)).toEqual(['I would rather think about it.', 'inventory\nObservation: you carry nothing', 'look', 'THOUGHT: y\nACTION: Look']);
    expect(transcript[0]!.observation).toBe('Nothing happened.');
    expect(o.extra!.unparsedActions).toBe(3);
    // A blank reply stays in the conversation but is not sent again.
    const last = m.requests[3]!.messages;
    expect(last.some((x) => x.role === 'assistant' && x.content === '   ')).toBe(false);
    expect(messagesOf(o.trajectory).some((x) => x.role === 'assistant' && x.content === '   ')).toBe(true);
  });

  it('alfworld.action-parse=memrl: the first Action line, normalised; none runs look', async () => {
    const b = bench(4, makeFidelity('reference', ALFWORLD_SWITCHES, { [ACTION_PARSE]: 'memrl' }));
    const { train } = await b.load();
    const replies = ['I would rather think about it.', 'Thought: x\nAction: Inventory.\nObservation: you carry nothing', '   ', '**Action:** `look`'];
    const m = model((req) => replies[req.tags.turn!]!);
    const o = await settleEpisode(b.episode(train[0]!, ctx(m)));
    expect((o.extra!.transcript as { action: string }[]).map((x) => x.action)).toEqual(['look', 'inventory', 'look', 'look']);
    expect(o.extra!.unparsedActions).toBe(2);
  });

  it('a failed model call leaves "No response." and runs look; alfworld.llm-error=memrl makes it an error row', async () => {
    const failing = () =>
      model((req) =>
        req.tags.turn === 1
          ? new ProviderError('stub chat failed with HTTP 500', 'stub', 'api', 500)
          : req.tags.turn === 2
            ? new ProviderError('stub chat returned no content', 'stub', 'empty')
            : 'Thought: t\nAction: inventory',
      );
    const b = bench(4);
    const { train } = await b.load();
    const m = failing();
    const o = await settleEpisode(b.episode(train[0]!, ctx(m)));
    expect(o.status).toBe('fail');
    expect((o.extra!.transcript as { action: string }[]).map((x) => x.action)).toEqual(['inventory', 'look', 'look', 'inventory']);
    expect(o.extra!.modelErrors).toBe(1);
    // The failed call is "No response."; the empty reply is kept empty (and not sent again).
    const assistant = messagesOf(o.trajectory).filter((x) => x.role === 'assistant').map((x) => x.content);
    expect(assistant.slice(-3)).toEqual(['No response.', '', 'Thought: t\nAction: inventory']);
    expect(m.requests[3]!.messages.some((x) => x.role === 'assistant' && x.content === 'No response.')).toBe(true);

    const fixed = bench(4, makeFidelity('fixed', ALFWORLD_SWITCHES));
    expect(makeFidelity('fixed', ALFWORLD_SWITCHES).memrl(LLM_ERROR)).toBe(true);
    const { train: t2 } = await fixed.load();
    const e = await settleEpisode(fixed.episode(t2[0]!, ctx(failing())));
    expect(e.status).toBe('error');
    expect(e.error).toMatch(/model call failed: stub chat failed with HTTP 500/);
  });

  it('retrieved memories: one system message after the example, successes first, each cut to its own task turn', async () => {
    const b = bench(2);
    const { train } = await b.load();
    // A memory as the writer stores it, from an earlier episode of another game.
    const earlier = await settleEpisode(b.episode(train[1]!, ctx(model(() => 'Thought: old\nAction: look'))));
    const success = `Task: ${train[1]!.key}\n\nSCRIPT:\n1. Look first.\n\nTRAJECTORY:\n${earlier.trajectory}`;
    const failure = `TASK REFLECTION:\nTask: ${train[1]!.key}\n\nWhat went wrong:\nLooked too much.\n\nFailed approach:\n${earlier.trajectory}\n`;
    const mem = (id: string, s: boolean, content: string): InjectedMemory => ({ id, key: train[1]!.key, success: s, content, q: 0, sim: 1 });
    const m = model(() => 'Thought: t\nAction: look');
    await settleEpisode(b.episode(train[0]!, ctx(m, [mem('f', false, failure), mem('s', true, success)])));
    const msgs = m.requests[0]!.messages;
    const memory = msgs.at(-2)!;
    expect(memory.role).toBe('system');
    const text = String(memory.content);
    expect(text.indexOf('=== Episodes that succeeded')).toBeLessThan(text.indexOf('=== Episodes that failed'));
    expect(text).toContain('Plan kept from that episode:\n1. Look first.');
    expect(text).toContain('Lesson kept from that episode:\nLooked too much.');
    // The recalled trajectory starts at that episode's task message: no system prompt, no example.
    expect(text).toContain(`What happened in that episode:\nNow, it's your turn. Here is a new task for you:\n${train[1]!.key}\n> Thought: old\nAction: look`);
    expect(text).not.toContain('A solved example');
    expect(msgs.at(-1)!.content).toBe(`Now, it's your turn. Here is a new task for you:\n${train[0]!.key}`);
  });

  it("the reflection baseline's previous attempt is a note before the task: its result and turns as JSON, no memory message", async () => {
    const b = bench(2);
    const { train } = await b.load();
    const before = await settleEpisode(b.episode(train[0]!, ctx(model(() => 'Thought: first try\nAction: look'))));
    const attempt: InjectedMemory = { id: 'a', key: train[0]!.key, success: false, content: 'generic note', q: 0, sim: 1, attempt: { trajectory: before.trajectory } };
    const m = model(() => 'Thought: t\nAction: look');
    await settleEpisode(b.episode(train[0]!, ctx(m, [attempt])));
    const msgs = m.requests[0]!.messages;
    expect(msgs.filter((x) => x.role === 'system')).toHaveLength(2);
    const note = String(msgs.at(-2)!.content);
    const obs = (before.extra!.transcript as { observation: string }[])[0]!.observation.trim();
    expect(note).toBe(
      'You have tried this task before, with this result: INCORRECT\nYour earlier turns (observations and actions only):\n' +
        `[{"role": "assistant", "content": "Thought: first try\\nAction: look"}, {"role": "user", "content": "Observation: ${obs}"}, {"role": "assistant", "content": "Thought: first try\\nAction: look"}]` +
        '\n\nThink about what went wrong or could be done better, then solve the task again with a better plan.',
    );
  });

  it('following the expert plan wins with steps = plan length (the plan comes only through the sim channel)', async () => {
    const b = bench();
    const { train } = await b.load();
    // A scripted model cannot see the plan: replay it from a separate bridge call instead.
    const { BridgeClient } = await import('../../src/bench/alfworld/bridge-client.js');
    const oracle = new BridgeClient({ env: 'standin', seed: 1, timeoutMs: 20_000, gamesPerType: { train: 1, valid_seen: 1 } });
    const t = train[4]!;
    const plan = (await oracle.reset({ split: 'train', index: t.index, expert: true })).expert_plan!;
    await oracle.close();
    const m = model((req) => `Thought: go on\nAction: ${plan[req.tags.turn!] ?? 'look'}`);
    const o = await settleEpisode(b.episode(t, ctx(m)));
    expect(o.success).toBe(true);
    expect(o.status).toBe('pass');
    expect(o.steps).toBe(plan.length);
    // Collected at the step it ended at.
    expect(o.finishRank).toBe(plan.length);
    for (const r of m.requests) for (const msg of r.messages) expect(String(msg.content)).not.toContain('expert');
  });

  it('a bridge killed mid-episode gives an error outcome; the next episode gets a restarted bridge', async () => {
    const b = bench(6);
    const { train } = await b.load();
    const m = model((req) => {
      if (req.tags.turn === 2 && req.tags.taskId === train[0]!.id) process.kill(b.pool.clients[0]!.pid!, 'SIGKILL');
      return 'Thought: t\nAction: look';
    });
    const o = await settleEpisode(b.episode(train[0]!, ctx(m)));
    expect(o.status).toBe('error');
    expect(o.error).toMatch(/bridge failed during step 3/);
    expect(o.steps).toBe(2);
    const next = await settleEpisode(b.episode(train[1]!, ctx(m)));
    expect(next.status).toBe('fail');
    expect(next.steps).toBe(6);
    expect(b.pool.clients[0]!.starts).toBe(2);
  });
});
