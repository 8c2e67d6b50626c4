/**
 * Like with like: numbers from different benchmarks, data splits or methods, or a
 * simulated model against a real one, answer different questions, so comparing them
 * is refused unless --force. Other differences (model name, seed, epochs, status)
 * are allowed and reported as notes, since comparing them is often the point.
 */
import type { LoadedRun } from './run-data.js';

export interface CompatReport {
  /** Reasons to refuse (without --force). */
  mismatches: string[];
  /** Worth saying, never a reason to refuse. */
  notes: string[];
}

type Field = 'benchmark' | 'split' | 'method' | 'simulated';

const FIELDS: Field[] = ['benchmark', 'split', 'method', 'simulated'];

function show(field: Field, v: unknown): string {
  if (field === 'simulated') return v ? 'the sim model' : 'a real model';
  return String(v);
}

function distinct(runs: LoadedRun[], field: Field): unknown[] {
  const vals = runs.map((r) => r.data[field]).filter((v) => v !== null);
  return [...new Set(vals)];
}

/** Runs pooled on one side (several seeds) must be one experiment. */
export function sideMismatches(runs: LoadedRun[], side: string): string[] {
  const out: string[] = [];
  for (const field of FIELDS) {
    const vals = distinct(runs, field);
    if (vals.length > 1) out.push(`${side} runs mix ${field} (${vals.map((v) => show(field, v)).join(' / ')})`);
  }
  return out;
}

export function checkCompatible(baseline: LoadedRun[], candidate: LoadedRun[]): CompatReport {
  const mismatches = [...sideMismatches(baseline, 'baseline'), ...sideMismatches(candidate, 'candidate')];
  const notes: string[] = [];
  for (const field of FIELDS) {
    const b = distinct(baseline, field);
    const c = distinct(candidate, field);
    if (b.length === 1 && c.length === 1 && b[0] !== c[0]) {
      mismatches.push(`${field} differs (baseline ${show(field, b[0])}, candidate ${show(field, c[0])})`);
    }
    if (field === 'split' && (b.length === 0 || c.length === 0)) {
      notes.push('split not checked: a summary.json does not record it (compare run folders or a saved baseline to check it)');
    }
  }
  const models = (runs: LoadedRun[]): string => [...new Set(runs.map((r) => r.data.model))].join(' / ');
  if (models(baseline) !== models(candidate)) notes.push(`model differs: baseline ${models(baseline)}, candidate ${models(candidate)}`);
  const evaluators = (runs: LoadedRun[]): string => [...new Set(runs.map((r) => r.data.evaluator).filter((e): e is string => !!e))].join(' / ');
  const [be, ce] = [evaluators(baseline), evaluators(candidate)];
  if (be && ce && be !== ce) notes.push(`evaluator differs (baseline ${be}, candidate ${ce}): the same code can get different verdicts`);
  for (const [side, runs] of [['baseline', baseline], ['candidate', candidate]] as const) {
    for (const r of runs) {
      // A failed run's numbers describe its fault (an endpoint, an evaluator), not the method.
      const why = r.data.statusReason ? `: ${r.data.statusReason}` : '';
      if (r.data.status === 'failed') mismatches.push(`${side} run ${r.data.id} failed (${r.data.statusReason ?? 'it ended by an error'}); resume it once the cause is fixed`);
      else if (r.data.status === 'running') mismatches.push(`${side} run ${r.data.id} is still running (${r.data.statusReason ?? 'its lock is held'}); compare it once it has finished`);
      // A run stopped midway (Ctrl-C, a kill, a crash) has partial numbers: a "regression" against it would be false.
      else if (r.data.status !== 'complete') mismatches.push(`${side} run ${r.data.id} is not complete (${r.data.status}${why}); ${finishHint(r)}`);
    }
  }
  return { mismatches, notes };
}

function finishHint(r: LoadedRun): string {
  return r.kind === 'run-folder' ? `finish it first: memrl run ${r.data.benchmark} --resume ${r.source}` : 'compare finished runs';
}
