/**
 * The words cost is counted in, shared by the usage ledger (ledger.ts), the spend
 * and budget of a run folder (budget.ts) and the price tables (prices.ts): the roles
 * a call is billed to, a model's price, and what a role's tokens cost.
 */
import type { CallRole } from './types.js';

export type LedgerRole = CallRole | 'embedding';
export const LEDGER_ROLES: readonly LedgerRole[] = ['agent', 'judge', 'memory', 'embedding'];

/** USD per million tokens. */
export interface Price {
  promptPerMTok: number;
  completionPerMTok: number;
}

/** The price of one role's model, as recorded in summary.json. */
export interface RolePrice {
  model: string;
  /** null: the model is in no table (cost null). */
  price: Price | null;
  /** The price file, or why the model is free. */
  source: string;
  note?: string;
}

export type RolePrices = Partial<Record<LedgerRole, RolePrice>>;

/** Cost of one role's tokens: 0 when it used none, null when they have no price. */
export function roleCost(b: { promptTokens: number; completionTokens: number; totalTokens: number }, price: RolePrice | undefined): number | null {
  if (b.totalTokens === 0 && b.promptTokens === 0 && b.completionTokens === 0) return 0;
  if (!price?.price) return null;
  return (b.promptTokens * price.price.promptPerMTok + b.completionTokens * price.price.completionPerMTok) / 1e6;
}
