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
import { readRunJson, readSummaryJson, RUN_JSON_FILE, spendFile, SUMMARY_FILE, type RunJson, type SummaryJson } from '../core/run-files/index.js';
import { LEDGER_ROLES, roleCost, type RolePrice } from '../llm/cost.js';
import type { SpendMeter } from '../llm/budget.js';
import { loadPriceTable, priceOf } from '../llm/prices.js';
import type { Cell } from './plan.js';
import { cellRunDir } from './state.js';

/** A run file read with its schema, or null when it is not there (yet). */
function readIfThere<T>(runDir: string, name: string, read: (value: unknown, file: string) => T): T | null {
  const file = join(runDir, name);
  return existsSync(file) ? read(JSON.parse(readFileSync(file, 'utf8')), file) : null;
}

/** The model a role was billed for, from run.json (a run killed before its summary.json). */
function modelOf(manifest: RunJson, role: string): unknown {
  if (role === 'embedding') return (manifest.config?.embedding as { model?: unknown } | undefined)?.model;
  if (role === 'judge') return (manifest.evaluator.judge as { model?: unknown } | undefined)?.model;
  return manifest.model;
}

/**
 * Dollars a run folder has spent: spend.json's tokens by role at the prices its
 * summary.json recorded (a run killed before writing one: its model at the built-in table).
 */
export function folderSpendUsd(runDir: string): number {
  const spend = spendFile(runDir).load();
  const recorded: SummaryJson['usage']['prices'] = readIfThere(runDir, SUMMARY_FILE, readSummaryJson)?.usage.prices;
  const manifest = recorded ? null : readIfThere(runDir, RUN_JSON_FILE, readRunJson);
  const table = recorded ? null : loadPriceTable();
  let usd = 0;
  for (const role of LEDGER_ROLES) {
    const b = spend[role];
    if (!b || b.totalTokens + b.promptTokens + b.completionTokens === 0) continue;
    let price: RolePrice | undefined = recorded?.[role] ?? (role === 'memory' ? recorded?.agent : undefined);
    if (!price && table && manifest) {
      const model = modelOf(manifest, role);
      if (typeof model === 'string') price = priceOf(table, 'openai', model);
    }
    usd += roleCost(b, price) ?? 0;
  }
  return usd;
}

export class SweepBudget {
  private readonly live = new Map<string, SpendMeter>();
  private readonly earlier = new Map<string, number>();

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
      usd += meter ? (meter.costUsd() ?? 0) : this.earlierUsd(cell);
    }
    return usd;
  }

  /**
   * What a cell that is not running here spent before (a finished or stopped earlier
   * attempt), read from its folder once: it cannot change until the cell runs here, and
   * then its meter counts. This is asked after every billed call of every running cell.
   */
  private earlierUsd(cell: Cell): number {
    let usd = this.earlier.get(cell.id);
    if (usd === undefined) {
      const dir = cellRunDir(this.sweepDir, cell);
      usd = dir ? folderSpendUsd(dir) : 0;
      this.earlier.set(cell.id, usd);
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
