/**
 * `memrl sweep --budget-usd`: one limit on the whole sweep's spend, across its cells and
 * across attempts. What a cell has spent is its run folder's spend.json (every billed
 * call of every attempt) priced as its summary.json says; a cell running in this
 * process counts through its live meter. Each running cell's meter sees the others'
 * spend, so the call that reaches the limit stops its cell at once and every other
 * cell at its next billed call; no new cell starts once it is reached. Everything
 * stopped is resumable: the same command with a larger --budget-usd goes on.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LEDGER_ROLES, roleCost, type RolePrice } from '../llm/cost.js';
import { SPEND_FILE, type SpendMeter } from '../llm/budget.js';
import { loadPriceTable, priceOf } from '../llm/prices.js';
import type { Cell } from './plan.js';
import { cellRunDir } from './state.js';

function readJson(path: string): Record<string, any> | null {
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, any>;
  } catch {
    return null;
  }
}

/**
 * Dollars a run folder has spent: spend.json's tokens by role at the prices its
 * summary.json recorded (a run killed before writing one: its model at the built-in table).
 */
export function folderSpendUsd(runDir: string): number {
  const spend = readJson(join(runDir, SPEND_FILE))?.byRole as Record<string, { promptTokens: number; completionTokens: number; totalTokens: number }> | undefined;
  if (!spend) return 0;
  const recorded = readJson(join(runDir, 'summary.json'))?.usage?.prices as Record<string, RolePrice> | undefined;
  const manifest = recorded ? null : readJson(join(runDir, 'run.json'));
  const table = recorded ? null : loadPriceTable();
  let usd = 0;
  for (const role of LEDGER_ROLES) {
    const b = spend[role];
    if (!b || b.totalTokens + b.promptTokens + b.completionTokens === 0) continue;
    let price = recorded?.[role] ?? (role === 'memory' ? recorded?.agent : undefined);
    if (!price && table && manifest) {
      const model = role === 'embedding' ? manifest.config?.embedding?.model : role === 'judge' ? manifest.evaluator?.judge?.model : manifest.model;
      if (typeof model === 'string') price = priceOf(table, 'openai', model);
    }
    usd += roleCost(b, price) ?? 0;
  }
  return usd;
}

export class SweepBudget {
  private readonly live = new Map<string, SpendMeter>();

  constructor(
    readonly limitUsd: number,
    private readonly sweepDir: string,
    private readonly cells: readonly Cell[],
  ) {}

  /** A cell's run started in this process: its spend is read from its meter from now on. */
  running(cellId: string, meter: SpendMeter): void {
    this.live.set(cellId, meter);
  }

  /** Everything the sweep has spent, except `cellId`'s own (its meter adds that). */
  othersUsd(cellId?: string): number {
    let usd = 0;
    for (const cell of this.cells) {
      if (cell.id === cellId) continue;
      const meter = this.live.get(cell.id);
      if (meter) usd += meter.costUsd() ?? 0;
      else {
        const dir = cellRunDir(this.sweepDir, cell);
        if (dir) usd += folderSpendUsd(dir);
      }
    }
    return usd;
  }

  spentUsd(): number {
    return this.othersUsd();
  }

  reached(): boolean {
    return this.spentUsd() >= this.limitUsd;
  }

  /** The run options a cell gets: the sweep's limit as its own, the other cells' spend counted against it. */
  forCell(cellId: string): { othersUsd(): number; meter(m: SpendMeter): void } {
    return { othersUsd: () => this.othersUsd(cellId), meter: (m) => this.running(cellId, m) };
  }

  line(): string {
    return `sweep budget reached: $${this.spentUsd().toFixed(2)} of $${this.limitUsd} (--budget-usd) spent by its cells; the stopped and unstarted cells resume with the same command and a larger --budget-usd`;
  }
}
