/**
 * Turning the paths given to `memrl compare` into runs. A path may be
 *   - a run folder, or a folder holding several (results/bcb/, a CI output dir);
 *   - a baseline file written by --save-baseline (one or more runs);
 *   - a summary.json written by a run (metrics only: no per-task outcomes). When it
 *     (or run.json, outcomes.jsonl) sits in its run folder, the folder is read instead,
 *     which adds the per-task data.
 * Anything unreadable is a UserError (exit 2) naming the path.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { readSummaryJson } from '../core/run-files/index.js';
import { findRunFolders, isRunFolder, readRunFolder } from '../results/run-folder.js';
import { UserError } from '../util/errors.js';
import { isBaselineJson, parseBaseline } from './baseline-file.js';
import { runDataFromFolder, runDataFromSummary, type LoadedRun } from './run-data.js';
import { causeOf } from '../util/fs-errors.js';

export function loadRuns(paths: readonly string[], side: string): LoadedRun[] {
  if (paths.length === 0) throw new UserError(`no ${side} given; usage: memrl compare <baseline> <candidate...>`);
  const out: LoadedRun[] = [];
  const seen = new Set<string>();
  const add = (run: LoadedRun, key: string): void => {
    if (seen.has(key)) return; // the same folder named twice (a glob and its parent) counts once
    seen.add(key);
    out.push(run);
  };
  for (const p of paths) {
    if (!existsSync(p)) throw new UserError(`${side} ${p}: no such file or folder`);
    if (statSync(p).isDirectory()) {
      for (const dir of guard(p, () => findRunFolders([p]))) add(readFolder(dir), dir);
      continue;
    }
    const abs = resolve(p);
    if (RUN_FILES.has(basename(abs)) && isRunFolder(dirname(abs))) {
      add(readFolder(dirname(abs)), dirname(abs));
      continue;
    }
    const json = guard(p, () => JSON.parse(readFileSync(p, 'utf8')) as unknown);
    if (isBaselineJson(json)) {
      parseBaseline(json, p).forEach((data, i) => add({ data, source: p, kind: 'baseline' }, `${abs}#${i}`));
    } else if (isSummaryJson(json)) {
      add({ data: runDataFromSummary(guard(p, () => readSummaryJson(json, p)), basename(dirname(abs))), source: p, kind: 'summary' }, abs);
    } else {
      throw new UserError(`${side} ${p}: not a memrl run folder, summary.json or baseline file (no metrics.train, no memrlBaseline)`);
    }
  }
  return out;
}

/** A file of a run folder stands for its folder (which has the per-task outcomes). */
const RUN_FILES = new Set(['summary.json', 'run.json', 'metrics.json', 'outcomes.jsonl']);

/** Shaped like a summary.json (its own schema then reads it, or names what is wrong). */
function isSummaryJson(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const m = (v as { metrics?: { train?: { epochs?: unknown } } }).metrics;
  return Array.isArray(m?.train?.epochs);
}

function readFolder(dir: string): LoadedRun {
  return { data: guard(dir, () => runDataFromFolder(readRunFolder(dir))), source: dir, kind: 'run-folder' };
}

/** Reading errors that are not already user errors (a bad row, bad JSON) still name the path and exit 2. */
function guard<T>(path: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof UserError) throw new UserError(err.message);
    throw new UserError(`${path}: cannot read (${causeOf(err)})`);
  }
}
