/**
 * `memrl analyze`: every analysis that applies to each run, and those across the runs
 * given (a sweep). Each run's result goes to <run>/analysis.json, so tables, reports
 * and comparisons can read it without computing again.
 */
import { join } from 'node:path';
import type { Embedder } from '../embed/types.js';
import { findRunFolders, readRunFolder } from '../results/run-folder.js';
import { UserError } from '../util/errors.js';
import { writeJsonAtomic } from '../util/fs.js';
import { fsCause } from '../util/fs-errors.js';
import { ablations, noiseSurvival, similarityVsGain, type Ablation, type NoiseSurvival, type RunPoint, type SimilarityVsGain } from './cross-run.js';
import { lifelong, type Lifelong } from './lifelong.js';
import { memoryDynamics, type MemoryDynamics } from './memory-dynamics.js';
import { qCritic, type QCritic } from './q-critic.js';
import { NO_MEMORY_METHODS, runInputOf, type RunInput } from './run-input.js';
import { meanPairwiseCosine, taskKeys } from './similarity.js';

export const ANALYSIS_FILE = 'analysis.json';
export const ANALYSIS_VERSION = 1;

/** A section's value, or one line saying why it does not apply to this run. */
export type Section<T> = { value: T } | { notApplicable: string };

export interface RunAnalysis {
  version: number;
  run: { id: string; dir?: string; benchmark: string; column: string; method: string; seed: number | null; rewardNoise: number };
  lifelong: Lifelong;
  qCritic: Section<QCritic>;
  memory: Section<MemoryDynamics>;
  similarity: Section<{ tasks: number; meanPairwiseCosine: number | null }>;
}

export interface CrossRunAnalysis {
  runs: number;
  ablations: Ablation[];
  similarityVsGain: SimilarityVsGain;
  rewardNoise: NoiseSurvival[];
}

export interface AnalyzeOptions {
  /** Q above which a failure memory counts as "high-Q" (default 0.5). */
  highQ?: number;
  bootstrapIterations?: number;
  /** The embedder a run used, to embed its task keys again; a string says why there is none. */
  embedderFor?: (run: RunInput) => Embedder | string;
}

/** Every analysis of one run, the task similarity included (it embeds the task keys again). */
export async function analyzeRun(run: RunInput, opts: AnalyzeOptions = {}): Promise<RunAnalysis> {
  const a = analyzeRunWithoutEmbedding(run, opts);
  const keys = taskKeys(run.memories);
  if (keys.length >= 2) {
    const embedder = opts.embedderFor?.(run) ?? 'no embedder given';
    a.similarity = typeof embedder === 'string' ? { notApplicable: embedder } : { value: { tasks: keys.length, meanPairwiseCosine: await meanPairwiseCosine(embedder, keys) } };
  }
  return a;
}

/** The analyses that need no embedder (the report's fallback when a run has no analysis.json). */
export function analyzeRunWithoutEmbedding(run: RunInput, opts: Omit<AnalyzeOptions, 'embedderFor'> = {}): RunAnalysis {
  // A method that never keeps one (none, passk), or one that kept none in this run.
  const noMemory = NO_MEMORY_METHODS.has(run.method) ? `${run.method} keeps no memory` : `${run.method} kept no memory in this run (none written, none retrieved)`;
  const constantQ = `${run.method} ${run.ranksBySimilarity ? 'ranks memories by similarity and ' : ''}learned no Q in this run (no memory's Q changed): a constant Q predicts nothing`;
  const retrieved = run.rows.some((r) => r.retrievedIds.length > 0);
  const keys = taskKeys(run.memories);
  const similarity: RunAnalysis['similarity'] =
    keys.length >= 2
      ? { notApplicable: 'not computed here: `memrl analyze` embeds the task keys again' }
      : { notApplicable: run.keepsMemory ? 'fewer than 2 task keys in memories.jsonl' : `${noMemory}, so the run recorded no task keys (analyze a memory run of the same benchmark)` };
  return {
    version: ANALYSIS_VERSION,
    run: { id: run.id, benchmark: run.benchmark, column: run.column, method: run.method, seed: run.seed, rewardNoise: run.rewardNoise },
    lifelong: lifelong(run),
    qCritic: !run.keepsMemory
      ? { notApplicable: `${noMemory}: there is no Q to relate to success` }
      : !run.learnsQ
        ? { notApplicable: constantQ }
        : !retrieved
          ? { notApplicable: 'no episode injected a memory' }
          : { value: qCritic(run, { iterations: opts.bootstrapIterations ?? 1000, seed: run.seed ?? 0 }) },
    memory: !run.keepsMemory ? { notApplicable: `${noMemory}: nothing is added, retrieved or churned` } : { value: memoryDynamics(run, { highQ: opts.highQ ?? 0.5 }) },
    similarity,
  };
}

export function crossRun(points: readonly RunPoint[]): CrossRunAnalysis {
  return { runs: points.length, ablations: ablations(points), similarityVsGain: similarityVsGain(points), rewardNoise: noiseSurvival(points) };
}

export function pointOf(run: RunInput, a: RunAnalysis): RunPoint {
  return {
    id: run.id,
    column: run.column,
    method: run.method,
    seed: run.seed,
    lastAcc: a.lifelong.lastAcc,
    firstAcc: a.lifelong.firstAcc,
    params: run.params,
    rewardNoise: run.rewardNoise,
    similarity: 'value' in a.similarity ? a.similarity.value.meanPairwiseCosine : null,
  };
}

/** Share a task set's similarity with the runs of that column that have none (a `none` run records no task keys). */
export function shareSimilarity(points: RunPoint[]): void {
  const simOf = new Map<string, number>();
  for (const p of points) if (p.similarity !== null && !simOf.has(p.column)) simOf.set(p.column, p.similarity);
  for (const p of points) if (p.similarity === null && simOf.has(p.column)) p.similarity = simOf.get(p.column)!;
}

/** Analyze every run folder at or below the paths; write analysis.json into each. */
export async function analyzePaths(paths: string[], opts: AnalyzeOptions & { write?: boolean } = {}): Promise<{ runs: RunAnalysis[]; cross: CrossRunAnalysis }> {
  const runs: RunAnalysis[] = [];
  const points: RunPoint[] = [];
  for (const dir of findRunFolders(paths)) {
    const input = runInputOf(readRunFolder(dir));
    const a = await analyzeRun(input, opts);
    a.run.dir = dir;
    if (opts.write !== false) writeAnalysis(join(dir, ANALYSIS_FILE), a);
    runs.push(a);
    points.push(pointOf(input, a));
  }
  shareSimilarity(points);
  return { runs, cross: crossRun(points) };
}

/** analysis.json into its run folder; a folder that cannot take it (read-only, full) is one line saying how to analyze without writing. */
function writeAnalysis(file: string, a: RunAnalysis): void {
  try {
    writeJsonAtomic(file, a);
  } catch (err) {
    const cause = fsCause(err);
    if (cause === undefined) throw err;
    throw new UserError(`${file}: cannot write (${cause}); pass --no-write to analyze without writing into the run folders, or copy them somewhere writable`, 'analysis_unwritable');
  }
}
