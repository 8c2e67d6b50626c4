/**
 * Token usage and cost per role (agent, judge, memory writing, embeddings), for
 * summary.json. Cache hits are counted as calls but their tokens are kept apart:
 * they cost nothing this run. Cost = billed tokens × the role's model price
 * (src/llm/prices.ts); a role with billed tokens and no price has cost null.
 * Also keeps the distinct model names and system fingerprints the provider
 * reported, so a run records which backend answered it.
 */
import type { SpendMeter, SpendReport } from './budget.js';
import { LEDGER_ROLES, roleCost, type LedgerRole, type Price, type RolePrice, type RolePrices } from './cost.js';
import type { TokenUsage } from './types.js';

// The runner and the remote episodes name the roles through the ledger.
export { LEDGER_ROLES, type LedgerRole } from './cost.js';

export interface LedgerBucket {
  /** Calls answered by the provider. */
  calls: number;
  /** Calls answered from a cache. */
  cachedCalls: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Tokens of cached calls (not in the three counts above). */
  cachedTokens: number;
}

export interface LedgerOptions {
  /** Price of chat calls (agent, judge, memory); `prices` wins per role. */
  chatPrice?: Price;
  /** Price of embedding calls (prompt side only); `prices` wins. */
  embeddingPrice?: Price;
  /** Price per role with its model and source (what the CLI uses). */
  prices?: RolePrices;
  /** Counts billed calls across attempts and enforces the budget. */
  meter?: SpendMeter;
}

/** What the provider said about itself, per role. */
export interface Reported {
  models: string[];
  systemFingerprints: string[];
}

export interface LedgerSnapshot {
  byRole: Record<LedgerRole, LedgerBucket & { costUsd?: number | null }>;
  total: LedgerBucket & { costUsd?: number | null };
  /** null when no price is configured, or a role with billed tokens has none. */
  costUsd: number | null;
  /** The price used per role (absent when none is configured). */
  prices?: Partial<Record<LedgerRole, RolePrice>>;
  /** Why a cost is null. */
  notes?: string[];
  /** Distinct model names and system_fingerprint values the provider returned. */
  reported?: Partial<Record<LedgerRole, Reported>>;
  /** Billed calls of every attempt of the run folder, and the budget. */
  spend?: SpendReport;
}

/** Enough to show a change of backend; a provider that varies per request should not grow files without bound. */
const MAX_REPORTED = 50;

function emptyBucket(): LedgerBucket {
  return { calls: 0, cachedCalls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, cachedTokens: 0 };
}

function addInto(into: LedgerBucket, b: LedgerBucket): void {
  into.calls += b.calls;
  into.cachedCalls += b.cachedCalls;
  into.promptTokens += b.promptTokens;
  into.completionTokens += b.completionTokens;
  into.totalTokens += b.totalTokens;
  into.cachedTokens += b.cachedTokens;
}

export class UsageLedger {
  private readonly buckets = new Map<LedgerRole, LedgerBucket>(LEDGER_ROLES.map((r) => [r, emptyBucket()]));
  private readonly reported = new Map<LedgerRole, { models: Set<string>; fingerprints: Set<string> }>();
  private readonly prices: RolePrices | undefined;

  constructor(private readonly opts: LedgerOptions = {}) {
    const { chatPrice, embeddingPrice, prices } = opts;
    if (chatPrice || embeddingPrice || prices) {
      const legacy = (p: Price | undefined): RolePrice | undefined => (p ? { model: '', price: p, source: 'ledger option' } : undefined);
      const chat = legacy(chatPrice);
      this.prices = { agent: chat, judge: chat, memory: chat, embedding: legacy(embeddingPrice), ...prices };
    }
  }

  /** `tags` may be a request's ChatTags; only the role is read. */
  record(
    tags: { role: LedgerRole },
    usage: TokenUsage,
    opts: { cached?: boolean; model?: string; systemFingerprint?: string } = {},
  ): void {
    const b = this.buckets.get(tags.role);
    if (!b) throw new Error(`usage ledger: unknown role "${String(tags.role)}"`);
    this.noteReported(tags.role, opts.model, opts.systemFingerprint);
    const total = usage.totalTokens || usage.promptTokens + usage.completionTokens;
    if (opts.cached) {
      b.cachedCalls += 1;
      b.cachedTokens += total;
      return;
    }
    b.calls += 1;
    b.promptTokens += usage.promptTokens;
    b.completionTokens += usage.completionTokens;
    b.totalTokens += total;
    // Last: the meter may stop the run (budget), and this call is already counted.
    this.opts.meter?.add(tags.role, usage);
  }

  /** One embeddings request (a batch counts once). */
  recordEmbedding(usage: TokenUsage, opts: { cached?: boolean } = {}): void {
    this.record({ role: 'embedding' }, usage, opts);
  }

  /** Continue counting from a snapshot (resume). Spend is not restored: the meter reads its own file. */
  restore(snap: LedgerSnapshot): void {
    for (const role of LEDGER_ROLES) {
      const b = snap.byRole[role];
      if (b) {
        this.buckets.set(role, {
          calls: b.calls ?? 0,
          cachedCalls: b.cachedCalls ?? 0,
          promptTokens: b.promptTokens ?? 0,
          completionTokens: b.completionTokens ?? 0,
          totalTokens: b.totalTokens ?? 0,
          cachedTokens: b.cachedTokens ?? 0,
        });
      }
      const r = snap.reported?.[role];
      for (const m of r?.models ?? []) this.noteReported(role, m, undefined);
      for (const f of r?.systemFingerprints ?? []) this.noteReported(role, undefined, f);
    }
  }

  snapshot(): LedgerSnapshot {
    const byRole = {} as LedgerSnapshot['byRole'];
    const total: LedgerSnapshot['total'] = emptyBucket();
    const priced = this.prices !== undefined;
    let cost: number | null = priced ? 0 : null;
    for (const role of LEDGER_ROLES) {
      const copy = { ...this.buckets.get(role)! };
      addInto(total, copy);
      const c = priced ? roleCost(copy, this.prices![role]) : null;
      if (c === null) cost = null;
      else if (cost !== null) cost += c;
      byRole[role] = priced ? { ...copy, costUsd: c } : copy;
    }
    if (priced) total.costUsd = cost;
    const snap: LedgerSnapshot = { byRole, total, costUsd: cost };
    if (priced) {
      snap.prices = Object.fromEntries(LEDGER_ROLES.flatMap((r) => (this.prices![r] ? [[r, this.prices![r]]] : [])));
      const notes = [...new Set(LEDGER_ROLES.flatMap((r) => (byRole[r].costUsd === null && this.prices![r]?.note ? [this.prices![r]!.note!] : [])))];
      if (notes.length) snap.notes = notes;
    }
    if (this.reported.size) {
      snap.reported = {};
      for (const role of LEDGER_ROLES) {
        const r = this.reported.get(role);
        if (r) snap.reported[role] = { models: [...r.models], systemFingerprints: [...r.fingerprints] };
      }
    }
    if (this.opts.meter) snap.spend = this.opts.meter.report();
    return snap;
  }

  private noteReported(role: LedgerRole, model: string | undefined, fingerprint: string | undefined): void {
    if (!model && !fingerprint) return;
    let r = this.reported.get(role);
    if (!r) this.reported.set(role, (r = { models: new Set(), fingerprints: new Set() }));
    if (model && r.models.size < MAX_REPORTED) r.models.add(model);
    if (fingerprint && r.fingerprints.size < MAX_REPORTED) r.fingerprints.add(fingerprint);
  }
}
