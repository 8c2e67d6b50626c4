/**
 * One file over HTTP(S) into a `.part` file, with undici (the HTTP client inside Node's
 * own fetch): proxies from HTTPS_PROXY / HTTP_PROXY / NO_PROXY (EnvHttpProxyAgent),
 * redirects followed (the hub answers with one to its CDN), and a cut download resumed
 * from where it stopped with a Range request, in this process or the next one (a killed
 * pull leaves its `.part`, which `memrl data list` never counts as present).
 *
 * Failures are DataFetchErrors saying what happened; the caller words the one line.
 */
import { createWriteStream, existsSync, statSync } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { EnvHttpProxyAgent, fetch, type Dispatcher } from 'undici';
import { UserError, errorMessage } from '../util/errors.js';

export type FetchFailure = 'not_found' | 'refused' | 'unreachable' | 'http' | 'disk' | 'cut';

export class DataFetchError extends UserError {
  constructor(
    readonly failure: FetchFailure,
    readonly detail: string,
    readonly status?: number,
  ) {
    super(detail, `data_${failure}`);
    this.name = 'DataFetchError';
  }
}

export interface DownloadRequest {
  url: string;
  /** Sent as `Authorization: Bearer` (a Hugging Face token); never logged. */
  token?: string | null;
  /** The `.part` file: appended to when it already holds the start of the file. */
  dest: string;
  onProgress?(done: number, total: number | null): void;
  signal?: AbortSignal;
}

/** Tries per download after a connection is cut mid-file or the server fails (each resumes with a Range request). */
const RESUMES = 5;

let agent: Dispatcher | undefined;

/**
 * The proxy-aware agent, made once. undici 6 flags EnvHttpProxyAgent as experimental
 * with a process warning on first use (undici 7 ships the same agent without it; it
 * needs Node 20.18), so that one warning is kept off the user's terminal.
 */
function dispatcher(): Dispatcher {
  if (agent) return agent;
  const emit = process.emitWarning;
  process.emitWarning = (() => undefined) as typeof process.emitWarning;
  try {
    agent = new EnvHttpProxyAgent();
  } finally {
    process.emitWarning = emit;
  }
  return agent;
}

/** Why a request failed before or while reading: the system error code where there is one. */
function networkCause(err: unknown): string {
  let e: unknown = err;
  for (let i = 0; i < 4 && e; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return errorMessage(err);
}

/** The start of a 206 answer's range (bytes N-M/T). */
function rangeStart(header: string | null): number | null {
  const m = /^bytes\s+(\d+)-/.exec(header ?? '');
  return m ? Number(m[1]) : null;
}

/** The whole file's size from a 206 answer's range (bytes N-M/T; null for *). */
function rangeTotal(header: string | null): number | null {
  const m = /\/(\d+)\s*$/.exec(header ?? '');
  return m ? Number(m[1]) : null;
}

/** GET once, from `offset`; resolves with the bytes now in `dest`, or throws (a cut stream as 'cut'). */
async function attempt(req: DownloadRequest, offset: number): Promise<{ size: number; total: number | null }> {
  const headers: Record<string, string> = { 'user-agent': 'memrl-data' };
  if (req.token) headers.authorization = `Bearer ${req.token}`;
  if (offset > 0) headers.range = `bytes=${offset}-`;
  let res;
  try {
    res = await fetch(req.url, { headers, dispatcher: dispatcher(), redirect: 'follow', ...(req.signal ? { signal: req.signal } : {}) });
  } catch (err) {
    if (req.signal?.aborted) throw err;
    throw new DataFetchError('unreachable', networkCause(err));
  }
  if (res.status === 416 && offset > 0) {
    // The .part is as long as the file or longer (a file that changed): start again.
    await res.body?.cancel();
    return attempt(req, 0);
  }
  if (res.status !== 200 && res.status !== 206) await res.body?.cancel(); // the connection goes back to the pool
  if (res.status === 404) throw new DataFetchError('not_found', 'HTTP 404', 404);
  if (res.status === 401 || res.status === 403) throw new DataFetchError('refused', `HTTP ${res.status}`, res.status);
  // A busy or failing server is tried again like a cut connection, from where the file stands.
  if (res.status === 429 || res.status >= 500) throw new DataFetchError('cut', `HTTP ${res.status}`, res.status);
  if (res.status !== 200 && res.status !== 206) throw new DataFetchError('http', `HTTP ${res.status}`, res.status);
  if (res.status === 206 && rangeStart(res.headers.get('content-range')) !== offset) {
    // Another range than asked for: fetch the whole file instead.
    await res.body?.cancel();
    if (offset === 0) throw new DataFetchError('http', 'HTTP 206 without a Range request', 206);
    return attempt(req, 0);
  }
  // A server that ignores Range answers 200 with the whole file: it replaces the .part.
  const from = res.status === 206 ? offset : 0;
  const total = from > 0 ? rangeTotal(res.headers.get('content-range')) : Number(res.headers.get('content-length')) || null;
  let done = from;
  req.onProgress?.(done, total);
  const count = new Transform({
    transform(chunk: Buffer, _enc, next) {
      done += chunk.length;
      req.onProgress?.(done, total);
      next(null, chunk);
    },
  });
  const out = createWriteStream(req.dest, { flags: from > 0 ? 'a' : 'w' });
  try {
    await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), count, out);
  } catch (err) {
    // A write still in flight must land before the next attempt measures the .part and appends to it.
    if (!out.closed) await new Promise<void>((settle) => out.once('close', () => settle()));
    const code = networkCause(err);
    if (code === 'ENOSPC' || code === 'EDQUOT') throw new DataFetchError('disk', code);
    if (req.signal?.aborted) throw err;
    throw new DataFetchError('cut', code);
  }
  if (total !== null && done < total) throw new DataFetchError('cut', `ended at ${done} of ${total} bytes`);
  return { size: done, total };
}

/**
 * Downloads `req.url` into `req.dest`, resuming a `.part` already there and a connection
 * cut on the way; resolves with the byte count. Nothing is removed here on failure.
 */
export async function download(req: DownloadRequest): Promise<{ size: number; resumedFrom: number }> {
  const resumedFrom = existsSync(req.dest) ? statSync(req.dest).size : 0;
  let offset = resumedFrom;
  for (let tries = 0; ; tries++) {
    try {
      const { size } = await attempt(req, offset);
      return { size, resumedFrom };
    } catch (err) {
      if (!(err instanceof DataFetchError) || err.failure !== 'cut' || tries >= RESUMES) throw err;
      offset = existsSync(req.dest) ? statSync(req.dest).size : 0;
      await sleep(250 * (tries + 1));
    }
  }
}
