/**
 * Reading finished (or interrupted) run folders back: the one place that knows the
 * layout `memrl run` writes (each file's schema: src/core/run-files/). Tables, reports,
 * exports and comparisons all start here.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import {
  NOT_RECORDED,
  OUTCOMES_FILE,
  readOutcomeRows,
  readRunJson,
  readSummaryJson,
  RUN_JSON_FILE,
  SUMMARY_FILE,
  type OutcomeRow,
  type RunJson,
  type RunState,
  type SummaryJson,
} from '../core/run-files/index.js';
import { summarize, type RunSummary } from '../metrics/summary.js';
import { UserError } from '../util/errors.js';
import { columnOf, definingSettings, experimentKey } from './experiment.js';
import { runStatusOf } from './run-status.js';
import { causeOf } from '../util/fs-errors.js';

export interface RunFolder {
  dir: string;
  /** Folder name, e.g. 20261122-063206-memrl-sim-s42-9c1e. */
  id: string;
  benchmark: string;
  /** Environment label (e.g. 'bigcodebench', later 'household-standin'). */
  env: string;
  /** Its table column: the benchmark, or benchmark-variant (LLB's llb-db and llb-os). */
  column: string;
  /** What makes runs the same experiment (only seeds of one experiment are pooled). */
  experiment: { key: string; settings: Record<string, string> };
  method: string;
  model: string;
  simulated: boolean;
  seed: number | null;
  split: string | null;
  /** The data releases it read (run.json's dataset.sources), e.g. 'v0.1.0_hf, MemRL@7c3beba'; null before memrl recorded them. */
  release: string | null;
  /** From the evidence in the folder (run-status.ts): running, interrupted, failed, complete. */
  status: RunState;
  /** Why, in words, for every status but complete (who runs it, how it stopped, the failure). */
  statusReason?: string;
  manifest: RunJson;
  summary: SummaryJson | null;
  rows: OutcomeRow[];
  /** Recomputed from the rows, so metric-code changes apply to old runs too. */
  metrics: RunSummary;
  trainTaskIds: string[];
  validTaskIds: string[];
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (err) {
    throw new UserError(`${path}: not readable JSON (${causeOf(err)})`);
  }
}

export function isRunFolder(dir: string): boolean {
  return existsSync(join(dir, RUN_JSON_FILE)) && existsSync(join(dir, OUTCOMES_FILE));
}

/** Read one run folder; a folder that is not one fails with a line saying what is missing. */
export function readRunFolder(dirIn: string): RunFolder {
  const dir = resolve(dirIn);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UserError(`${dirIn}: no such run folder`);
  if (!existsSync(join(dir, RUN_JSON_FILE))) {
    throw new UserError(`${dirIn}: not a memrl run folder (no run.json); point at a folder under results/<benchmark>/`);
  }
  const manifest = readRunJson(readJson(join(dir, RUN_JSON_FILE)), join(dir, RUN_JSON_FILE));
  if (!existsSync(join(dir, OUTCOMES_FILE))) throw new UserError(`${dirIn}: run folder has no outcomes.jsonl (the run never started an episode)`);
  const { rows } = readOutcomeRows(join(dir, OUTCOMES_FILE));
  const summary = existsSync(join(dir, SUMMARY_FILE)) ? readSummaryJson(readJson(join(dir, SUMMARY_FILE)), join(dir, SUMMARY_FILE)) : null;
  const { trainTaskIds, validTaskIds } = manifest;
  const hasValid = rows.some((r) => r.phase === 'valid');
  const metrics = summarize(rows, {
    trainTaskIds: trainTaskIds.length ? trainTaskIds : undefined,
    validTaskIds: hasValid && validTaskIds.length ? validTaskIds : undefined,
  });
  const releases = [...new Set(manifest.dataset.sources.map((s) => s.release).filter((r): r is string => typeof r === 'string'))];
  const { state: status, reason: statusReason } = runStatusOf(dir, summary, rows, trainTaskIds);
  const { benchmark, env } = manifest;
  const settings = definingSettings(manifest);
  return {
    dir,
    id: basename(dir),
    benchmark,
    env,
    column: columnOf(benchmark, env),
    experiment: { key: experimentKey(settings), settings },
    method: manifest.method,
    model: manifest.model,
    simulated: manifest.simulated || manifest.model === 'sim',
    seed: manifest.seed,
    split: manifest.dataset.split === NOT_RECORDED ? null : manifest.dataset.split,
    release: releases.length ? releases.join(', ') : null,
    status,
    ...(statusReason ? { statusReason } : {}),
    manifest,
    summary,
    rows,
    metrics,
    trainTaskIds,
    validTaskIds,
  };
}

/**
 * Every run folder at or below the given paths (a run folder itself, a benchmark
 * folder, or a whole results tree), sorted by path. Paths that hold none fail clearly.
 */
export function findRunFolders(paths: string[]): string[] {
  const found = new Set<string>();
  const walk = (dir: string, depth: number): void => {
    if (isRunFolder(dir)) {
      found.add(resolve(dir));
      return;
    }
    if (depth > 4) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && !entry.name.startsWith('.')) walk(join(dir, entry.name), depth + 1);
    }
  };
  for (const p of paths) {
    if (!existsSync(p)) throw new UserError(`${p}: no such file or folder`);
    const before = found.size;
    if (statSync(p).isDirectory()) walk(p, 0);
    if (found.size === before) throw new UserError(`${p}: holds no memrl run folder (a folder with run.json and outcomes.jsonl)`);
  }
  return [...found].sort();
}
