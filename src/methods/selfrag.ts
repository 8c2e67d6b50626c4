/**
 * Self-RAG, as the paper's baseline and the reference (memrl/selfrag_core) define it: the
 * main LLM drives retrieval, no separately trained Self-RAG model.
 *
 * Memory: every finished training episode, stored as its task, trajectory and result
 * (src/memory/prompts/experience.md), embedded with the run's embedder and tagged with benchmark,
 * epoch, phase and success. Retrieval, per task: the top-k stored experiences by cosine
 * similarity of the task text to the stored text, those below the similarity
 * `threshold` dropped (the reference's: rl_config.sim_threshold, on HLE rl_config.tau);
 * then by `retrieval_mode`:
 *   always   inject the candidates;
 *   never    inject nothing;
 *   adaptive one decision call says whether retrieval is needed and labels every
 *            candidate (selected, relevance, support, utility); the selected ones are
 *            injected, in similarity order. Under selfrag.gate-call=memrl a gate call
 *            first asks, from the task alone, whether experience is worth it.
 * A call whose reply stays unparseable after `max_decision_retries` attempts falls back
 * to the candidates (`fallback_on_error`, else nothing). The calls are role `memory`
 * through the run's model, so they are metered, cached and replayed like every call,
 * and each task's decision is recorded in its outcome row (extra.retrieval).
 */
import { z } from 'zod';
import type { InjectedMemory, TaskBase } from '../core/benchmark.js';
import type { Experience, FinishedEpisode, MethodContext, MethodInstance, MethodModule, MethodStats, Retrieval, RetrievalQuery, RetrievalRecord } from '../core/method.js';
import { computeStats } from '../memory/stats.js';
import type { MemoryRecord } from '../memory/types.js';
import type { FidelitySwitch } from '../util/fidelity.js';
import { decodeFloat32, encodeFloat32, NORM_FLOOR } from '../memory/vectors.js';
import { mapPool } from '../util/pool.js';
import { chooseCandidates, type DecisionCalls } from './selfrag-decide.js';
import { commitOrder } from './commit-order.js';
import { experienceText } from './experience.js';

export const RETRIEVAL_MODES = ['adaptive', 'always', 'never'] as const;

export const GATE_CALL = 'selfrag.gate-call';
export const DECISION_PARSE = 'selfrag.decision-parse';
/** The baseline's client; it left the reference after commit 3386d8e. */
const CLIENT = 'memrl/selfrag_core/client.py';

export const SELFRAG_SWITCHES: readonly FidelitySwitch[] = [
  {
    id: GATE_CALL,
    class: 'choice',
    reference: 'one model call per task: the decision says whether retrieval is needed and selects among the candidates (the gate prompt exists but is never called)',
    memrl: 'two calls: a gate decides from the task alone whether to retrieve, then the decision selects',
    source: `${CLIENT}:SelfRAGClient.decide at commit 3386d8e (gate_retrieval is called nowhere)`,
  },
  {
    id: DECISION_PARSE,
    class: 'bug',
    reference:
      'the decision is asked without JSON mode; the reply, stripped, is parsed whole when it starts with "{" (text after the object spoils it), else from its first "{" to its last "}"; should_retrieve and selected are Python truth values (the strings "false" and "no" are true); an id is selected when any of its entries is',
    memrl: 'asked in JSON mode; the first "{" to the last "}" of the reply; only true (or "true") is true; labels of ids that are no candidate are dropped, the first entry of an id counts',
    source: `${CLIENT}:SelfRAGClient._extract_json, SelfRAGClient._parse_decision at commit 3386d8e`,
  },
];

const section = z
  .object({
    top_k: z
      .number()
      .int()
      .min(1)
      .nullable()
      .default(null)
      .describe('Self-RAG: candidates found by similarity for each task (the decision call labels them); null = memory.k_retrieve, as the reference.'),
    retrieval_mode: z
      .enum(RETRIEVAL_MODES)
      .default('adaptive')
      .describe('Self-RAG: adaptive = the LLM gates retrieval and selects among the candidates; always = inject the top-k; never = no retrieval.'),
    max_decision_retries: z
      .number()
      .int()
      .min(1)
      .default(2)
      .describe('Self-RAG: calls made for a gate or decision until its reply parses as JSON (the reference counts 2 = one retry).'),
    fallback_on_error: z
      .boolean()
      .default(true)
      .describe('Self-RAG: when no reply parses, inject the plain top-k (true) or nothing (false).'),
    threshold: z
      .number()
      .min(-1)
      .max(1)
      .nullable()
      .default(null)
      .describe(
        "Self-RAG: drop candidates whose cosine similarity is below this before the decision; null = the reference's: rl_config.sim_threshold, on HLE rl_config.tau (-1 keeps all).",
      ),
  })
  .strict();

export type SelfRagSettings = z.output<typeof section>;

/** Gate and decision calls in flight at once inside a batch (each task's calls are independent). */
const DECISION_CONCURRENCY = 4;

interface Stored {
  id: string;
  taskId: string;
  key: string;
  content: string;
  success: boolean;
  status: string;
  epoch: number;
  at: number;
  vector: Float32Array;
}

/** What the checkpoint keeps of one stored experience (the vector as base64 float32). */
type SavedExperience = Omit<Stored, 'vector'> & { embedding: string };

interface SelfRagState {
  selfrag: 1;
  experiences: SavedExperience[];
}

/** A training episode's experience, plain JSON for the journal; committed as it is. */
interface SelfRagExperience extends Experience {
  memoryId: string;
  taskId: string;
  key: string;
  content: string;
  success: boolean;
  status: string;
  epoch: number;
  embedding: string;
  /** Outcome.finishRank: the commit order under engine.commit-order=reference. */
  finishRank?: number;
}

interface Candidate {
  item: Stored;
  sim: number;
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return dot / (Math.max(Math.sqrt(na), NORM_FLOOR) * Math.max(Math.sqrt(nb), NORM_FLOOR));
}

class SelfRag implements MethodInstance {
  private readonly store: Stored[];
  /** Task-key embeddings, computed once per process (prepare). */
  private readonly keyVectors = new Map<string, Float32Array>();
  private readonly settings: SelfRagSettings;
  private readonly topK: number;
  private readonly threshold: number | null;

  constructor(private readonly ctx: MethodContext<SelfRagSettings | undefined>) {
    this.settings = ctx.settings ?? section.parse({});
    this.topK = this.settings.top_k ?? ctx.params.k1;
    this.threshold = this.settings.threshold ?? ctx.params.baselineThreshold ?? null;
    const restored = ctx.restored as SelfRagState | undefined;
    this.store = (restored?.experiences ?? []).map(({ embedding, ...rest }) => ({ ...rest, vector: decodeFloat32(embedding) }));
  }

  get size(): number {
    return this.store.length;
  }

  async prepare(tasks: readonly TaskBase[], signal?: AbortSignal): Promise<void> {
    if (this.settings.retrieval_mode === 'never') return;
    const vectors = await this.ctx.embedder.embed(
      tasks.map((t) => t.key),
      signal,
    );
    tasks.forEach((t, i) => this.keyVectors.set(t.id, vectors[i] as Float32Array));
  }

  /** The top-k by similarity, ties in storage order: a pure function of the committed store. */
  private async candidates(task: TaskBase, signal?: AbortSignal): Promise<Candidate[]> {
    if (this.store.length === 0 || this.topK < 1) return [];
    let q = this.keyVectors.get(task.id);
    if (!q) {
      q = (await this.ctx.embedder.embed([task.key], signal))[0] as Float32Array;
      this.keyVectors.set(task.id, q);
    }
    const query = q;
    const threshold = this.threshold;
    return this.store
      .map((item) => ({ item, sim: cosine(query, item.vector) }))
      .filter((c) => threshold === null || c.sim >= threshold)
      .sort((a, b) => b.sim - a.sim)
      .slice(0, this.topK);
  }

  async retrieve(tasks: readonly TaskBase[], query: RetrievalQuery): Promise<Retrieval[]> {
    return mapPool(tasks, DECISION_CONCURRENCY, (task) => this.retrieveOne(task, query));
  }

  private async retrieveOne(task: TaskBase, query: RetrievalQuery): Promise<Retrieval> {
    const mode = this.settings.retrieval_mode;
    const found = mode === 'never' ? [] : await this.candidates(task, query.signal);
    const record: RetrievalRecord = { mode, candidates: found.map((c) => ({ id: c.item.id, sim: c.sim })) };
    const done = (chosen: Candidate[], extra: RetrievalRecord = {}): Retrieval => this.retrieval(chosen, found.length, { ...record, ...extra, selected: chosen.map((c) => c.item.id) });
    if (mode !== 'adaptive' || found.length === 0) return done(found);

    const { fidelity } = this.ctx;
    const calls: DecisionCalls = {
      jsonMode: fidelity.memrl(DECISION_PARSE),
      model: this.ctx.model,
      ...(this.ctx.promptDir ? { promptDir: this.ctx.promptDir } : {}),
      tags: { benchmark: this.ctx.benchmark, taskId: task.id, epoch: query.epoch, phase: query.phase },
      attempts: this.settings.max_decision_retries,
      ...(query.signal ? { signal: query.signal } : {}),
    };
    const choice = await chooseCandidates(
      calls,
      task.key,
      found.map((c) => ({ id: c.item.id, taskId: c.item.taskId, key: c.item.key, content: c.item.content, success: c.item.success, sim: c.sim })),
      { gate: fidelity.memrl(GATE_CALL), referenceParse: !fidelity.memrl(DECISION_PARSE), fallbackOnError: this.settings.fallback_on_error },
    );
    if (choice.fallback) {
      const { stage, error, to } = choice.fallback;
      this.ctx.log.warn({ event: 'selfrag_fallback', task: task.id, stage, error, to }, 'Self-RAG reply unparseable; falling back');
    }
    return done(
      choice.chosen.map((i) => found[i] as Candidate),
      choice.record,
    );
  }

  private retrieval(chosen: Candidate[], pool: number, record: RetrievalRecord): Retrieval {
    const memories: InjectedMemory[] = chosen.map(({ item, sim }) => ({ id: item.id, key: item.key, success: item.success, taskId: item.taskId, content: item.content, q: 0, sim }));
    return { memories, fields: { retrievedIds: memories.map((m) => m.id), retrievedSim: memories.map((m) => m.sim), pool, explored: false }, record };
  }

  async learn(ep: FinishedEpisode): Promise<SelfRagExperience> {
    const { task, outcome } = ep;
    const content = experienceText(task.key, outcome, this.ctx.promptDir);
    const [vector] = await this.ctx.embedder.embed([content], ep.signal);
    return {
      memoryId: `selfrag-e${ep.epoch}-t${ep.index}`,
      taskId: task.id,
      key: task.key,
      content,
      success: outcome.success,
      status: outcome.status,
      epoch: ep.epoch,
      embedding: encodeFloat32(vector as Float32Array),
      ...(outcome.finishRank !== undefined ? { finishRank: outcome.finishRank } : {}),
    };
  }

  /** Stored in the order the reference adds a batch (engine.commit-order): storage order breaks similarity ties. */
  commit(experiences: readonly Experience[], at: number): void {
    const batch = experiences as readonly SelfRagExperience[];
    for (const i of commitOrder(
      batch.map((e) => e.finishRank),
      this.ctx.fidelity,
    )) {
      const e = batch[i] as SelfRagExperience;
      this.store.push({ id: e.memoryId, taskId: e.taskId, key: e.key, content: e.content, success: e.success, status: e.status, epoch: e.epoch, at, vector: decodeFloat32(e.embedding) });
    }
  }

  snapshot(): SelfRagState {
    return { selfrag: 1, experiences: this.store.map(({ vector, ...rest }) => ({ ...rest, embedding: encodeFloat32(vector) })) };
  }

  records(): MemoryRecord[] {
    return this.store.map((s) => ({
      id: s.id,
      key: s.key,
      content: s.content,
      success: s.success,
      q: 0,
      visits: 0,
      rewardEma: 0,
      lastReward: null,
      createdAt: s.at,
      updatedAt: s.at,
      relatedIds: [],
      meta: { taskId: s.taskId, epoch: s.epoch, phase: 'train', status: s.status },
    }));
  }

  stats(): MethodStats {
    return { ...computeStats(this.records(), this.store.length), retrievalMode: this.settings.retrieval_mode, topK: this.topK };
  }
}

export const selfrag: MethodModule<SelfRagSettings | undefined> = {
  kind: 'method',
  name: 'selfrag',
  displayName: 'Self-RAG',
  description: 'the LLM gates retrieval and labels the top-k similar past experiences (selected, relevance, support, utility); selected ones are injected',
  configSection: section,
  fidelitySwitches: SELFRAG_SWITCHES,
  create: (ctx) => new SelfRag(ctx),
};
