/**
 * The openai client's fetch (node:http on keep-alive agents) behaves like the built-in
 * one where the client depends on it: the reply's status, headers and body; an abort
 * rejects with an AbortError; an unreachable host with a TypeError carrying the system
 * error; anything it does not handle goes to the built-in fetch.
 */
import { describe, expect, it } from 'vitest';
import { bufferedResponse, httpFetch } from '../../src/llm/http-fetch.js';
import { startOpenAIServer } from '../helpers/openai-server.js';

describe('httpFetch', () => {
  it('returns status, headers and body as the built-in fetch does', async () => {
    const srv = await startOpenAIServer({ chat: (req) => (req.body.messages[0].content === 'fail' ? { status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'slow down' } } } : 'hello') });
    try {
      const call = (f: typeof fetch, content: string) =>
        f(`${srv.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-x' }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content }] }) });
      for (const content of ['hi', 'fail']) {
        const [ours, builtin] = [await call(httpFetch, content), await call(fetch, content)];
        expect(ours.status).toBe(builtin.status);
        expect(ours.headers.get('retry-after')).toBe(builtin.headers.get('retry-after'));
        expect(ours.headers.get('content-type')).toBe(builtin.headers.get('content-type'));
        const [a, b] = [(await ours.json()) as Record<string, any>, (await builtin.json()) as Record<string, any>];
        expect(a.choices?.[0]?.message ?? a.error).toEqual(b.choices?.[0]?.message ?? b.error);
      }
      // The request arrived as sent (headers and body).
      const last = srv.requests.at(-2)!;
      expect(last.headers.authorization).toBe('Bearer sk-x');
      expect(last.body.messages[0].content).toBe('fail');
    } finally {
      await srv.close();
    }
  });

  it('an abort rejects with an AbortError, at once, and a refused connection with the system error as cause', async () => {
    const srv = await startOpenAIServer({ chat: () => ({ body: 'late', delayMs: 5000 }) });
    try {
      const ac = new AbortController();
      const started = Date.now();
      const p = httpFetch(`${srv.url}/chat/completions`, { method: 'POST', body: '{}', signal: ac.signal });
      setTimeout(() => ac.abort(), 50);
      await expect(p).rejects.toMatchObject({ name: 'AbortError' });
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await srv.close();
    }
    const refused = await httpFetch('http://127.0.0.1:9/v1/chat/completions', { method: 'POST', body: '{}' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TypeError);
    expect((refused as TypeError & { cause: { code: string } }).cause.code).toBe('ECONNREFUSED');
  });

  it('hands the reply over as a Response that reads like one built over the same bytes', async () => {
    const bytes = Buffer.from('\ufeff{"choices":[{"message":{"content":"h\u00e9llo \ud83d\ude00"}}]}', 'utf8');
    const init = { status: 200, statusText: 'OK', headers: { 'content-type': 'application/json', 'x-request-id': 'r1' } };
    const both = () => [bufferedResponse(bytes, init), new Response(bytes, init)] as const;
    const read: ((r: Response) => Promise<unknown>)[] = [
      (r) => r.json(),
      (r) => r.text(),
      async (r) => Buffer.from(await r.arrayBuffer()).toString('hex'),
      async (r) => Buffer.from(await new Response(r.body).arrayBuffer()).toString('hex'),
      (r) => r.clone().text(),
      async (r) => (await r.blob()).size,
    ];
    for (const f of read) {
      const [ours, builtin] = both();
      expect(ours).toBeInstanceOf(Response);
      expect([ours.status, ours.ok, ours.statusText, ours.headers.get('x-request-id')]).toEqual([builtin.status, builtin.ok, builtin.statusText, builtin.headers.get('x-request-id')]);
      expect(await f(ours)).toEqual(await f(builtin));
      expect(ours.bodyUsed).toBe(builtin.bodyUsed);
      // Read again: the same text, or the same refusal (a body is read once; a clone leaves it unread).
      const again = (r: Response) => r.text().then((t) => t, (e: unknown) => (e instanceof TypeError ? 'TypeError' : e));
      expect(await again(ours)).toEqual(await again(builtin));
    }
    const empty = bufferedResponse(null, { status: 204 });
    expect([empty.body, await empty.text()]).toEqual([null, '']);
  });
});
