/**
 * When a run stops because its endpoint is gone, judged call by call through the
 * metered model every run uses: a wrong URL (or one that serves no API) at once, an
 * endpoint none of whose first calls succeeded after three of them, one that went down
 * mid-run after memrl.llm.stop_after_failures failures in a row, and never for trouble
 * the server itself answers once it has answered.
 */
import { describe, expect, it } from 'vitest';
import { EndpointDownError, EndpointHealth } from '../../src/llm/endpoint-health.js';
import { ProviderError } from '../../src/llm/errors.js';
import { UsageLedger } from '../../src/llm/ledger.js';
import { MeteredChatModel } from '../../src/llm/metered.js';
import type { ChatModel, ChatRequest } from '../../src/llm/types.js';

type Step = 'ok' | ProviderError;
const down = (): ProviderError => new ProviderError('openai:m chat could not reach http://h/v1 after 3 attempts: connect ECONNREFUSED', 'openai:m', 'connection');
const hung = (): ProviderError => new ProviderError('openai:m chat timed out after 1000 ms per attempt (3 attempts)', 'openai:m', 'timeout');
const status = (s: number): ProviderError => new ProviderError(`openai:m chat failed: ${s}`, 'openai:m', 'api', s);
const empty = (): ProviderError => new ProviderError('openai:m chat returned no content', 'openai:m', 'empty');

/** An endpoint that answers each call as the script says; counts the calls that reached it. */
function scripted(steps: Step[]): ChatModel & { reached: number } {
  const m = {
    label: 'openai:m',
    simulated: false,
    reached: 0,
    chat: async () => {
      const step = steps[m.reached++] ?? 'ok';
      if (step !== 'ok') throw step;
      return { text: 'fine', model: 'm', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 }, latencyMs: 1 };
    },
  };
  return m;
}

const req: ChatRequest = { messages: [{ role: 'user', content: 'q' }], tags: { benchmark: 'b', taskId: 't', epoch: 1, phase: 'train', role: 'agent' } };

async function play(model: MeteredChatModel, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await model.chat(req).catch(() => undefined);
}

describe('a model endpoint judged gone', () => {
  it('at once when the first calls cannot connect (a wrong URL), whatever the threshold', async () => {
    const inner = scripted([down()]);
    const model = new MeteredChatModel(inner, new UsageLedger(), undefined, new EndpointHealth(10));
    await play(model, 1);
    expect(model.fatal?.reason).toBe('connection');
    expect(model.fatal).not.toBeInstanceOf(EndpointDownError);
  });

  it('after the threshold of failures in a row once it had answered; calls made after that fail without reaching it', async () => {
    const inner = scripted(['ok', down(), hung(), status(503), down()]);
    const model = new MeteredChatModel(inner, new UsageLedger(), undefined, new EndpointHealth(4));
    await play(model, 4);
    expect(model.fatal).toBeUndefined();
    await play(model, 1);
    expect(model.fatal).toBeInstanceOf(EndpointDownError);
    expect(model.fatal?.message).toMatch(/^openai:m stopped answering: 4 calls in a row failed after their retries \(memrl\.llm\.stop_after_failures 4\); the last: .*ECONNREFUSED/);
    await expect(model.chat(req)).rejects.toBe(model.fatal);
    expect(inner.reached).toBe(5);
  });

  it('after its first calls when none ever succeeded (5xx, timeouts, 4xx, empty: an endpoint failing from the start), at most 3', async () => {
    const inner = scripted([hung(), status(500), status(400), empty(), hung()]);
    const model = new MeteredChatModel(inner, new UsageLedger(), undefined, new EndpointHealth(10));
    await play(model, 2);
    expect(model.fatal).toBeUndefined();
    await play(model, 1);
    expect(model.fatal).toBeInstanceOf(EndpointDownError);
    expect(model.fatal?.message).toMatch(/^openai:m failed every call so far: its first 3 calls failed after their retries, none succeeded \(memrl\.llm\.stop_after_failures 10\); the last: openai:m chat failed: 400/);
    // A lower stop_after_failures stops sooner; 0 never.
    const two = new MeteredChatModel(scripted([status(503), empty()]), new UsageLedger(), undefined, new EndpointHealth(2));
    await play(two, 2);
    expect(two.fatal).toBeInstanceOf(EndpointDownError);
    const off = new MeteredChatModel(scripted(Array.from({ length: 20 }, hung)), new UsageLedger(), undefined, new EndpointHealth(0));
    await play(off, 20);
    expect(off.fatal).toBeUndefined();
  });

  it('not from the start once one call succeeded, and at once for a URL that is no API (an HTML page)', async () => {
    const recovered = new MeteredChatModel(scripted([status(500), 'ok', status(500), status(400), status(500)]), new UsageLedger(), undefined, new EndpointHealth(10));
    await play(recovered, 5);
    expect(recovered.fatal).toBeUndefined();
    const page = new ProviderError('http://h/v1 answered chat with an HTML page, not an OpenAI-compatible API', 'openai:m', 'not_api');
    const html = new MeteredChatModel(scripted(['ok', page]), new UsageLedger(), undefined, new EndpointHealth(10));
    await play(html, 2);
    expect(html.fatal).toBe(page);
  });

  it('never on a streak broken by any answer of the server (a success, a 4xx, empty content)', async () => {
    const inner = scripted([`ok`, down(), down(), 'ok', down(), down(), status(400), down(), down(), empty(), down(), down(), status(429), down(), down()]);
    const model = new MeteredChatModel(inner, new UsageLedger(), undefined, new EndpointHealth(3));
    await play(model, 15);
    expect(model.fatal).toBeUndefined();
    expect(inner.reached).toBe(15);
  });

  it('never on a streak with threshold 0, and counts over every model sharing one health (a worker plays each episode with its own)', async () => {
    const never = new MeteredChatModel(scripted(['ok', ...Array.from({ length: 50 }, down)]), new UsageLedger(), undefined, new EndpointHealth(0));
    await play(never, 51);
    expect(never.fatal).toBeUndefined();

    const health = new EndpointHealth(3);
    const episodes = [scripted(['ok']), scripted([down(), down()]), scripted([down()])].map((m) => new MeteredChatModel(m, new UsageLedger(), undefined, health));
    await play(episodes[0]!, 1);
    // The second episode's first call fails to connect, but the endpoint answered the first: passing trouble, not a wrong URL.
    await play(episodes[1]!, 2);
    expect(episodes[1]!.fatal).toBeUndefined();
    await play(episodes[2]!, 1);
    expect(episodes[2]!.fatal).toBeInstanceOf(EndpointDownError);
    expect(episodes[0]!.fatal).toBe(episodes[2]!.fatal);
  });
});
