/**
 * Reading finished (or interrupted) run folders back: the one place that knows the
 * layout `memrl run` writes (see src/runner/run-files.ts). Tables, reports, exports
 * and comparisons all start here.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { describeSchemaError, RunManifestSchema, RunSummaryFileSchema } from '../core/run-files.js';
import type { OutcomeRow } from '../metrics/outcome-row.js';
import { readOutcomeRows } from '../metrics/outcome-store.js';
import { summarize, type RunSummary } from '../metrics/summary.js';
import { UserError } from '../util/errors.js';
import { columnOf, definingSettings, experimentKey } from './experiment.js';

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
  /** failed: stopped by too many error episodes; running: no summary yet (still running, or killed). */
  status: 'complete' | 'interrupted' | 'failed' | 'running';
  manifest: Record<string, unknown>;
  summary: Record<string, unknown> | null;
  rows: OutcomeRow[];
  /** Recomputed from the rows, so metric-code changes apply to old runs too. */
  metrics: RunSummary;
  trainTaskIds: string[];
  validTaskIds: string[];
}

function readJson(path: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new UserError(`${path}: not readable JSON (${err instanceof Error ? err.message : String(err)})`);
  }
}

export function isRunFolder(dir: string): boolean {
  return existsSync(join(dir, 'run.json')) && existsSync(join(dir, 'outcomes.jsonl'));
}

/** Read one run folder; a folder that is not one fails with a line saying what is missing. */
export function readRunFolder(dirIn: string): RunFolder {
  const dir = resolve(dirIn);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UserError(`${dirIn}: no such run folder`);
  if (!existsSync(join(dir, 'run.json'))) {
    throw new UserError(`${dirIn}: not a memrl run folder (no run.json); point at a folder under results/<benchmark>/`);
  }
  const manifest = parseWith(RunManifestSchema, join(dir, 'run.json'));
  if (!existsSync(join(dir, 'outcomes.jsonl'))) throw new UserError(`${dirIn}: run folder has no outcomes.jsonl (the run never started an episode)`);
  const { rows } = readOutcomeRows(join(dir, 'outcomes.jsonl'));
  const summary = existsSync(join(dir, 'summary.json')) ? parseWith(RunSummaryFileSchema, join(dir, 'summary.json')) : null;
  const trainTaskIds = stringArray(manifest.trainTaskIds);
  const validTaskIds = stringArray(manifest.validTaskIds);
  const hasValid = rows.some((r) => r.phase === 'valid');
  const metrics = summarize(rows, {
    trainTaskIds: trainTaskIds.length ? trainTaskIds : undefined,
    validTaskIds: hasValid && validTaskIds.length ? validTaskIds : undefined,
  });
  const dataset = (manifest.dataset ?? {}) as { split?: unknown; sources?: { release?: unknown }[] };
  const releases = [...new Set((dataset.sources ?? []).map((s) => s.release).filter((r): r is string => typeof r === 'string'))];
  const status = (summary?.status as RunFolder['status'] | undefined) ?? 'running';
  const benchmark = String(manifest.benchmark ?? rows[0]?.benchmark ?? 'unknown');
  const env = String(manifest.env ?? manifest.benchmark ?? 'unknown');
  const settings = definingSettings(manifest);
  return {
    dir,
    id: basename(dir),
    benchmark,
    env,
    column: columnOf(benchmark, env),
    experiment: { key: experimentKey(settings), settings },
    method: String(manifest.method ?? 'unknown'),
    model: String(manifest.model ?? 'unknown'),
    simulated: manifest.simulated === true || manifest.model === 'sim',
    seed: typeof manifest.seed === 'number' ? manifest.seed : null,
    split: typeof dataset.split === 'string' ? dataset.split : null,
    release: releases.length ? releases.join(', ') : null,
    status,
    manifest,
    summary,
    rows,
    metrics,
    trainTaskIds,
    validTaskIds,
  };
}

/** A run file read through its schema (shared with the writers): a field of the wrong type is one line naming it. */
function parseWith<S extends typeof RunManifestSchema | typeof RunSummaryFileSchema>(schema: S, path: string): Record<string, unknown> {
  const parsed = schema.safeParse(readJson(path));
  if (!parsed.success) throw new UserError(`${describeSchemaError(path, parsed.error)}; this run folder was not written by memrl, or was edited`, 'run_file_invalid');
  return parsed.data as Record<string, unknown>;
}

function stringArray(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
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
