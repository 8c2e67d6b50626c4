import { afterEach, describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/llm/errors.js';
import { OpenAIChatModel } from '../../src/llm/openai.js';
import type { ChatRequest } from '../../src/llm/types.js';
import { chatCompletion, errorReply, startOpenAIServer, type OpenAITestServer } from '../helpers/openai-server.js';

const KEY = 'sk-test-0123456789abcdefSECRET';

function request(extra: Partial<ChatRequest> = {}): ChatRequest {
  return {
    messages: [
      { role: 'system', content: 'You are a careful coder.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
    ],
    tags: { benchmark: 'hle', taskId: 't1', epoch: 0, phase: 'train', role: 'agent' },
    ...extra,
  };
}

let srv: OpenAITestServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

async function failure(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ProviderError);
    return err as ProviderError;
  }
  throw new Error('expected the call to fail');
}

describe('OpenAIChatModel against a loopback OpenAI server', () => {
  it('sends model, messages with image parts, decoding defaults and the bearer key', async () => {
    srv = await startOpenAIServer({ chat: () => 'a cat' });
    const model = new OpenAIChatModel({
      apiKey: KEY,
      baseURL: srv.url,
      model: 'gpt-4o-mini',
      defaultTemperature: 0,
      defaultMaxTokens: 128,
      maxRetries: 0,
    });
    const res = await model.chat(request());
    expect(res.text).toBe('a cat');
    expect(model.label).toBe('openai:gpt-4o-mini');
    expect(model.simulated).toBe(false);

    const [r] = srv.chatRequests();
    expect(r!.path).toBe('/v1/chat/completions');
    expect(r!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(r!.body.model).toBe('gpt-4o-mini');
    expect(r!.body.temperature).toBe(0);
    expect(r!.body.max_tokens).toBe(128);
    expect(r!.body).not.toHaveProperty('max_completion_tokens');
    expect(r!.body).not.toHaveProperty('response_format');
    expect(r!.body.messages).toEqual(request().messages);
  });

  it('lets the request override decoding params, and sends json mode and max_completion_tokens when asked', async () => {
    srv = await startOpenAIServer({ chat: () => '{"answer": 4}' });
    const model = new OpenAIChatModel({
      apiKey: KEY,
      baseURL: srv.url,
      model: 'o4-mini',
      defaultTemperature: 0,
      defaultMaxTokens: 128,
      maxTokensParam: 'max_completion_tokens',
      maxRetries: 0,
    });
    await model.chat(request({ temperature: 0.7, maxTokens: 64, topP: 0.9, jsonMode: true }));
    const body = srv.chatRequests()[0]!.body;
    expect(body.temperature).toBe(0.7);
    expect(body.top_p).toBe(0.9);
    expect(body.max_completion_tokens).toBe(64);
    expect(body).not.toHaveProperty('max_tokens');
    expect(body.response_format).toEqual({ type: 'json_object' });
  });

  it('maps usage, model and system fingerprint; missing usage becomes zeros', async () => {
    srv = await startOpenAIServer({
      chat: (_req, n) => ({
        body:
          n === 0
            ? chatCompletion('hi', {
                model: 'gpt-4o-mini-2024-07-18',
                systemFingerprint: 'fp_123',
                usage: { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 },
              })
            : chatCompletion('hi again', { usage: null }),
      }),
    });
    const model = new OpenAIChatModel({ apiKey: KEY, baseURL: srv.url, model: 'gpt-4o-mini', maxRetries: 0 });
    const a = await model.chat(request());
    expect(a.usage).toEqual({ promptTokens: 11, completionTokens: 3, totalTokens: 14 });
    expect(a.model).toBe('gpt-4o-mini-2024-07-18');
    expect(a.systemFingerprint).toBe('fp_123');
    expect(a.latencyMs).toBeGreaterThanOrEqual(0);
    const b = await model.chat(request());
    expect(b.usage).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
  });

  it('throws on empty content instead of returning an empty answer', async () => {
    srv = await startOpenAIServer({
      chat: (_req, n) => ({ body: chatCompletion(n === 0 ? null : '   ', { finishReason: 'length' }) }),
    });
    const model = new OpenAIChatModel({ apiKey: KEY, baseURL: srv.url, model: 'm', maxRetries: 0 });
    const e1 = await failure(model.chat(request()));
    expect(e1.reason).toBe('empty');
    expect(e1.message).toMatch(/no content.*finish_reason=length/);
    const e2 = await failure(model.chat(request()));
    expect(e2.reason).toBe('empty');
  });

  it('acceptEmpty: an empty reply comes back as it came, with its usage (the reference scores it)', async () => {
    const usage = { prompt_tokens: 50, completion_tokens: 4096, total_tokens: 4146 };
    srv = await startOpenAIServer({
      chat: (_req, n) => ({ body: chatCompletion(n === 0 ? null : '   ', { finishReason: 'length', usage }) }),
    });
    const model = new OpenAIChatModel({ apiKey: KEY, baseURL: srv.url, model: 'm', maxRetries: 0 });
    const a = await model.chat(request({ acceptEmpty: true }));
    expect(a.text).toBe('');
    expect(a.usage).toEqual({ promptTokens: 50, completionTokens: 4096, totalTokens: 4146 });
    expect((await model.chat(request({ acceptEmpty: true }))).text).toBe('   ');
    // The flag is not sent to the endpoint.
    expect(JSON.stringify(srv.chatRequests()[0]!.body)).not.toContain('accept');
  });

  it('makes exactly maxRetries + 1 attempts on 500, then fails', async () => {
    srv = await startOpenAIServer({ chat: () => errorReply(500, 'upstream broke', { 'retry-after-ms': '5' }) });
    const model = new OpenAIChatModel({ apiKey: KEY, baseURL: srv.url, model: 'm', maxRetries: 2 });
    const err = await failure(model.chat(request()));
    expect(err.status).toBe(500);
    expect(err.message).toContain('upstream broke');
    expect(srv.chatRequests()).toHaveLength(3);

    const once = new OpenAIChatModel({ apiKey: KEY, baseURL: srv.url, model: 'm', maxRetries: 0 });
    await failure(once.chat(request()));
    expect(srv.chatRequests()).toHaveLength(4);
  });

  it('recovers from a 500 within the retry budget', async () => {
    srv = await startOpenAIServer({
      chat: (_req, n) => (n < 2 ? errorReply(500, 'flaky', { 'retry-after-ms': '5' }) : 'third time lucky'),
    });
    const model = new OpenAIChatModel({ apiKey: KEY, baseURL: srv.url, model: 'm', maxRetries: 2 });
    expect((await model.chat(request())).text).toBe('third time lucky');
    expect(srv.chatRequests()).toHaveLength(3);
  });

  it('waits for Retry-After on 429 before retrying', async () => {
    const times: number[] = [];
    srv = await startOpenAIServer({
      chat: (_req, n) => {
        times.push(Date.now());
        return n === 0 ? errorReply(429, 'slow down', { 'retry-after': '1' }) : 'ok';
      },
    });
    const model = new OpenAIChatModel({ apiKey: KEY, baseURL: srv.url, model: 'm', maxRetries: 1 });
    expect((await model.chat(request())).text).toBe('ok');
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(900);
  });

  it('honours the timeout per attempt and reports it', async () => {
    srv = await startOpenAIServer({ chat: () => ({ body: chatCompletion('too late'), delayMs: 5_000 }) });
    const model = new OpenAIChatModel({ apiKey: KEY, baseURL: srv.url, model: 'm', timeoutMs: 300, maxRetries: 1 });
    const started = Date.now();
    const err = await failure(model.chat(request()));
    const elapsed = Date.now() - started;
    expect(err.reason).toBe('timeout');
    expect(err.message).toMatch(/timed out after 300 ms/);
    expect(srv.chatRequests()).toHaveLength(2);
    expect(elapsed).toBeLessThan(3_000);
  });

  it('never puts the API key in error messages, even when the server echoes it', async () => {
    srv = await startOpenAIServer({
      chat: (req) => errorReply(401, `Incorrect API key provided: ${String(req.headers.authorization).slice(7)}`),
    });
    const model = new OpenAIChatModel({ apiKey: KEY, baseURL: srv.url, model: 'm', maxRetries: 3 });
    const err = await failure(model.chat(request()));
    expect(err.status).toBe(401);
    expect(srv.chatRequests()).toHaveLength(1); // auth errors are not retried
    const shown = `${err.message}\n${err.stack ?? ''}\n${JSON.stringify(err)}`;
    expect(shown).not.toContain(KEY);
    expect(shown).not.toContain('SECRET');
    expect(err.message).toMatch(/API key/);
  });

  it('uses Azure paths, api-version and the api-key header when apiVersion is set', async () => {
    srv = await startOpenAIServer({ chat: () => 'from azure' });
    const model = new OpenAIChatModel({
      apiKey: KEY,
      baseURL: srv.origin,
      model: 'my-deployment',
      apiVersion: '2024-10-21',
      maxRetries: 0,
    });
    expect((await model.chat(request())).text).toBe('from azure');
    const r = srv.chatRequests()[0]!;
    expect(r.path).toBe('/openai/deployments/my-deployment/chat/completions');
    expect(r.deployment).toBe('my-deployment');
    expect(r.query['api-version']).toBe('2024-10-21');
    expect(r.headers['api-key']).toBe(KEY);
  });

  it('stops when the caller aborts', async () => {
    srv = await startOpenAIServer({ chat: () => ({ body: chatCompletion('late'), delayMs: 5_000 }) });
    const model = new OpenAIChatModel({ apiKey: KEY, baseURL: srv.url, model: 'm', maxRetries: 2 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const err = await failure(model.chat(request(), ac.signal));
    expect(err.reason).toBe('aborted');
    expect(srv.chatRequests()).toHaveLength(1);
  });
});
