/**
 * Token usage as the run files record it (summary.json `usage`, checkpoint.json
 * `ledger`, each journal entry's `usage`): the usage ledger's snapshot. The ledger
 * lives below core (src/llm); its types are checked equal to these schemas.
 */
import { z } from 'zod';
import type { BudgetHit, SpendBucket, SpendReport } from '../../llm/budget.js';
import type { LedgerBucket, LedgerSnapshot, Reported } from '../../llm/ledger.js';
import type { RolePrice } from '../../llm/cost.js';
import type { Same } from './format.js';

const count = z.number().int().nonnegative();
const cost = z.number().nullable();

export const LedgerBucketSchema = z
  .object({ calls: count, cachedCalls: count, promptTokens: count, completionTokens: count, totalTokens: count, cachedTokens: count })
  .strict();

const pricedBucket = LedgerBucketSchema.extend({ costUsd: cost.optional() }).strict();

const perRole = <T extends z.ZodTypeAny>(value: T) => z.object({ agent: value, judge: value, memory: value, embedding: value }).strict();
const somePerRole = <T extends z.ZodTypeAny>(value: T) => z.object({ agent: value, judge: value, memory: value, embedding: value }).partial().strict();

export const RolePriceSchema = z
  .object({
    model: z.string(),
    price: z.object({ promptPerMTok: z.number(), completionPerMTok: z.number() }).strict().nullable(),
    source: z.string(),
    note: z.string().optional(),
  })
  .strict();

const ReportedSchema = z.object({ models: z.array(z.string()), systemFingerprints: z.array(z.string()) }).strict();

export const SpendBucketSchema = z.object({ calls: count, promptTokens: count, completionTokens: count, totalTokens: count }).strict();

const BudgetHitSchema = z
  .object({ kind: z.enum(['usd', 'tokens']), flag: z.enum(['--budget-usd', '--budget-tokens']), spent: z.number(), limit: z.number() })
  .strict();

export const SpendReportSchema = z
  .object({
    byRole: perRole(SpendBucketSchema.extend({ costUsd: cost }).strict()),
    tokens: count,
    costUsd: cost,
    limits: z.object({ usd: z.number().nullable(), tokens: z.number().nullable() }).strict(),
    reached: BudgetHitSchema.nullable(),
  })
  .strict();

export const LedgerSnapshotSchema = z
  .object({
    byRole: perRole(pricedBucket),
    total: pricedBucket,
    costUsd: cost,
    prices: somePerRole(RolePriceSchema).optional(),
    notes: z.array(z.string()).optional(),
    reported: somePerRole(ReportedSchema).optional(),
    spend: SpendReportSchema.optional(),
  })
  .strict();

export type Usage = z.infer<typeof LedgerSnapshotSchema>;

const checks: [
  Same<z.infer<typeof LedgerBucketSchema>, LedgerBucket>,
  Same<Usage, LedgerSnapshot>,
  Same<z.infer<typeof RolePriceSchema>, RolePrice>,
  Same<z.infer<typeof ReportedSchema>, Reported>,
  Same<z.infer<typeof SpendBucketSchema>, SpendBucket>,
  Same<z.infer<typeof SpendReportSchema>, SpendReport>,
  Same<z.infer<typeof BudgetHitSchema>, BudgetHit>,
] = [true, true, true, true, true, true, true];
void checks;
