/**
 * A sweep folder: sweep.json (the cells and how far each got) and one folder per cell
 * holding its config and its ordinary run folder:
 *
 *   <out>/<name>/sweep.json
 *   <out>/<name>/cells/<cell-id>/config.yaml
 *   <out>/<name>/cells/<cell-id>/<benchmark>/<run-id>/   (run.json, outcomes.jsonl, …)
 *
 * The run folders are the truth: sweep.json is a summary rewritten from them, so a
 * sweep killed at any point is read back correctly.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isRunFolder, readRunFolder } from '../results/run-folder.js';
import { UserError } from '../util/errors.js';
import { writeJsonAtomic } from '../util/fs.js';
import type { AxisValue, Cell } from './plan.js';
import { causeOf } from '../util/fs-errors.js';

export const SWEEP_FILE = 'sweep.json';

export type CellStatus = 'pending' | 'running' | 'complete' | 'interrupted' | 'failed' | 'error';

export interface CellState {
  id: string;
  benchmark: string;
  method: string | null;
  seed: number | null;
  values: Record<string, AxisValue>;
  status: CellStatus;
  /** The run folder, relative to the sweep folder. */
  runDir: string | null;
  epochsDone: number;
  epochsPlanned: number | null;
  last: number | null;
  /** Why the cell could not run (a bad config, a missing evaluator), or why its run failed. */
  error?: string;
  /** The worker that ran it (distributed mode). */
  worker?: string;
}

export interface SweepState {
  name: string;
  file: string;
  createdAt: string;
  updatedAt: string;
  cells: CellState[];
}

export const cellDir = (sweepDir: string, cellId: string): string => join(sweepDir, 'cells', cellId);

/** The cell's run folder (the newest if a failed start left several), or null. */
export function cellRunDir(sweepDir: string, cell: Pick<Cell, 'id' | 'benchmark'>): string | null {
  const dir = join(cellDir(sweepDir, cell.id), cell.benchmark);
  if (!existsSync(dir)) return null;
  const runs = readdirSync(dir)
    .map((d) => join(dir, d))
    .filter(isRunFolder)
    .sort();
  return runs.at(-1) ?? null;
}

/** What the cell's run folder says about it. */
export function cellFromDisk(sweepDir: string, cell: Omit<Cell, 'config'>, previous?: CellState): CellState {
  const base = { id: cell.id, benchmark: cell.benchmark, method: cell.method, seed: cell.seed, values: cell.values };
  const runDir = cellRunDir(sweepDir, cell);
  if (!runDir) {
    // A cell that could not start keeps its reason until it runs.
    const keep = previous?.status === 'error' ? { status: 'error' as const, error: previous.error } : { status: 'pending' as const };
    return { ...base, ...keep, runDir: null, epochsDone: 0, epochsPlanned: null, last: null };
  }
  const run = readRunFolder(runDir);
  const planned = typeof run.manifest.epochs === 'number' ? run.manifest.epochs : null;
  // The run folder's state as every reader sees it (results/run-status.ts); a failure's reason with it.
  const failure = run.status === 'failed' ? run.statusReason : undefined;
  return {
    ...base,
    status: run.status,
    runDir: relative(sweepDir, runDir),
    epochsDone: run.metrics.train.epochs.length,
    epochsPlanned: planned,
    last: run.metrics.train.last,
    ...(failure ? { error: failure } : {}),
    ...(previous?.worker ? { worker: previous.worker } : {}),
  };
}

/**
 * sweep.json with every cell's state read again from its run folder: what a process
 * wrote there may be stale (a sweep or worker killed while its cells ran). A cell
 * without a run folder is pending, or keeps the reason it could not start.
 */
export function sweepStateFromDisk(sweepDir: string): SweepState {
  const state = readSweepState(sweepDir);
  const cells = state.cells.map((c) => {
    const now = cellFromDisk(sweepDir, c, c);
    // A cell that could not start (a resume refused, a missing evaluator) keeps its reason until it runs again.
    return c.status === 'error' && now.status !== 'running' && now.status !== 'complete' ? { ...now, status: 'error' as const, error: c.error } : now;
  });
  return { ...state, cells };
}

export function readSweepState(sweepDir: string): SweepState {
  const path = join(sweepDir, SWEEP_FILE);
  if (!existsSync(path)) throw new UserError(`${sweepDir}: not a sweep folder (no ${SWEEP_FILE}); memrl sweep <sweep.yaml> makes one`, 'not_a_sweep');
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as SweepState;
  } catch (err) {
    throw new UserError(`${path}: not readable JSON (${causeOf(err)})`);
  }
}

export function writeSweepState(sweepDir: string, state: SweepState): void {
  writeJsonAtomic(join(sweepDir, SWEEP_FILE), { ...state, updatedAt: new Date().toISOString() });
}
