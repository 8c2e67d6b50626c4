/**
 * Local mode: the unfinished cells of a sweep run in this process, up to `maxRuns` at
 * once, all sharing one budget of episodes in flight (model calls and sandboxes). A
 * cell with a run folder is resumed from it; a finished one is never run again.
 */
import { startRun, type RunHandle } from '../app/start-run.js';
import type { Registry } from '../app/registry.js';
import type { FlagValues } from '../config/flags.js';
import { errorMessage } from '../util/errors.js';
import { mapPool } from '../util/pool.js';
import { Slots } from '../util/slots.js';
import type { Cell } from './plan.js';
import type { SweepBudget } from './budget.js';
import { cellConfigPath, type OpenSweep } from './prepare.js';
import { cellDir, cellFromDisk, cellRunDir, writeSweepState, type CellState } from './state.js';

export interface LocalSweepOptions {
  maxRuns: number;
  /** Episodes in flight across all running cells. */
  concurrency: number;
  registry: Registry;
  /** Terminal lines, already prefixed with the cell id. */
  err(text: string): void;
  signal?: AbortSignal;
  /** One --budget-usd over the whole sweep (budget.ts): no cell starts once it is reached. */
  budget?: SweepBudget;
}

export const isDone = (c: CellState): boolean => c.status === 'complete';

/** The flags that start a cell's run, or resume it. */
export function cellFlags(sweepDir: string, cell: Pick<Cell, 'id' | 'benchmark'>): FlagValues {
  const existing = cellRunDir(sweepDir, cell);
  return existing ? { resume: existing } : { config: cellConfigPath(sweepDir, cell.id), outputDir: cellDir(sweepDir, cell.id) };
}

export async function runSweepLocally(sweep: OpenSweep, opts: LocalSweepOptions): Promise<CellState[]> {
  const slots = new Slots(opts.concurrency);
  const handles = new Set<RunHandle>();
  const onAbort = (): void => {
    for (const h of handles) h.stop();
  };
  opts.signal?.addEventListener('abort', onAbort);
  const states = new Map(sweep.state.cells.map((c) => [c.id, c]));
  const save = (): void => writeSweepState(sweep.dir, { ...sweep.state, cells: sweep.cells.map((c) => states.get(c.id)!) });
  const todo = sweep.cells.filter((c) => !isDone(states.get(c.id)!));
  try {
    await mapPool(todo, opts.maxRuns, async (cell) => {
      if (opts.signal?.aborted || opts.budget?.reached()) return;
      const prefix = `[${cell.id}] `;
      const err = (text: string): void => opts.err(text.replace(/^(?=.)/gm, prefix));
      try {
        const handle = await startRun(
          {
            benchmark: cell.benchmark,
            flags: { ...cellFlags(sweep.dir, cell), ...(opts.budget ? { budgetUsd: opts.budget.limitUsd } : {}) },
            registry: opts.registry,
            command: ['sweep', sweep.spec.file, cell.id],
            episodeSlots: slots,
            ...(opts.budget ? { sharedBudget: opts.budget.forCell(cell.id) } : {}),
          },
          { err, tty: false },
        );
        handles.add(handle);
        states.set(cell.id, { ...states.get(cell.id)!, status: 'running', error: undefined });
        save();
        try {
          const end = await handle.done;
          const failure = end.result?.failure;
          states.set(cell.id, { ...cellFromDisk(sweep.dir, cell), ...(failure ? { status: 'failed' as const, error: failure } : {}) });
        } finally {
          handles.delete(handle);
        }
      } catch (e) {
        // One cell that cannot start (a missing evaluator, a bad key) does not stop the others.
        states.set(cell.id, { ...cellFromDisk(sweep.dir, cell), status: 'error', error: errorMessage(e) });
        err(`cannot run: ${errorMessage(e)}\n`);
      }
      save();
    });
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    save();
  }
  return sweep.cells.map((c) => states.get(c.id)!);
}
