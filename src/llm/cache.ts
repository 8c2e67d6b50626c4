/**
 * Content-addressed response cache for chat (and, via src/embed/cached-disk.ts,
 * embeddings), and offline replay.
 *
 * Storage: one append-only JSONL file (`responses.jsonl` in the run folder, and in
 * the --cache directory), one line per reply, loaded into memory when opened. Each
 * line goes out in one synchronous write to the file, kept open in append mode, so a
 * crash loses at most the reply being written; a torn last line is skipped on load.
 * Only the key hash, the reply and a few tags are stored: never the request's API
 * key, timeouts or retry settings.
 *
 * Key (sha256 of a canonical JSON of):
 *   provider, base_url, api_version, model, (sim: seed and memory-hint ids),
 *   the full messages (retrieved memories are inside them), effective temperature,
 *   max tokens, top_p, json mode, tags.role, tags.purpose, and the attempt index
 *   = (benchmark, taskId, phase, epoch, turn) from the tags.
 * The attempt index makes the n-th sampling of a prompt its own entry: the same
 * prompt in epoch 1 and epoch 2 (or as turn 3 and turn 4) is two samples, as it is
 * against the live API, while a re-run of the same run (replay, --resume, a second
 * run with --cache) finds exactly the replies the first one got.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UserError } from '../util/errors.js';
import { writeAllSync } from '../util/fs.js';
import { FileLock } from '../util/lock.js';
import { ProviderError } from './errors.js';
import type { ChatModel, ChatRequest, ChatResponse, ChatTags, TokenUsage } from './types.js';

export const CACHE_FILE = 'responses.jsonl';

/** One stored reply. `vector` (base64 float32) for embeddings; `text` for chat. */
export interface CacheEntry {
  k: string;
  kind: 'chat' | 'embedding';
  text?: string;
  vector?: string;
  usage?: TokenUsage;
  model?: string;
  systemFingerprint?: string;
  /** Human context for someone reading the file (not part of the key). */
  tags?: Partial<ChatTags> | { text: string };
}

/** JSON with object keys sorted, so the same content always hashes the same. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  });
}

export function hashKey(key: unknown): string {
  return createHash('sha256').update(canonicalJson(key)).digest('hex');
}

/** One cache file: everything in memory, new entries appended to disk. */
export class ResponseStore {
  private readonly entries = new Map<string, CacheEntry>();
  /** Open from the first reply written until close(). */
  private fd: number | null = null;
  /** The file ends inside a line torn by a crash: start the next append on a new line. */
  private tornTail = false;

  constructor(
    readonly file: string,
    /** shared: other processes append to it too (--cache), so each append holds its lock file. */
    private readonly opts: { readOnly?: boolean; shared?: boolean } = {},
  ) {
    if (existsSync(this.file)) {
      const text = readFileSync(this.file, 'utf8');
      this.tornTail = text.length > 0 && !text.endsWith('\n');
      for (const line of text.split('\n')) {
        if (!line.trim()) continue;
        try {
          const e = JSON.parse(line) as CacheEntry;
          if (typeof e.k === 'string' && !this.entries.has(e.k)) this.entries.set(e.k, e);
        } catch {
          // A line torn by a crash: that reply is simply not cached.
        }
      }
    }
  }

  get(k: string): CacheEntry | undefined {
    return this.entries.get(k);
  }

  has(k: string): boolean {
    return this.entries.has(k);
  }

  put(e: CacheEntry): void {
    if (this.entries.has(e.k) || this.opts.readOnly) return;
    this.entries.set(e.k, e);
    // Created on the first reply, so a run that fails to start leaves no folder behind.
    // Kept open: opening and closing it per reply cost ~30 µs a call on the run's thread.
    if (this.fd === null) {
      mkdirSync(dirname(this.file), { recursive: true });
      this.fd = openSync(this.file, 'a');
    }
    const line = Buffer.from(`${this.tornTail ? '\n' : ''}${JSON.stringify(e)}\n`, 'utf8');
    if (this.opts.shared) {
      const lock = FileLock.acquireWaiting(`${this.file}.lock`, 'memrl reply cache', `reply cache ${this.file}`, 10_000);
      try {
        writeAllSync(this.fd, line);
      } finally {
        lock.release();
      }
    } else {
      writeAllSync(this.fd, line);
    }
    this.tornTail = false;
  }

  /** Let go of the file (a later reply opens it again). */
  close(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }

  get size(): number {
    return this.entries.size;
  }
}

/** Where replies are written: a ResponseStore, or a worker's list of what its episode got. */
export interface ReplySink {
  put(e: CacheEntry): void;
}

/**
 * Where replies come from and go. `sources` are read in order; every reply used
 * (fresh or found in a source) is written to every store in `record`, so a run
 * folder's own cache is complete and replayable on its own.
 */
export interface CacheLayers {
  sources: ResponseStore[];
  record: ReplySink[];
  /** Replay: a reply in no source is an error, never a live call. */
  offline?: { from: string };
}

export function lookup(layers: CacheLayers, k: string): CacheEntry | undefined {
  for (const s of layers.sources) {
    const e = s.get(k);
    if (e) {
      for (const r of layers.record) r.put(e);
      return e;
    }
  }
  return undefined;
}

export function store(layers: CacheLayers, e: CacheEntry): void {
  for (const r of layers.record) r.put(e);
}

/** Close the layers' files once the run that wrote through them is over. */
export function closeCacheLayers(layers: CacheLayers): void {
  for (const s of new Set([...layers.sources, ...layers.record])) if (s instanceof ResponseStore) s.close();
}

/** A replay needed a reply the recorded run does not have. Stops the run (see MeteredChatModel). */
export class ReplayMissError extends ProviderError {
  constructor(message: string, provider: string) {
    super(message, provider, 'api');
    this.name = 'ReplayMissError';
  }
}

/** What identifies the endpoint and model; the key's non-request part. */
export interface ChatCacheIdentity {
  provider: 'openai' | 'sim';
  /** '' = the provider default. */
  baseUrl: string;
  apiVersion?: string;
  model: string;
  /** The inner model's defaults, so an unset request field keys like the value actually sent. */
  defaultTemperature?: number;
  defaultMaxTokens?: number;
  /** sim only: its replies depend on the seed. */
  simSeed?: number;
}

export function normalizeBaseUrl(url: string | null | undefined): string {
  return (url ?? '').trim().replace(/\/+$/, '');
}

/** The key object of a chat request (exported for tests and docs). */
export function chatCacheKey(id: ChatCacheIdentity, req: ChatRequest) {
  const t = req.tags;
  return {
    v: 1,
    op: 'chat',
    provider: id.provider,
    baseUrl: normalizeBaseUrl(id.baseUrl),
    apiVersion: id.apiVersion ?? null,
    model: id.model,
    ...(id.provider === 'sim' ? { simSeed: id.simSeed ?? 0, hints: (req.memoryHints ?? []).map((h) => h.id) } : {}),
    messages: req.messages,
    temperature: req.temperature ?? id.defaultTemperature ?? null,
    maxTokens: req.maxTokens ?? id.defaultMaxTokens ?? null,
    topP: req.topP ?? null,
    jsonMode: req.jsonMode === true,
    role: t.role,
    purpose: t.purpose ?? null,
    attempt: { benchmark: t.benchmark, taskId: t.taskId, phase: t.phase, epoch: t.epoch, turn: t.turn ?? null },
  };
}

/** Shows where a reply was needed, for a replay miss. */
function describeCall(req: ChatRequest): string {
  const t = req.tags;
  return `task ${t.taskId} (epoch ${t.epoch}, ${t.phase}, ${t.role}${t.purpose ? `/${t.purpose}` : ''}${t.turn !== undefined ? `, turn ${t.turn}` : ''})`;
}

/**
 * A ChatModel in front of another: a hit returns the stored reply marked
 * `cached: true` (latency 0, the original usage, which the ledger counts apart);
 * a miss calls the inner model and stores the reply. Errors are never stored, nor are
 * empty replies unless the request accepts them; concurrent identical requests share one inner call.
 * With `layers.offline`, `inner` is never called.
 */
export class CachedChatModel implements ChatModel {
  readonly label: string;
  readonly simulated: boolean;
  hits = 0;
  misses = 0;
  private readonly inflight = new Map<string, Promise<ChatResponse>>();

  constructor(
    private readonly inner: ChatModel,
    private readonly id: ChatCacheIdentity,
    private readonly layers: CacheLayers,
  ) {
    this.label = inner.label;
    this.simulated = inner.simulated;
  }

  async chat(req: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
    const k = hashKey(chatCacheKey(this.id, req));
    const e = lookup(this.layers, k);
    // A recorded empty reply answers only a caller that scores empty replies.
    if (e && typeof e.text === 'string' && (e.text.trim() !== '' || req.acceptEmpty === true)) {
      this.hits++;
      return {
        text: e.text,
        usage: e.usage ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
        model: e.model ?? this.id.model,
        ...(e.systemFingerprint ? { systemFingerprint: e.systemFingerprint } : {}),
        latencyMs: 0,
        cached: true,
      };
    }
    if (this.layers.offline) {
      throw new ReplayMissError(
        `replay: no recorded reply for ${describeCall(req)} in ${this.layers.offline.from}; ` +
          `the replay must use the recorded run's config, prompts and data (no live call was made)`,
        this.label,
      );
    }
    const shared = this.inflight.get(k);
    if (shared) {
      this.hits++;
      return { ...(await shared), latencyMs: 0, cached: true };
    }
    this.misses++;
    const p = this.inner.chat(req, signal).then((res) => {
      // An empty reply is kept only for a caller that scores it (the provider throws on it otherwise).
      if (res.text.trim() !== '' || req.acceptEmpty === true) {
        const t = req.tags;
        store(this.layers, {
          k,
          kind: 'chat',
          text: res.text,
          usage: res.usage,
          model: res.model,
          ...(res.systemFingerprint ? { systemFingerprint: res.systemFingerprint } : {}),
          tags: { taskId: t.taskId, epoch: t.epoch, phase: t.phase, role: t.role, purpose: t.purpose, turn: t.turn },
        });
      }
      return res;
    });
    this.inflight.set(k, p);
    try {
      return await p;
    } finally {
      this.inflight.delete(k);
    }
  }
}

/** The inner model of a replay: reaching it is a bug in the cache layer, not a network call. */
export class OfflineChatModel implements ChatModel {
  constructor(
    readonly label: string,
    readonly simulated: boolean,
  ) {}

  async chat(req: ChatRequest): Promise<ChatResponse> {
    throw new ReplayMissError(`replay: ${describeCall(req)} would need a live call`, this.label);
  }
}

/** The run folder's own recording (a file, so the run folder stays flat). */
export function runCacheFile(runDir: string): string {
  return join(runDir, CACHE_FILE);
}

/**
 * Layers for a run: the run's own recording is always a source (so --resume reuses
 * the replies of an interrupted attempt) and always recorded; `sharedDir` (--cache)
 * is read and written too; `replayFrom` makes the run offline, reading only the
 * recorded run's cache.
 */
export function runCacheLayers(opts: { runDir: string; sharedDir?: string | null; replayFrom?: string | null }): CacheLayers {
  const own = new ResponseStore(runCacheFile(opts.runDir));
  if (opts.replayFrom) {
    const file = runCacheFile(opts.replayFrom);
    if (!existsSync(file)) {
      throw new UserError(`--replay ${opts.replayFrom}: no recorded replies there (${file} is missing); point --replay at a run folder`);
    }
    const src = new ResponseStore(file, { readOnly: true });
    return { sources: [own, src], record: [own], offline: { from: opts.replayFrom } };
  }
  const shared = opts.sharedDir ? new ResponseStore(join(opts.sharedDir, CACHE_FILE), { shared: true }) : undefined;
  return { sources: shared ? [own, shared] : [own], record: shared ? [own, shared] : [own] };
}
