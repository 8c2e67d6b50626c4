/**
 * The response cache in front of a real HTTP provider (loopback server): what is
 * keyed, what is stored, what is never stored, and offline replay misses.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DiskCachedEmbedder } from '../../src/embed/cached-disk.js';
import { OpenAIEmbedder } from '../../src/embed/openai.js';
import { CACHE_FILE, CachedChatModel, OfflineChatModel, ReplayMissError, ResponseStore, runCacheLayers, type CacheLayers, type ChatCacheIdentity } from '../../src/llm/cache.js';
import { OpenAIChatModel } from '../../src/llm/openai.js';
import type { ChatRequest } from '../../src/llm/types.js';
import { chatCompletion, errorReply, startOpenAIServer, type OpenAITestServer } from '../helpers/openai-server.js';

const KEY = 'sk-cache-secret-90210';
let server: OpenAITestServer;
let work: string;
let seq = 0;

beforeAll(async () => {
  server = await startOpenAIServer({ chat: (_req, n) => `reply ${n}` });
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function fresh(): string {
  work = mkdtempSync(join(tmpdir(), `memrl-cache-${seq++}-`));
  return work;
}

const id = (): ChatCacheIdentity => ({ provider: 'openai', baseUrl: server.url, model: 'm1', defaultTemperature: 0.7 });

function req(over: Partial<ChatRequest['tags']> = {}, content = 'solve it'): ChatRequest {
  return {
    messages: [{ role: 'user', content }],
    tags: { benchmark: 'bcb', taskId: 'T/1', epoch: 1, phase: 'train', role: 'agent', purpose: 'solve', ...over },
  };
}

function live(opts: { timeoutMs?: number; maxRetries?: number; apiKey?: string } = {}): OpenAIChatModel {
  return new OpenAIChatModel({ apiKey: opts.apiKey ?? KEY, baseURL: server.url, model: 'm1', defaultTemperature: 0.7, timeoutMs: opts.timeoutMs ?? 5000, maxRetries: opts.maxRetries ?? 0 });
}

function layersIn(dir: string): CacheLayers {
  return runCacheLayers({ runDir: dir });
}

describe('CachedChatModel', () => {
  it('answers a repeated request from disk, marked cached, across processes and transport settings, without the key', async () => {
    const dir = fresh();
    server.setChat((_r, n) => `reply ${n}`);
    const before = server.chatRequests().length;
    const a = new CachedChatModel(live(), id(), layersIn(dir));
    const first = await a.chat(req());
    expect(first.cached).toBeUndefined();

    // A new wrapper over the same file, with other timeouts, retries and key: same entry.
    const b = new CachedChatModel(live({ timeoutMs: 999, maxRetries: 4, apiKey: 'sk-other-key-1234' }), id(), layersIn(dir));
    const again = await b.chat(req());
    expect(again).toMatchObject({ text: first.text, cached: true, latencyMs: 0, usage: first.usage });
    expect(server.chatRequests().length - before).toBe(1);

    const file = readFileSync(join(dir, CACHE_FILE), 'utf8');
    expect(file.includes(KEY)).toBe(false);
    expect(file.includes('sk-other-key-1234')).toBe(false);
    expect(file.trim().split('\n')).toHaveLength(1);
  });

  it('keys on epoch, turn, role/purpose, messages and decoding parameters: each is a distinct sample', async () => {
    const dir = fresh();
    server.setChat((_r, n) => `sample ${n}`);
    const m = new CachedChatModel(live(), id(), layersIn(dir));
    const before = server.chatRequests().length;
    const variants: ChatRequest[] = [
      req(),
      req({ epoch: 2 }),
      req({ turn: 3 }),
      req({ purpose: 'judge' }),
      req({ role: 'memory' }),
      req({}, 'solve it (with a memory)'),
      { ...req(), temperature: 0 },
      { ...req(), maxTokens: 64 },
      { ...req(), topP: 0.5 },
      { ...req(), jsonMode: true },
    ];
    const texts = [];
    for (const v of variants) texts.push((await m.chat(v)).text);
    expect(server.chatRequests().length - before).toBe(variants.length);
    expect(new Set(texts).size).toBe(variants.length);
    // temperature unset = the model default (0.7): same key as giving 0.7 explicitly.
    expect((await m.chat({ ...req(), temperature: 0.7 })).cached).toBe(true);
  });

  it('never stores errors or empty replies, so the next call goes to the provider', async () => {
    const dir = fresh();
    const m = new CachedChatModel(live(), id(), layersIn(dir));
    server.setChat(() => errorReply(500, 'boom'));
    await expect(m.chat(req({ taskId: 'E/1' }))).rejects.toThrow(/500/);
    server.setChat(() => ({ body: chatCompletion(null) }));
    await expect(m.chat(req({ taskId: 'E/1' }))).rejects.toThrow(/no content/);
    server.setChat(() => 'finally');
    const before = server.chatRequests().length;
    const ok = await m.chat(req({ taskId: 'E/1' }));
    expect(ok).toMatchObject({ text: 'finally' });
    expect(ok.cached).toBeUndefined();
    expect(server.chatRequests().length - before).toBe(1);
    expect(readFileSync(join(dir, CACHE_FILE), 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('keeps an empty reply for a caller that scores it (acceptEmpty), and replays it only to such a caller', async () => {
    const dir = fresh();
    server.setChat(() => ({ body: chatCompletion(null, { finishReason: 'length' }) }));
    const m = new CachedChatModel(live(), id(), layersIn(dir));
    const scored = { ...req({ taskId: 'Z/1' }), acceptEmpty: true };
    expect((await m.chat(scored)).text).toBe('');
    const before = server.chatRequests().length;
    expect(await m.chat(scored)).toMatchObject({ text: '', cached: true });
    expect(server.chatRequests().length).toBe(before);
    // The same sample asked by a caller that refuses empty replies goes to the provider, which refuses it.
    await expect(m.chat(req({ taskId: 'Z/1' }))).rejects.toThrow(/no content/);
    expect(server.chatRequests().length).toBe(before + 1);
  });

  it('shares one provider call between identical requests in flight', async () => {
    const dir = fresh();
    server.setChat(() => ({ body: chatCompletion('slow one'), delayMs: 150 }));
    const m = new CachedChatModel(live(), id(), layersIn(dir));
    const before = server.chatRequests().length;
    const replies = await Promise.all([m.chat(req({ taskId: 'F/1' })), m.chat(req({ taskId: 'F/1' })), m.chat(req({ taskId: 'F/1' }))]);
    expect(server.chatRequests().length - before).toBe(1);
    expect(replies.map((r) => r.text)).toEqual(['slow one', 'slow one', 'slow one']);
    expect(replies.filter((r) => r.cached).length).toBe(2);
  });

  it('offline (replay): a recorded reply is served, a missing one is an error naming the task, and no request is sent', async () => {
    const recorded = fresh();
    server.setChat(() => 'recorded answer');
    await new CachedChatModel(live(), id(), layersIn(recorded)).chat(req({ taskId: 'R/7' }));
    const replayDir = join(recorded, 'replay-run');
    const layers = runCacheLayers({ runDir: replayDir, replayFrom: recorded });
    const m = new CachedChatModel(new OfflineChatModel('openai:m1', false), id(), layers);
    const before = server.requests.length;
    expect(await m.chat(req({ taskId: 'R/7' }))).toMatchObject({ text: 'recorded answer', cached: true });
    const miss = m.chat(req({ taskId: 'R/8', epoch: 3 }));
    await expect(miss).rejects.toBeInstanceOf(ReplayMissError);
    await expect(miss).rejects.toThrow(/task R\/8 \(epoch 3, train, agent\/solve\)/);
    expect(server.requests.length).toBe(before);
    // The replay run records what it used, so it is itself replayable.
    expect(new ResponseStore(join(replayDir, CACHE_FILE)).size).toBe(1);
  });

  it('a --cache directory is shared between runs and copied into each run folder', async () => {
    const root = fresh();
    server.setChat(() => 'shared answer');
    const before = server.chatRequests().length;
    await new CachedChatModel(live(), id(), runCacheLayers({ runDir: join(root, 'run1'), sharedDir: join(root, 'shared') })).chat(req({ taskId: 'S/1' }));
    const r2 = await new CachedChatModel(live(), id(), runCacheLayers({ runDir: join(root, 'run2'), sharedDir: join(root, 'shared') })).chat(req({ taskId: 'S/1' }));
    expect(r2.cached).toBe(true);
    expect(server.chatRequests().length - before).toBe(1);
    expect(new ResponseStore(join(root, 'run2', CACHE_FILE)).size).toBe(1);
  });

  it('a line torn by a kill costs only that reply: the next one appended after it is kept', () => {
    const file = join(fresh(), CACHE_FILE);
    const entry = (k: string) => ({ k, kind: 'chat' as const, text: `reply ${k}` }) as unknown as Parameters<ResponseStore['put']>[0];
    const first = new ResponseStore(file);
    first.put(entry('a'));
    // What a SIGKILL in the middle of an append leaves: half a JSON line, no newline.
    appendFileSync(file, '{"k":"torn","kind":"chat","te');
    const second = new ResponseStore(file);
    expect(second.size).toBe(1);
    second.put(entry('b'));
    const third = new ResponseStore(file);
    expect(third.get('a')).toBeDefined();
    expect(third.get('b')).toBeDefined();
    expect(third.size).toBe(2);
  });

  it('has each reply in its file as soon as it is stored, and stores on after being closed', () => {
    const file = join(fresh(), 'sub', CACHE_FILE);
    const entry = (k: string) => ({ k, kind: 'chat' as const, text: `reply ${k}` }) as unknown as Parameters<ResponseStore['put']>[0];
    const store = new ResponseStore(file);
    store.put(entry('a'));
    // What a process started now reads (a resume after a kill), with the store still open.
    expect(new ResponseStore(file).get('a')?.text).toBe('reply a');
    store.close();
    store.put(entry('b'));
    store.close();
    store.close();
    expect(readFileSync(file, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { k: string }).k)).toEqual(['a', 'b']);
  });
});

describe('DiskCachedEmbedder', () => {
  it('embeds each text once across instances, keeps vectors exact, and replays offline', async () => {
    const dir = fresh();
    const inner = () => new OpenAIEmbedder({ apiKey: KEY, baseURL: server.url, model: 'e1', maxRetries: 0 });
    const eid = { provider: 'openai', baseUrl: server.url, model: 'e1' };
    const before = server.embeddingRequests().length;
    let cachedCalls = 0;
    const a = new DiskCachedEmbedder(inner(), eid, layersIn(dir));
    const v1 = await a.embed(['alpha', 'beta', 'alpha']);
    const b = new DiskCachedEmbedder(inner(), eid, layersIn(dir), () => cachedCalls++);
    const v2 = await b.embed(['beta', 'alpha']);
    expect(server.embeddingRequests().length - before).toBe(1);
    expect(cachedCalls).toBe(1);
    expect(Array.from(v2[0]!)).toEqual(Array.from(v1[1]!));
    expect(Array.from(v2[1]!)).toEqual(Array.from(v1[0]!));
    expect(readFileSync(join(dir, CACHE_FILE), 'utf8').includes(KEY)).toBe(false);

    const offline = new DiskCachedEmbedder(inner(), eid, runCacheLayers({ runDir: join(dir, 'r'), replayFrom: dir }));
    await expect(offline.embed(['alpha', 'gamma'])).rejects.toThrow(/no recorded embedding .*gamma/);
    expect(server.embeddingRequests().length - before).toBe(1);
  });
});
