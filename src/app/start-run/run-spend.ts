/**
 * The run's budget: prices for its models, the meter that counts billed calls into
 * <runDir>/spend.json (spend so far comes back from it on resume), and the stop when a
 * limit is reached, like Ctrl-C. A limit that cannot be priced is refused up front.
 */
import { spendFile } from '../../core/run-files/index.js';
import { budgetStopLine, SpendMeter, unpricedForBudget, type BudgetHit } from '../../llm/budget.js';
import type { RolePrices } from '../../llm/cost.js';
import { loadPriceTable, pricesForRun } from '../../llm/prices.js';
import { UserError } from '../../util/errors.js';
import type { ResolvedRun, RunIo, RunOptions } from './types.js';

export function openSpend({ cfg, bench, runDir }: ResolvedRun, io: RunIo, sharedBudget: RunOptions['sharedBudget'], onStop: (hit: BudgetHit) => void): { prices: RolePrices; meter: SpendMeter } {
  const prices = pricesForRun(loadPriceTable(cfg.run.pricesFile), {
    agent: { provider: cfg.llm.provider, model: cfg.llm.model },
    ...(cfg.judge ? { judge: { provider: cfg.judge.provider, model: cfg.judge.model } } : {}),
    embedding: { provider: cfg.embedding.provider, model: cfg.embedding.model },
  });
  const limits = { usd: cfg.run.budgetUsd, tokens: cfg.run.budgetTokens };
  const unpriced = unpricedForBudget(limits, prices);
  if (unpriced.length) throw new UserError(`--budget-usd cannot be enforced: ${unpriced.join('; ')}`, 'budget_unpriced');
  const meter = new SpendMeter(
    spendFile(runDir),
    prices,
    limits,
    (hit) => {
      io.err(`\n${budgetStopLine(hit, bench.name, runDir)}\n`);
      onStop(hit);
    },
    sharedBudget ? () => sharedBudget.othersUsd() : undefined,
  );
  sharedBudget?.meter(meter);
  return { prices, meter };
}
