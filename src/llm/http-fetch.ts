/**
 * The `fetch` the openai client calls with: node:http(s) on keep-alive agents, the whole
 * reply read into one Response. Node's built-in fetch (undici) pipes every body through
 * web streams; with 32 calls in flight that added ~15 ms to a 200 ms reply at the median
 * and ~45 ms at the tail (bench:throughput), where this path adds ~5 and ~15.
 *
 * It covers what the client sends: a method, headers, a string or byte body, a signal.
 * Anything else (a streamed body, a non-HTTP URL) goes to the built-in fetch. The reply
 * is a Response over the bytes already read (bufferedResponse). Failures
 * look like the built-in's: an abort rejects with the signal's reason (an AbortError),
 * a network error with a TypeError whose cause is the system error.
 */
import http from 'node:http';
import https from 'node:https';

const AGENTS = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

type Body = string | Uint8Array;

function plainBody(body: unknown): Body | null | undefined {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  return undefined; // streams, FormData, Blob: not ours
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

// Response's reading members are declared as properties in TypeScript's DOM types, so
// a subclass cannot override them as methods; extend it as the constructor it is.
const ResponseClass = Response as unknown as new (body: null, init: ResponseInit) => Pick<Response, 'status' | 'statusText' | 'headers'>;

/**
 * A Response over bytes already in memory. A Response built with a body sets up a web
 * stream for it (~0.1 ms of the run's one thread per reply, bench:throughput); the
 * client reads replies whole, so the bytes are handed over as they are. Anything that
 * asks for the stream itself (`body`, `clone`, `blob`, `formData`) gets an ordinary
 * Response over the same bytes, and every read from then on goes through it.
 */
class BufferedResponse extends ResponseClass {
  #bytes: Buffer<ArrayBuffer> | null;
  #used = false;
  #streamed: Response | null = null;

  constructor(bytes: Buffer<ArrayBuffer> | null, init: ResponseInit) {
    super(null, init);
    this.#bytes = bytes;
  }

  #stream(): Response {
    this.#streamed ??= new Response(this.#used ? null : this.#bytes, { status: this.status, statusText: this.statusText, headers: this.headers });
    return this.#streamed;
  }

  #take(): string {
    if (this.#used) throw new TypeError('Body is unusable: Body has already been read');
    this.#used = true;
    // As the built-in decodes a body: UTF-8, a byte-order mark dropped.
    const text = this.#bytes ? this.#bytes.toString('utf8') : '';
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.#bytes === null ? null : this.#stream().body;
  }

  get bodyUsed(): boolean {
    return this.#streamed ? this.#streamed.bodyUsed : this.#used;
  }

  async text(): Promise<string> {
    return this.#streamed ? this.#streamed.text() : this.#take();
  }

  async json(): Promise<unknown> {
    return this.#streamed ? this.#streamed.json() : JSON.parse(this.#take());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    if (this.#streamed || !this.#bytes) return this.#stream().arrayBuffer();
    this.#take();
    const b = this.#bytes;
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }

  async blob(): Promise<Blob> {
    return this.#stream().blob();
  }

  async formData(): Promise<FormData> {
    return this.#stream().formData();
  }

  clone(): Response {
    return this.#stream().clone();
  }
}

export function bufferedResponse(bytes: Buffer<ArrayBuffer> | null, init: ResponseInit): Response {
  return new BufferedResponse(bytes, init) as unknown as Response;
}

export const httpFetch: typeof fetch = (input, init = {}) => {
  const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const url = new URL(href);
  const body = plainBody(init.body);
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || body === undefined || !(typeof input === 'string' || input instanceof URL)) return fetch(input, init);
  const signal = init.signal ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => (headers[k] = v));
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const req = (url.protocol === 'https:' ? https : http).request(url, { method: init.method ?? 'GET', headers, agent: url.protocol === 'https:' ? AGENTS['https:'] : AGENTS['http:'] }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (err) => finish(() => reject(new TypeError('fetch failed', { cause: err }))));
      res.on('end', () => {
        const status = res.statusCode ?? 502;
        const out = new Headers();
        for (const [k, v] of Object.entries(res.headers)) for (const x of Array.isArray(v) ? v : v === undefined ? [] : [v]) out.append(k, x);
        // A 1xx/204/304 reply has no body; Response refuses one.
        const empty = status === 204 || status === 304 || status < 200;
        finish(() => resolve(bufferedResponse(empty ? null : Buffer.concat(chunks), { status: empty && status < 200 ? 200 : status, statusText: res.statusMessage ?? '', headers: out })));
      });
    });
    const onAbort = (): void => {
      req.destroy();
      finish(() => reject(abortReason(signal as AbortSignal)));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => finish(() => reject(new TypeError('fetch failed', { cause: err }))));
    req.end(body ?? undefined);
  });
};
