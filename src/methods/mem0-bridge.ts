/**
 * The real Mem0 library (`mem0ai`, its open-source `Memory`) wired to memrl's own model
 * and embedder, so every call it makes is metered, cached and replayable.
 *
 * - Embeddings: mem0ai's `langchain` embedder provider takes any object with
 *   embedQuery/embedDocuments; ours answers from the run's Embedder (no LangChain needed).
 * - Chat (only infer=true calls it): mem0ai builds its LLM from a provider name, and none
 *   of its providers takes a client object, so the only way in is its `openai` provider
 *   pointed at a base URL. memrl serves that URL itself: a loopback HTTP server (127.0.0.1,
 *   random port, a per-run bearer token) that turns each chat completion into a call of
 *   the run's ChatModel with role `memory`, purpose `mem0-extract`.
 * - Vector store: mem0ai's `memory` provider (SQLite) in memory (`:memory:`), one user
 *   scope per run; history off (it would only duplicate ids and timestamps).
 *
 * Determinism. Mem0 names memories with random UUIDs and stamps wall-clock times, and its
 * extraction prompt carries today's date. memrl pins them: every memory gets a stable id
 * (the experience's `mem0-e<epoch>-t<index>`, with `-m<j>` per extracted memory) mapped
 * from mem0's UUID, its time is the barrier's commit time, and the two dates in the
 * extraction prompt are replaced before the call (so a resume or a replay on another day
 * asks the same question). Mem0's own state is kept as the log of the adds memrl made,
 * with every embedding and reply they used; a restore replays that log through a fresh
 * Memory with no model or embedder call, which rebuilds the store exactly.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TaskBase } from '../core/benchmark.js';
import type { MethodContext } from '../core/method.js';
import type { ChatMessage, ChatTags } from '../llm/types.js';
import { decodeFloat32, encodeFloat32 } from '../memory/vectors.js';
import { errorMessage, MemrlError } from '../util/errors.js';
import { FallbackTally } from './fallbacks.js';
import { capturingConsole } from './quiet-console.js';

type Mem0Module = typeof import('mem0ai/oss');
type Mem0Memory = InstanceType<Mem0Module['Memory']>;

/** What one add was: replayed as it is on restore. */
export interface Mem0Op {
  /** The experience's memory id (`mem0-e<epoch>-t<index>`). */
  id: string;
  taskId: string;
  key: string;
  success: boolean;
  status: string;
  epoch: number;
  at: number;
  infer: boolean;
  /** The experience text (task, trajectory, result) in full; mem0 gets it clamped. */
  text: string;
  /** Stable ids of the memories mem0 made from it, in its order. */
  memoryIds: string[];
  /** The extraction replies mem0 got during this add (infer=true), in call order. */
  replies: string[];
}

/** One memory as memrl shows it (content in full, times pinned). */
export interface Mem0Record {
  id: string;
  op: string;
  content: string;
}

export interface Mem0State {
  mem0: 1;
  userId: string;
  dimension: number;
  ops: Mem0Op[];
  memories: Mem0Record[];
  /** sha256(text) → base64 float32 of every embedding the adds used. */
  vectors: Record<string, string>;
}

export interface Mem0Hit {
  id: string;
  score: number;
}

/** The reference clamps what goes into mem0 (its embedding endpoint's limit), head and tail kept. */
export const MAX_MEM0_CHARS = 8196;

export function clampForMem0(text: string): string {
  if (text.length <= MAX_MEM0_CHARS) return text;
  const marker = '\n\n...[truncated]...\n\n';
  const budget = MAX_MEM0_CHARS - marker.length;
  const head = Math.floor(budget / 2);
  return text.slice(0, head) + marker + text.slice(text.length - (budget - head));
}

/** The extraction prompt's dates, replaced: they are today's date, which no replay could ask again. */
export function pinDates(text: string): string {
  return text.replace(/(## (?:Observation|Current) Date\n)[^\n]*/g, '$1(not recorded)');
}

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A broken promise between memrl and mem0ai (an upgrade changed its behaviour): a harness fault. */
export class Mem0Error extends MemrlError {
  constructor(message: string) {
    super('harness', 'mem0', message);
    this.name = 'Mem0Error';
  }
}

let loaded: Promise<Mem0Module> | undefined;

/** mem0ai, loaded once. Its telemetry (PostHog over the network) is read from the environment at load: off. */
function loadMem0(): Promise<Mem0Module> {
  process.env.MEM0_TELEMETRY = 'false';
  // Mem0 keeps an anonymous client id in $MEM0_DIR/config.json; not in the user's home.
  process.env.MEM0_DIR ??= join(tmpdir(), 'memrl-mem0');
  loaded ??= import('mem0ai/oss');
  return loaded;
}

/** The embedder mem0ai calls: the run's Embedder, with the vectors the adds used kept for the checkpoint. */
class EmbedderAdapter {
  /** Every vector seen in this process (task keys from prepare, search entities): saves repeat calls. */
  private readonly seen = new Map<string, Float32Array>();
  /** Vectors the adds used, by sha256 of the text: the checkpoint keeps them for a call-free restore. */
  readonly kept = new Map<string, Float32Array>();
  /** While an add runs: keep what it uses. */
  recording = false;
  /** While a restore replays: only kept vectors may be served. */
  restoring = false;

  constructor(private readonly ctx: MethodContext) {}

  async vectors(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: (Float32Array | undefined)[] = texts.map((t) => this.kept.get(sha(t)) ?? this.seen.get(t));
    const missing = [...new Set(texts.filter((_, i) => out[i] === undefined))];
    if (missing.length && this.restoring) throw new Mem0Error(`mem0 restore: mem0ai asked for an embedding the checkpoint does not have (${missing[0]!.slice(0, 60)}…); was mem0ai changed since the run started?`);
    if (missing.length) {
      const got = await this.ctx.embedder.embed(missing, signal);
      missing.forEach((t, i) => this.seen.set(t, got[i] as Float32Array));
    }
    return texts.map((t, i) => {
      const v = out[i] ?? (this.seen.get(t) as Float32Array);
      if (this.recording) this.kept.set(sha(t), v);
      return v;
    });
  }

  /** The object mem0ai's `langchain` embedder provider wraps. */
  forMem0(): { embedQuery(text: string): Promise<number[]>; embedDocuments(texts: string[]): Promise<number[][]> } {
    return {
      embedQuery: async (text) => Array.from((await this.vectors([text]))[0] as Float32Array),
      embedDocuments: async (texts) => (await this.vectors(texts)).map((v) => Array.from(v)),
    };
  }
}

/** Who mem0's next chat call is for, and where its replies go (or come from, on restore). */
interface CallScope {
  tags: Omit<ChatTags, 'role' | 'purpose' | 'turn'>;
  replies: string[];
  replay?: readonly string[];
}

/**
 * mem0ai's `openai` LLM provider, answered in-process: a loopback OpenAI-compatible
 * endpoint whose every chat completion is a call of the run's model. Adds are
 * sequential, so one scope at a time says which task a call belongs to.
 */
class LoopbackChat {
  private server: Server | undefined;
  private url: string | undefined;
  readonly token = `memrl-${randomBytes(12).toString('hex')}`;
  scope: CallScope | undefined;
  /** The model's own error for the call mem0 saw fail (mem0 wraps it into its LLMError). */
  lastError: unknown;

  constructor(private readonly ctx: MethodContext) {}

  async start(): Promise<string> {
    if (this.url) return this.url;
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((ok, fail) => {
      server.once('error', fail);
      server.listen(0, '127.0.0.1', () => ok());
    });
    // Never what keeps the process alive; close() ends it at the run's end.
    server.unref();
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    return this.url;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const reply = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    // 400, never 5xx: the OpenAI client would retry, and retries belong to memrl's own client.
    const refuse = (message: string): void => reply(400, { error: { message, type: 'invalid_request_error' } });
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      if (req.headers.authorization !== `Bearer ${this.token}`) return refuse('not this run');
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) return refuse(`memrl serves chat completions only, not ${req.method} ${req.url}`);
      const scope = this.scope;
      if (!scope) return refuse('no add in progress');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages?: { role: string; content: unknown }[]; response_format?: { type?: string } };
      const messages: ChatMessage[] = (body.messages ?? []).map((m) => ({
        role: m.role === 'system' || m.role === 'assistant' ? m.role : 'user',
        content: pinDates(typeof m.content === 'string' ? m.content : JSON.stringify(m.content)),
      }));
      const turn = scope.replies.length;
      let text: string;
      if (scope.replay) {
        const recorded = scope.replay[turn];
        if (recorded === undefined) throw new Mem0Error('mem0 restore: mem0ai made more model calls than the checkpoint recorded; was mem0ai changed since the run started?');
        text = recorded;
      } else {
        const res = await this.ctx.model.chat({ messages, jsonMode: body.response_format?.type === 'json_object', tags: { ...scope.tags, role: 'memory', purpose: 'mem0-extract', turn } });
        text = res.text;
      }
      scope.replies.push(text);
      reply(200, {
        id: `memrl-${turn}`,
        object: 'chat.completion',
        created: 0,
        model: 'memrl',
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      });
    } catch (err) {
      this.lastError = err;
      refuse(errorMessage(err));
    }
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.url = undefined;
    if (server) await new Promise<void>((ok) => server.close(() => ok()));
  }
}

export interface Mem0Experience {
  memoryId: string;
  taskId: string;
  key: string;
  text: string;
  success: boolean;
  status: string;
  epoch: number;
  /** Outcome.finishRank: the commit order under engine.commit-order=reference. */
  finishRank?: number;
}

/** Mem0's memory for one run: adds at the barrier, searches before each episode, all through mem0ai. */
export class Mem0Bridge {
  private memory: Mem0Memory | undefined;
  private dimension: number | undefined;
  private readonly embed: EmbedderAdapter;
  private readonly chat: LoopbackChat;
  /** mem0's UUID → memrl's stable id. */
  private readonly ids = new Map<string, string>();
  readonly ops: Mem0Op[] = [];
  readonly memories: Mem0Record[] = [];
  private readonly byId = new Map<string, { memory: Mem0Record; op: Mem0Op }>();
  readonly userId: string;
  /** Extractions whose reply mem0ai could not parse (nothing stored from them): counted, logged, said per epoch. */
  readonly fallbacks: FallbackTally;

  private constructor(
    private readonly ctx: MethodContext,
    private readonly infer: boolean,
  ) {
    this.embed = new EmbedderAdapter(ctx);
    this.chat = new LoopbackChat(ctx);
    this.userId = `memrl_${ctx.benchmark.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
    this.fallbacks = new FallbackTally(ctx.log, 'mem0');
  }

  /** A bridge with the checkpoint's memory replayed into a fresh mem0 Memory (no model or embedder call). */
  static async open(ctx: MethodContext, infer: boolean): Promise<Mem0Bridge> {
    const bridge = new Mem0Bridge(ctx, infer);
    const state = ctx.restored as Mem0State | undefined;
    if (state) await bridge.restore(state);
    return bridge;
  }

  private async restore(state: Mem0State): Promise<void> {
    if (state.mem0 !== 1 || !Array.isArray(state.ops)) throw new Mem0Error('the checkpoint holds no Mem0 state this version of memrl can read');
    for (const [k, v] of Object.entries(state.vectors)) this.embed.kept.set(k, decodeFloat32(v));
    if (state.dimension > 0) this.dimension = state.dimension;
    this.embed.restoring = true;
    try {
      for (const op of state.ops) await this.apply(op, op.replies);
    } finally {
      this.embed.restoring = false;
    }
    const same = JSON.stringify(this.memories) === JSON.stringify(state.memories);
    if (!same) throw new Mem0Error('mem0 restore: replaying the checkpoint gave other memories than it recorded; was mem0ai changed since the run started?');
  }

  private async open(sample: string): Promise<Mem0Memory> {
    if (this.memory) return this.memory;
    const { Memory } = await loadMem0();
    // The store's dimension from a real vector (mem0 would otherwise embed a probe text).
    this.dimension ??= ((await this.embed.vectors([sample]))[0] as Float32Array).length;
    const needsChat = this.infer || this.ops.some((o) => o.infer);
    this.memory = new Memory({
      embedder: { provider: 'langchain', config: { model: this.embed.forMem0() } },
      vectorStore: { provider: 'memory', config: { collectionName: 'memrl', dimension: this.dimension, dbPath: ':memory:' } },
      // Without infer no chat call is made; the address then refuses at once.
      llm: { provider: 'openai', config: { apiKey: this.chat.token, baseURL: needsChat ? await this.chat.start() : 'http://127.0.0.1:9/v1', model: 'memrl' } },
      disableHistory: true,
    });
    return this.memory;
  }

  /** Embeds the tasks' texts once (searches then need no call for the query). */
  async prepare(tasks: readonly TaskBase[], signal?: AbortSignal): Promise<void> {
    await this.embed.vectors(
      tasks.map((t) => t.key),
      signal,
    );
  }

  async add(exp: Mem0Experience, at: number): Promise<void> {
    const op: Mem0Op = { id: exp.memoryId, taskId: exp.taskId, key: exp.key, success: exp.success, status: exp.status, epoch: exp.epoch, at, infer: this.infer, text: exp.text, memoryIds: [], replies: [] };
    await this.apply(op);
  }

  /** One add through mem0ai; `replay` = the replies recorded for it (restore), else live calls. */
  private async apply(op: Mem0Op, replay?: readonly string[]): Promise<void> {
    const content = clampForMem0(op.text);
    const memory = await this.open(content);
    const scope: CallScope = { tags: { benchmark: this.ctx.benchmark, taskId: op.taskId, epoch: op.epoch, phase: 'train' }, replies: [], ...(replay ? { replay } : {}) };
    this.chat.scope = scope;
    this.chat.lastError = undefined;
    this.embed.recording = true;
    let results: { id: string; memory: string; metadata?: Record<string, unknown> }[];
    let printed: string[] = [];
    try {
      // mem0ai prints its failures (a reply it cannot parse) as stack traces: into the run's log instead.
      const res = await capturingConsole(
        () =>
          memory.add([{ role: 'assistant', content }], {
            userId: this.userId,
            // As the reference: benchmark, task, phase and success travel with the memory.
            metadata: { memrl_id: op.id, benchmark: this.ctx.benchmark, task_id: op.taskId, phase: 'train', epoch: op.epoch, success: op.success, status: op.status },
            infer: op.infer,
          }),
        (lines) => {
          printed = lines;
          if (!replay) this.ctx.log.warn({ event: 'mem0_output', task: op.taskId, epoch: op.epoch, lines }, 'mem0ai printed');
        },
      );
      results = res.results;
    } catch (err) {
      // mem0 reports a failed model call as its own LLMError: surface the model's error (a replay miss, a refusal).
      throw this.chat.lastError ?? err;
    } finally {
      this.chat.scope = undefined;
      this.embed.recording = false;
    }
    const added = results.filter((r) => (r.metadata?.event ?? 'ADD') === 'ADD');
    if (op.infer && printed.some((l) => /Error parsing extraction response/.test(l))) {
      this.fallbacks.note('mem0-extraction-unparseable', 'Mem0 extraction reply not in its JSON format: nothing stored from the experience', { epoch: op.epoch, phase: 'train', task: op.taskId }, { memoryId: op.id }, replay !== undefined);
    }
    const memoryIds = added.map((_, j) => (op.infer ? `${op.id}-m${j}` : op.id));
    if (replay && JSON.stringify(memoryIds) !== JSON.stringify(op.memoryIds)) {
      throw new Mem0Error(`mem0 restore: the add of ${op.id} made ${memoryIds.length} memories, the checkpoint says ${op.memoryIds.length}`);
    }
    const done: Mem0Op = { ...op, memoryIds, replies: scope.replies };
    added.forEach((r, j) => {
      const id = memoryIds[j] as string;
      const memory: Mem0Record = { id, op: op.id, content: op.infer ? r.memory : op.text };
      this.ids.set(r.id, id);
      this.memories.push(memory);
      this.byId.set(id, { memory, op: done });
    });
    this.ops.push(done);
  }

  /** A memory by its memrl id, with the experience it came from. */
  get(id: string): { memory: Mem0Record; op: Mem0Op } {
    const found = this.byId.get(id);
    if (!found) throw new Mem0Error(`mem0 memory ${id} is not recorded`);
    return found;
  }

  /**
   * The memories mem0 finds for a task, by memrl id, best first. `hybrid`: in mem0ai 3.x's
   * own order (cosine, BM25 and entity boosts, combined). `cosine`: by the cosine alone, as
   * the reference's mem0 1.0.1 ranked with Qdrant: every memory at or above the threshold
   * is asked for, and the best `limit` by cosine are kept (ties in mem0's order). Either
   * way each hit carries its semantic score, read through `explain`: the score mem0's
   * threshold compared, so the recorded score is the one that decided.
   */
  async search(task: TaskBase, limit: number, threshold: number, ranking: 'cosine' | 'hybrid', signal?: AbortSignal): Promise<Mem0Hit[]> {
    if (this.memories.length === 0) return [];
    signal?.throwIfAborted();
    const memory = await this.open(task.key);
    const cosine = ranking === 'cosine';
    const res = await capturingConsole(
      () => memory.search(task.key, { filters: { user_id: this.userId }, topK: cosine ? this.memories.length : limit, threshold, explain: true }),
      (lines) => this.ctx.log.warn({ event: 'mem0_output', task: task.id, lines }, 'mem0ai printed'),
    );
    const hits = res.results.map((r) => {
      const id = this.ids.get(r.id);
      if (!id) throw new Mem0Error(`mem0 returned a memory memrl did not add (${r.id})`);
      const semantic = (r as { score_details?: { semanticScore?: number } }).score_details?.semanticScore;
      if (typeof semantic !== 'number') throw new Mem0Error('mem0 search with explain gave no semantic score: was mem0ai changed?');
      return { id, score: semantic };
    });
    return cosine ? hits.sort((a, b) => b.score - a.score).slice(0, limit) : hits;
  }

  snapshot(): Mem0State {
    return {
      mem0: 1,
      userId: this.userId,
      dimension: this.dimension ?? 0,
      ops: this.ops,
      memories: this.memories,
      vectors: Object.fromEntries([...this.embed.kept].map(([k, v]) => [k, encodeFloat32(v)])),
    };
  }

  async close(): Promise<void> {
    await this.chat.close();
  }
}
