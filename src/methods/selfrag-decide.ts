/**
 * Self-RAG's model calls, made with the main LLM instead of a trained Self-RAG model.
 * The reference (memrl/selfrag_core/client.py) makes one: a decision that says whether
 * retrieval is needed and labels each top-k candidate (selected, relevance, support,
 * utility). Its gate call (decide from the task alone whether retrieving is worth it)
 * exists but is never called, in any commit; memrl makes it first under the switch
 * selfrag.gate-call=memrl. A reply that holds no usable JSON object is asked again, up
 * to the configured number of attempts; when none parses, the caller's fallback applies
 * (plain top-k, or nothing).
 *
 * Prompts are template files in the `memory` namespace (src/memory/prompts/selfrag-*.md),
 * overridden by a prompt pack's memory/ folder.
 */
import type { RetrievalRecord } from '../core/method.js';
import type { ChatModel, ChatRequest, ChatTags } from '../llm/types.js';
import { errorMessage } from '../util/errors.js';
import { isJsonObject, type JsonObject } from '../util/json.js';
import { pyStrip } from '../util/python/text.js';
import { loadTemplate, render } from '../util/template.js';
import { METHOD_PROMPT_DIR } from './experience.js';

export const SELFRAG_TEMPLATES = {
  gateSystem: 'selfrag-gate-system.md',
  gateUser: 'selfrag-gate-user.md',
  decisionSystem: 'selfrag-decision-system.md',
  decisionUser: 'selfrag-decision-user.md',
} as const;

/** A candidate experience as the decision call sees it. */
export interface DecisionCandidate {
  id: string;
  taskId: string;
  /** The task it came from. */
  key: string;
  /** The stored experience (task, trajectory, result). */
  content: string;
  success: boolean;
  sim: number;
}

export interface DocLabel {
  id: string;
  selected: boolean;
  relevance: number | null;
  support: number | null;
  utility: number | null;
}

export interface GateAnswer {
  shouldRetrieve: boolean;
  reason?: string;
}

export interface DecisionAnswer {
  shouldRetrieve: boolean;
  /** One label per candidate id the reply named (in the reply's order; unknown ids dropped). */
  docs: DocLabel[];
}

/** The reply held no JSON object we could read: worth asking again. */
export class UnparseableReply extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnparseableReply';
  }
}

/** The JSON object in a reply: the whole text, or from its first `{` to its last `}` (models like to wrap it). */
export function extractJsonObject(raw: string): JsonObject {
  const text = raw.trim();
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start) throw new UnparseableReply('no JSON object in the reply');
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start, end + 1));
  } catch (err) {
    throw new UnparseableReply(`invalid JSON: ${errorMessage(err)}`);
  }
  if (!isJsonObject(value)) throw new UnparseableReply('the reply is not a JSON object');
  return value;
}

/** true/false, also as the strings a model sometimes writes; anything else is false (as the reference reads it). */
function flag(v: unknown): boolean {
  if (typeof v === 'string') return v.trim().toLowerCase() === 'true';
  return v === true;
}

function numberOrNull(v: unknown): number | null {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
}

export function parseGate(raw: string): GateAnswer {
  const obj = extractJsonObject(raw);
  return { shouldRetrieve: flag(obj.should_retrieve), ...(typeof obj.reason === 'string' ? { reason: obj.reason } : {}) };
}

/** Labels for the candidates; an id the reply invents is dropped, a candidate it leaves out stays unselected. */
export function parseDecision(raw: string, candidateIds: readonly string[]): DecisionAnswer {
  const obj = extractJsonObject(raw);
  const known = new Set(candidateIds);
  const seen = new Set<string>();
  const docs: DocLabel[] = [];
  for (const item of Array.isArray(obj.docs) ? obj.docs : []) {
    if (!isJsonObject(item)) continue;
    const d = item;
    const id = d.id === undefined || d.id === null ? '' : String(d.id);
    if (!known.has(id) || seen.has(id)) continue;
    seen.add(id);
    const utility = numberOrNull(d.utility);
    docs.push({ id, selected: flag(d.selected), relevance: numberOrNull(d.relevance), support: numberOrNull(d.support), utility: utility === null ? null : Math.round(utility) });
  }
  return { shouldRetrieve: flag(obj.should_retrieve), docs };
}

/** Python's truth value of a JSON value, as `bool(x)` reads it ("false" and "no" are true). */
function pyTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

/** Python's int(x) of a label, or null where it raises. */
function pyInt(v: unknown): number | null {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v)) return Number.parseInt(v, 10);
  return null;
}

/**
 * The decision as the reference reads it (SelfRAGClient._extract_json, _parse_decision;
 * switch selfrag.decision-parse): the stripped reply is the JSON when it starts with `{`
 * (so text after the object spoils it), else the span from its first `{` to its last `}`;
 * flags are Python truth values; every id the reply names keeps its labels (an id is
 * selected when any of its entries is); `docs` that is a number fails the attempt.
 */
export function parseDecisionReference(raw: string): DecisionAnswer {
  const stripped = pyStrip(raw);
  let text = stripped;
  if (!stripped.startsWith('{')) {
    const start = stripped.indexOf('{');
    const end = stripped.lastIndexOf('}');
    if (start < 0 || end < 0) throw new UnparseableReply('no JSON object in the reply');
    text = stripped.slice(start, end + 1);
  }
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch (err) {
    throw new UnparseableReply(`invalid JSON: ${errorMessage(err)}`);
  }
  if (!isJsonObject(obj)) throw new UnparseableReply('the reply is not a JSON object');
  const o = obj;
  const listed = pyTruthy(o.docs) ? o.docs : [];
  if (typeof listed === 'number' || typeof listed === 'boolean') throw new UnparseableReply('docs is not a list');
  const docs: DocLabel[] = [];
  // A string or an object iterates as characters or keys: no entry is an object then.
  for (const item of Array.isArray(listed) ? listed : []) {
    if (!isJsonObject(item)) continue;
    const d = item;
    const id = pyTruthy(d.id) ? (typeof d.id === 'string' ? d.id : JSON.stringify(d.id)) : '';
    if (!id) continue;
    const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
    docs.push({ id, selected: pyTruthy(d.selected), relevance: num(d.relevance), support: num(d.support), utility: d.utility === undefined || d.utility === null ? null : pyInt(d.utility) });
  }
  return { shouldRetrieve: pyTruthy(o.should_retrieve), docs };
}

export interface Asked<T> {
  /** The parsed answer; undefined when no attempt gave one. */
  answer?: T;
  /** Calls made. */
  attempts: number;
  /** Why the last attempt failed (parse or call error), when no answer came. */
  error?: string;
}

/**
 * Up to `attempts` calls until one parses. A call that throws counts as a failed attempt
 * (the client has already retried the endpoint), except when the run is being stopped.
 */
export async function askUntilParsed<T>(attempts: number, call: (attempt: number) => Promise<string>, parse: (raw: string) => T, signal?: AbortSignal): Promise<Asked<T>> {
  let error = 'not asked';
  const n = Math.max(1, attempts);
  for (let attempt = 0; attempt < n; attempt++) {
    let raw: string;
    try {
      raw = await call(attempt);
    } catch (err) {
      if (signal?.aborted) throw err;
      error = errorMessage(err);
      continue;
    }
    try {
      return { answer: parse(raw), attempts: attempt + 1 };
    } catch (err) {
      if (!(err instanceof UnparseableReply)) throw err;
      error = err.message;
    }
  }
  return { attempts: n, error };
}

export interface DecisionCalls {
  model: ChatModel;
  promptDir?: string;
  /** benchmark, taskId, epoch, phase of the task being decided for. */
  tags: Omit<ChatTags, 'role' | 'purpose' | 'turn'>;
  attempts: number;
  signal?: AbortSignal;
  /** Ask for a JSON object reply (memrl's); the reference asks without (selfrag.decision-parse). Default true. */
  jsonMode?: boolean;
}

/** Characters of a candidate shown to the decision call (the reference shows a 400-character preview). */
const PREVIEW_CHARS = 400;
const TASK_PREVIEW_CHARS = 600;

function clip(text: string, n: number): string {
  const t = text.trim();
  return t.length > n ? `${t.slice(0, n)}...` : t;
}

function messages(system: string, user: string, vars: Record<string, string>, promptDir?: string): ChatRequest['messages'] {
  const sys = loadTemplate(METHOD_PROMPT_DIR, system, promptDir);
  const usr = loadTemplate(METHOD_PROMPT_DIR, user, promptDir);
  return [
    { role: 'system', content: render(sys.text, vars, sys.path).trimEnd() },
    { role: 'user', content: render(usr.text, vars, usr.path).trimEnd() },
  ];
}

async function ask(c: DecisionCalls, purpose: string, msgs: ChatRequest['messages'], attempt: number): Promise<string> {
  // Each attempt is its own sample (turn), so a retry is not answered by the cached bad reply.
  const res = await c.model.chat({ messages: msgs, ...(c.jsonMode === false ? {} : { jsonMode: true }), tags: { ...c.tags, role: 'memory', purpose, turn: attempt } }, c.signal);
  return res.text;
}

/** The gate: should this task look at past experience at all? */
export function askGate(c: DecisionCalls, task: string): Promise<Asked<GateAnswer>> {
  const msgs = messages(SELFRAG_TEMPLATES.gateSystem, SELFRAG_TEMPLATES.gateUser, { task }, c.promptDir);
  return askUntilParsed(c.attempts, (attempt) => ask(c, 'selfrag-gate', msgs, attempt), parseGate, c.signal);
}

/** The decision: labels for every candidate, one call for all of them (the reference's reading with `referenceParse`). */
export function askDecision(c: DecisionCalls, task: string, candidates: readonly DecisionCandidate[], referenceParse = false): Promise<Asked<DecisionAnswer>> {
  const input = JSON.stringify(
    {
      task,
      candidates: candidates.map((x) => ({
        id: x.id,
        task_id: x.taskId,
        task: clip(x.key, TASK_PREVIEW_CHARS),
        outcome: x.success ? 'success' : 'failure',
        similarity: Math.round(x.sim * 1000) / 1000,
        experience: clip(x.content, PREVIEW_CHARS),
      })),
    },
    null,
    1,
  );
  const msgs = messages(SELFRAG_TEMPLATES.decisionSystem, SELFRAG_TEMPLATES.decisionUser, { input }, c.promptDir);
  const ids = candidates.map((x) => x.id);
  const parse = referenceParse ? parseDecisionReference : (raw: string) => parseDecision(raw, ids);
  return askUntilParsed(c.attempts, (attempt) => ask(c, 'selfrag-decision', msgs, attempt), parse, c.signal);
}

/** What an adaptive retrieval decided, for one task. */
export interface Choice {
  /** Indices of the candidates injected, in candidate (similarity) order. */
  chosen: number[];
  /** The gate's and the decision's answers, for the outcome row (extra.retrieval). */
  record: RetrievalRecord;
  /** Set when no reply parsed: the stage, why, and what was injected instead. */
  fallback?: { stage: 'gate' | 'decision'; error: string | undefined; to: 'top-k' | 'none' };
}

function labelOf(d: DocLabel | undefined) {
  return d ? { selected: d.selected, relevance: d.relevance, support: d.support, utility: d.utility } : { selected: false, labelled: false };
}

/**
 * Adaptive retrieval over non-empty candidates: the gate call first when `gate` (memrl's
 * two calls; the reference makes none), then the decision call. Nothing is injected when
 * the answer says retrieval is not needed; a stage whose replies never parse falls back
 * to all the candidates or to none (`fallbackOnError`).
 */
export async function chooseCandidates(
  c: DecisionCalls,
  task: string,
  candidates: readonly DecisionCandidate[],
  opts: { gate: boolean; referenceParse: boolean; fallbackOnError: boolean },
): Promise<Choice> {
  const all = candidates.map((_, i) => i);
  const fallback = (stage: 'gate' | 'decision', error: string | undefined, record: RetrievalRecord): Choice => {
    const to = opts.fallbackOnError ? 'top-k' : 'none';
    return { chosen: opts.fallbackOnError ? all : [], record: { ...record, fallback: to }, fallback: { stage, error, to } };
  };
  let gateRecord: RetrievalRecord | null = null;
  if (opts.gate) {
    const gate = await askGate(c, task);
    gateRecord = { attempts: gate.attempts, ...(gate.answer ? { retrieve: gate.answer.shouldRetrieve } : { error: gate.error }) };
    if (!gate.answer) return fallback('gate', gate.error, { gate: gateRecord, decision: null });
    if (!gate.answer.shouldRetrieve) return { chosen: [], record: { gate: gateRecord, decision: null, fallback: null } };
  }
  const decision = await askDecision(c, task, candidates, opts.referenceParse);
  if (!decision.answer) return fallback('decision', decision.error, { gate: gateRecord, decision: { attempts: decision.attempts, error: decision.error } });
  const { shouldRetrieve, docs } = decision.answer;
  const first = new Map<string, DocLabel>();
  for (const d of docs) if (!first.has(d.id)) first.set(d.id, d);
  const selected = new Set(docs.filter((d) => d.selected).map((d) => d.id));
  const record = {
    gate: gateRecord,
    decision: { attempts: decision.attempts, retrieve: shouldRetrieve, labels: candidates.map((x) => ({ id: x.id, ...labelOf(first.get(x.id)), selected: selected.has(x.id) })) },
    fallback: null,
  };
  // As the reference: nothing is injected when the decision says retrieval is not needed.
  return { chosen: shouldRetrieve ? all.filter((i) => selected.has((candidates[i] as DecisionCandidate).id)) : [], record };
}
