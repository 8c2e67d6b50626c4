/**
 * When a run stops early: Ctrl-C; a refusal its own endpoint will repeat (metered models,
 * with a real failing endpoint behind them); a worker's. Each says how to resume, and a
 * gone endpoint or a worker's refusal has the batch played again.
 */
import { describe, expect, it } from 'vitest';
import { OfflineChatModel, ReplayMissError } from '../../src/llm/cache.js';
import { EndpointHealth } from '../../src/llm/endpoint-health.js';
import { ProviderError } from '../../src/llm/errors.js';
import { UsageLedger } from '../../src/llm/ledger.js';
import { MeteredChatModel } from '../../src/llm/metered.js';
import type { ChatModel, ChatRequest } from '../../src/llm/types.js';
import { FatalModelError, RunStops } from '../../src/runner/stops.js';
import { UserError } from '../../src/util/errors.js';

const req = { messages: [{ role: 'user', content: 'q' }], tags: { benchmark: 'toy', taskId: 't', epoch: 1, phase: 'train', role: 'agent' } } as ChatRequest;
const failing = (err: Error): ChatModel => ({ label: 'x', simulated: false, chat: async () => { throw err; } });
const metered = (m: ChatModel, health?: EndpointHealth) => new MeteredChatModel(m, new UsageLedger(), undefined, health);

describe('RunStops', () => {
  it('stops on Ctrl-C without a fatal error', () => {
    const abort = new AbortController();
    const stops = new RunStops(abort.signal, [], () => undefined, '/runs/r');
    expect(stops.stopping()).toBe(false);
    abort.abort();
    expect(stops.aborted()).toBe(true);
    expect(stops.stopping()).toBe(true);
    expect(stops.fatal()).toBeUndefined();
  });

  it('on a refusal every later call would repeat (a 401): stops, keeps the batch, says to fix the key and resume', async () => {
    const agent = metered(failing(new ProviderError('invalid api key', 'openai', 'api', 401)));
    const stops = new RunStops(undefined, [agent, undefined], () => undefined, '/runs/r');
    expect(stops.fatal()).toBeUndefined();
    await agent.chat(req).catch(() => undefined);
    expect(stops.stopping()).toBe(true);
    const f = stops.fatal()!;
    expect(f.replayBatch).toBe(false);
    expect(f.error).toBeInstanceOf(FatalModelError);
    expect(f.error.message).toBe('invalid api key; fix the key, endpoint or model name and rerun with --resume /runs/r');
  });

  it('on an endpoint gone (failures in a row): stops, plays the batch again on resume', async () => {
    // It answered once, then stopped answering.
    let calls = 0;
    const flaky: ChatModel = {
      label: 'x',
      simulated: false,
      chat: async () => {
        if (calls++ === 0) return { text: 'ok', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 }, model: 'm', latencyMs: 0 };
        throw new ProviderError('connect ECONNREFUSED', 'openai', 'connection');
      },
    };
    const agent = metered(flaky, new EndpointHealth(2));
    const judge = metered(failing(new ProviderError('unused', 'openai', 'connection')));
    const stops = new RunStops(undefined, [judge, agent], () => undefined, '/runs/r');
    for (let i = 0; i < 3; i++) await agent.chat(req).catch(() => undefined);
    expect(stops.fatal()?.error.message).toMatch(/^openai stopped answering/);
    const f = stops.fatal()!;
    expect(f.replayBatch).toBe(true);
    expect(f.error.message).toMatch(/; once it answers again, rerun with --resume \/runs\/r$/);
  });

  it('on a replay that lacks a reply: a user error naming it', async () => {
    const agent = metered(new OfflineChatModel('openai:m', false));
    await agent.chat(req).catch(() => undefined);
    const f = new RunStops(undefined, [agent], () => undefined, '/runs/r').fatal()!;
    expect(agent.fatal).toBeInstanceOf(ReplayMissError);
    expect(f.error).toBeInstanceOf(UserError);
    expect(f.error.message).toBe(agent.fatal!.message);
  });

  it("on a worker's refusal: stops, plays the batch again, says to fix it there", () => {
    let reported: string | undefined;
    const stops = new RunStops(undefined, [], () => reported, '/runs/r');
    expect(stops.stopping()).toBe(false);
    reported = 'w2: 401 invalid api key';
    const f = stops.fatal()!;
    expect(f).toMatchObject({ replayBatch: true });
    expect(f.error.message).toBe('w2: 401 invalid api key; fix the key, endpoint or model name there and rerun with --resume /runs/r');
  });
});
