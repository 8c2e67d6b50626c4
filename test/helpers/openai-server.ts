/**
 * A real HTTP server on 127.0.0.1 speaking the OpenAI API, for provider tests.
 *
 *   const srv = await startOpenAIServer({ chat: (req, n) => n === 0 ? errorReply(500, 'boom') : 'hello' });
 *   const model = new OpenAIChatModel({ apiKey: 'sk-test', baseURL: srv.url, model: 'm' });
 *   ...
 *   srv.requests  // every request received: path, query, headers (incl. authorization), parsed body
 *   await srv.close();
 *
 * Routes: any path ending in /chat/completions or /embeddings (so /v1/…, and Azure's
 * /openai/deployments/<name>/…?api-version=… both work), and GET /models with `models`. Handlers may return a
 * plain value (chat: the reply text; embeddings: one vector per input) or a `Reply`
 * with status, body, headers and a delay (for faults: 429 + Retry-After, 500, slow
 * replies past a client timeout, empty content via chatCompletion(null)).
 * With `faults: { rate: 0.2 }` a seeded fifth of chat requests get a fault instead
 * (429 + Retry-After 0/1, 500, 503, slow, truncated JSON, empty content).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type RequestKind = 'chat' | 'embeddings' | 'other';

export interface ReceivedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (the raw string if it was not JSON; undefined if empty). */
  body: any;
  kind: RequestKind;
  /** Azure path form /openai/deployments/<deployment>/… */
  deployment?: string;
}

export interface Reply {
  /** Default 200. */
  status?: number;
  /** Sent as JSON unless it is a string. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Wait this long before answering (the request stays open). */
  delayMs?: number;
}

/** `n` counts requests of this kind before this one (0 for the first): handy for "fail twice, then succeed". */
export type ChatHandler = (req: ReceivedRequest, n: number) => string | Reply | Promise<string | Reply>;
export type EmbeddingsHandler = (
  inputs: string[],
  req: ReceivedRequest,
  n: number,
) => number[][] | Reply | Promise<number[][] | Reply>;

export interface OpenAIServerOptions {
  chat?: ChatHandler;
  embeddings?: EmbeddingsHandler;
  /** Replace this fraction of requests with a fault before the handler runs (see FaultOptions). */
  faults?: FaultOptions;
  /** Model ids GET /models lists (without it, /models is a 404 as on servers that do not list theirs). */
  models?: string[];
}

export type FaultKind = 'rate_limit' | 'server_error' | 'unavailable' | 'slow' | 'truncated' | 'empty';

export interface FaultOptions {
  /** Fraction of requests answered with a fault, 0..1. */
  rate: number;
  /** Seed of which requests get a fault (default 1); the same seed gives the same sequence per kind of request. */
  seed?: number;
  /** Kinds used in turn (default: all). slow, truncated and empty apply to chat only. */
  kinds?: FaultKind[];
  /** Which requests may get a fault (default: chat only). */
  on?: RequestKind[];
  /** Delay of a 'slow' reply; set it past the client's timeout (default 2000 ms). */
  slowMs?: number;
  /** Requests that never get a fault (they still consume draws, so the sequence stays seeded). */
  exempt?: (req: ReceivedRequest) => boolean;
}

/** What a fault-injecting server did: one entry per request that got a fault. */
export interface InjectedFault {
  kind: FaultKind;
  request: ReceivedRequest;
}

export const ALL_FAULTS: readonly FaultKind[] = ['rate_limit', 'server_error', 'unavailable', 'slow', 'truncated', 'empty'];

/** The reply that makes a fault. Retry-After is 0 or 1 s (alternating) for 429. */
export function faultReply(kind: FaultKind, i: number, slowMs = 2000): Reply {
  switch (kind) {
    case 'rate_limit':
      return errorReply(429, 'Rate limit reached (injected)', { 'retry-after': String(i % 2) });
    case 'server_error':
      return errorReply(500, 'internal error (injected)');
    case 'unavailable':
      return errorReply(503, 'service unavailable (injected)');
    case 'slow':
      return { body: chatCompletion('too late'), delayMs: slowMs };
    case 'truncated':
      return { body: JSON.stringify(chatCompletion('cut short')).slice(0, 40) };
    case 'empty':
      return { body: chatCompletion(null) };
  }
}

export interface OpenAITestServer {
  /** Base URL including /v1, ready for `baseURL`. */
  url: string;
  /** Faults injected so far (with `faults`). */
  faults: InjectedFault[];
  /** http://127.0.0.1:<port>, for Azure-style base URLs. */
  origin: string;
  requests: ReceivedRequest[];
  chatRequests(): ReceivedRequest[];
  embeddingRequests(): ReceivedRequest[];
  setChat(handler: ChatHandler): void;
  setEmbeddings(handler: EmbeddingsHandler): void;
  close(): Promise<void>;
}

export interface CompletionExtras {
  model?: string;
  finishReason?: string;
  systemFingerprint?: string;
  /** `null` leaves usage out of the response, as some servers do. */
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
}

/** A chat.completion body. `content: null` makes an empty reply. */
export function chatCompletion(content: string | null, extras: CompletionExtras = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: extras.model ?? 'test-model',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null },
        finish_reason: extras.finishReason ?? 'stop',
        logprobs: null,
      },
    ],
  };
  if (extras.systemFingerprint !== undefined) body['system_fingerprint'] = extras.systemFingerprint;
  if (extras.usage !== null) {
    const completion = Math.ceil((content ?? '').length / 4);
    body['usage'] = extras.usage ?? { prompt_tokens: 10, completion_tokens: completion, total_tokens: 10 + completion };
  }
  return body;
}

/** An OpenAI-style error reply. */
export function errorReply(status: number, message: string, headers: Record<string, string> = {}): Reply {
  return { status, headers, body: { error: { message, type: 'test_error', param: null, code: null } } };
}

/** A deterministic small vector for a text (the default embeddings handler). */
export function fakeVector(text: string, dim = 8): number[] {
  const v: number[] = [];
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  for (let i = 0; i < dim; i++) {
    h = Math.imul(h ^ (h >>> 15), 2246822519) >>> 0;
    v.push((h / 4294967296) * 2 - 1);
  }
  return v;
}

function lastUserText(body: any): string {
  const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    const c = msgs[i]?.content;
    if (msgs[i]?.role !== 'user') continue;
    return typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: any) => p?.text ?? '').join(' ') : '';
  }
  return '';
}

const defaultChat: ChatHandler = (req) => `echo: ${lastUserText(req.body)}`;
const defaultEmbeddings: EmbeddingsHandler = (inputs) => inputs.map((t) => fakeVector(t));

function isReply(x: unknown): x is Reply {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function floatsToBase64(v: number[]): string {
  return Buffer.from(new Float32Array(v).buffer).toString('base64');
}

export async function startOpenAIServer(opts: OpenAIServerOptions = {}): Promise<OpenAITestServer> {
  let chat = opts.chat ?? defaultChat;
  let embeddings = opts.embeddings ?? defaultEmbeddings;
  const requests: ReceivedRequest[] = [];
  const counts = { chat: 0, embeddings: 0, other: 0 };
  const timers = new Set<NodeJS.Timeout>();
  const faults: InjectedFault[] = [];
  const fo = opts.faults;
  // One deterministic stream per request kind (mulberry32), so chat faults do not depend on embedding traffic.
  const streams = new Map<RequestKind, () => number>();
  const draw = (kind: RequestKind): number => {
    let f = streams.get(kind);
    if (!f) {
      let a = ((fo?.seed ?? 1) * 2654435761 + kind.length * 97) >>> 0;
      f = () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      };
      streams.set(kind, f);
    }
    return f();
  };
  const pickFault = (kind: RequestKind, req: ReceivedRequest): FaultKind | undefined => {
    if (!fo || !(fo.on ?? ['chat']).includes(kind)) return undefined;
    const allowed = (fo.kinds ?? [...ALL_FAULTS]).filter((k) => kind === 'chat' || (k !== 'truncated' && k !== 'empty' && k !== 'slow'));
    if (draw(kind) >= fo.rate || allowed.length === 0 || fo.exempt?.(req)) return undefined;
    // Kinds in turn, so a handful of faults already covers every kind.
    return allowed[faults.filter((f) => f.request.kind === kind).length % allowed.length];
  };

  const send = (res: ServerResponse, reply: Reply) => {
    const write = () => {
      if (res.destroyed || res.writableEnded) return; // the client gave up (e.g. timeout)
      const payload = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(payload);
    };
    if (reply.delayMs && reply.delayMs > 0) {
      const t = setTimeout(() => {
        timers.delete(t);
        write();
      }, reply.delayMs);
      timers.add(t);
      res.on('close', () => {
        clearTimeout(t);
        timers.delete(t);
      });
    } else {
      write();
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: any;
        try {
          body = raw === '' ? undefined : JSON.parse(raw);
        } catch {
          body = raw;
        }
        const path = url.pathname.replace(/\/+$/, '');
        const kind: RequestKind =
          req.method === 'POST' && path.endsWith('/chat/completions')
            ? 'chat'
            : req.method === 'POST' && path.endsWith('/embeddings')
              ? 'embeddings'
              : 'other';
        const received: ReceivedRequest = {
          method: req.method ?? 'GET',
          path,
          query: Object.fromEntries(url.searchParams),
          headers: req.headers,
          body,
          kind,
          deployment: /\/deployments\/([^/]+)\//.exec(path)?.[1],
        };
        requests.push(received);
        const n = counts[kind]++;
        const fault = pickFault(kind, received);
        if (fault) {
          faults.push({ kind: fault, request: received });
          send(res, faultReply(fault, faults.length, fo?.slowMs));
          return;
        }
        try {
          if (kind === 'chat') {
            const out = await chat(received, n);
            send(res, typeof out === 'string' ? { body: chatCompletion(out, { model: body?.model }) } : out);
          } else if (kind === 'embeddings') {
            const inputs: string[] = Array.isArray(body?.input) ? body.input : [String(body?.input ?? '')];
            const out = await embeddings(inputs, received, n);
            if (isReply(out)) {
              send(res, out);
            } else {
              const b64 = body?.encoding_format === 'base64';
              send(res, {
                body: {
                  object: 'list',
                  model: body?.model ?? 'test-embedding',
                  data: out.map((v, index) => ({ object: 'embedding', index, embedding: b64 ? floatsToBase64(v) : v })),
                  usage: { prompt_tokens: inputs.join('').length, total_tokens: inputs.join('').length },
                },
              });
            }
          } else if (req.method === 'GET' && path.endsWith('/models') && opts.models) {
            send(res, { body: { object: 'list', data: opts.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'test' })) } });
          } else {
            send(res, errorReply(404, `no route for ${req.method} ${path}`));
          }
        } catch (err) {
          send(res, errorReply(500, `test handler threw: ${err instanceof Error ? err.message : String(err)}`));
        }
      })();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    url: `${origin}/v1`,
    origin,
    faults,
    requests,
    chatRequests: () => requests.filter((r) => r.kind === 'chat'),
    embeddingRequests: () => requests.filter((r) => r.kind === 'embeddings'),
    setChat: (h) => {
      chat = h;
    },
    setEmbeddings: (h) => {
      embeddings = h;
    },
    close: async () => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
