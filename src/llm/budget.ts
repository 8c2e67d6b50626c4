/**
 * What a run folder has spent on the provider, over every attempt (a resumed run
 * continues the count), and the --budget-usd / --budget-tokens limits on it.
 *
 * The usage ledger describes the run's learning state and is restored on resume;
 * calls of episodes cut short by an interruption are not in it, but they were paid
 * for. So spend is kept apart, in <run>/spend.json (a SpendStore: the file's format
 * is src/core/run-files/spend.ts), rewritten after billed calls. Cache hits are never billed. Cost is billed
 * tokens × the current price table, so adding a missing price later fills it in.
 */
import { LEDGER_ROLES, roleCost, type LedgerRole, type RolePrices } from './cost.js';
import type { TokenUsage } from './types.js';

export interface BudgetLimits {
  /** US dollars; null = no limit. */
  usd: number | null;
  /** Billed tokens (prompt + completion, every role); null = no limit. */
  tokens: number | null;
}

export interface SpendBucket {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** Where a run's spend is kept between attempts: what earlier attempts spent, and each new count. */
export interface SpendStore {
  /** What earlier attempts spent per role (nothing yet: no entries). */
  load(): Partial<Record<LedgerRole, SpendBucket>>;
  save(byRole: Record<LedgerRole, SpendBucket>): void;
}

export interface BudgetHit {
  kind: 'usd' | 'tokens';
  /** The flag that sets this limit. */
  flag: '--budget-usd' | '--budget-tokens';
  spent: number;
  limit: number;
}

export interface SpendReport {
  /** Billed calls of every attempt of this run folder (cache hits excluded). */
  byRole: Record<LedgerRole, SpendBucket & { costUsd: number | null }>;
  tokens: number;
  /** null when a role with billed tokens has no price. */
  costUsd: number | null;
  limits: BudgetLimits;
  /** The limit reached, if any. */
  reached: BudgetHit | null;
}

const empty = (): SpendBucket => ({ calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 });

const SAVE_EVERY_MS = 200;

export class SpendMeter {
  private readonly byRole = new Map<LedgerRole, SpendBucket>(LEDGER_ROLES.map((r) => [r, empty()]));
  private signalled = false;

  constructor(
    /** The run's spend.json; read now, written after billed calls. */
    private readonly store: SpendStore,
    private readonly prices: RolePrices,
    readonly limits: BudgetLimits,
    /** Called once, when a billed call makes the spend reach a limit. */
    private readonly onReached?: (hit: BudgetHit) => void,
    /** Dollars spent elsewhere that count against the same --budget-usd (a sweep's other cells). */
    private readonly othersUsd: () => number = () => 0,
  ) {
    const saved = store.load();
    for (const role of LEDGER_ROLES) {
      const b = saved[role];
      if (b) this.byRole.set(role, { ...b });
    }
  }

  /** One billed call (never a cache hit). */
  add(role: LedgerRole, usage: TokenUsage): void {
    const b = this.byRole.get(role);
    if (!b) throw new Error(`spend meter: unknown role "${String(role)}"`);
    b.calls += 1;
    b.promptTokens += usage.promptTokens;
    b.completionTokens += usage.completionTokens;
    b.totalTokens += usage.totalTokens || usage.promptTokens + usage.completionTokens;
    this.dirty = true;
    const hit = this.reached();
    if (hit) this.flush();
    else this.saveSoon();
    if (hit && !this.signalled) {
      this.signalled = true;
      this.onReached?.(hit);
    }
  }

  /** Writes what is counted and not yet written (the run calls it when it ends); nothing when nothing was billed. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.dirty) return;
    this.save();
    this.dirty = false;
    this.lastSave = Date.now();
  }

  /**
   * At most one write per SAVE_EVERY_MS: hundreds of calls a second (a distributed run)
   * would otherwise spend more time renaming spend.json than calling. A kill loses at
   * most that window's count.
   */
  private saveSoon(): void {
    const since = Date.now() - this.lastSave;
    if (since >= SAVE_EVERY_MS) return this.flush();
    this.timer ??= setTimeout(() => this.flush(), SAVE_EVERY_MS - since);
    this.timer.unref();
  }

  tokens(): number {
    let n = 0;
    for (const b of this.byRole.values()) n += b.totalTokens;
    return n;
  }

  costUsd(): number | null {
    let usd = 0;
    for (const role of LEDGER_ROLES) {
      const c = roleCost(this.byRole.get(role)!, this.prices[role]);
      if (c === null) return null;
      usd += c;
    }
    return usd;
  }

  /** The first limit reached (spent >= limit), or null. */
  reached(): BudgetHit | null {
    const { usd, tokens } = this.limits;
    const spentTokens = this.tokens();
    if (tokens !== null && spentTokens >= tokens) return { kind: 'tokens', flag: '--budget-tokens', spent: spentTokens, limit: tokens };
    const cost = this.costUsd();
    if (usd === null || cost === null) return null;
    const spent = cost + this.othersUsd();
    return spent >= usd ? { kind: 'usd', flag: '--budget-usd', spent, limit: usd } : null;
  }

  report(): SpendReport {
    const byRole = {} as SpendReport['byRole'];
    for (const role of LEDGER_ROLES) {
      const b = this.byRole.get(role)!;
      byRole[role] = { ...b, costUsd: roleCost(b, this.prices[role]) };
    }
    return { byRole, tokens: this.tokens(), costUsd: this.costUsd(), limits: { ...this.limits }, reached: this.reached() };
  }

  private timer: NodeJS.Timeout | undefined;
  private lastSave = 0;
  /** Counted since the last write. */
  private dirty = false;

  private save(): void {
    this.store.save(Object.fromEntries(LEDGER_ROLES.map((r) => [r, this.byRole.get(r)!])) as Record<LedgerRole, SpendBucket>);
  }
}

/** The one line printed when a budget stops a run. */
export function budgetStopLine(hit: BudgetHit, benchmark: string, runDir: string): string {
  const spent = hit.kind === 'usd' ? `$${hit.spent.toFixed(4)} of $${hit.limit}` : `${hit.spent} of ${hit.limit} tokens`;
  return `memrl: budget reached: ${spent} (${hit.flag}); stopping. Resume with a larger budget: memrl run ${benchmark} --resume ${runDir} ${hit.flag} <more>`;
}

/** A --budget-usd needs a price for every model the run bills; otherwise the limit could never be checked. */
export function unpricedForBudget(limits: BudgetLimits, prices: RolePrices): string[] {
  if (limits.usd === null) return [];
  const notes = new Set<string>();
  for (const role of LEDGER_ROLES) {
    const p = prices[role];
    if (p && !p.price) notes.add(p.note ?? `no price for ${p.model}`);
  }
  return [...notes];
}
