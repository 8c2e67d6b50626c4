/**
 * Result folders for the report tests, made by the real runner (real memory engine,
 * sim model) on the toy benchmark, renamed so runs land in the paper's columns.
 * The sim model is deterministic, so these folders' numbers are stable.
 */
import { join } from 'node:path';
import pino from 'pino';
import { LocalNgramEmbedder } from '../../src/embed/local.js';
import { SimChatModel } from '../../src/llm/sim/model.js';
import { defaultMemoryParams } from '../../src/memory/params.js';
import { runBenchmark } from '../../src/runner/run.js';
import { toyBenchmark } from '../helpers/toy-benchmark.js';

export interface FixtureRun {
  benchmark: string;
  method: string;
  seed: number;
  /** Environment label in run.json (e.g. 'household-standin'). */
  env?: string;
  epochs?: number;
  train?: number;
  valid?: number;
  /** Abort the run when this epoch starts (an interrupted run). */
  interruptAtEpoch?: number;
}

export async function makeRun(dir: string, r: FixtureRun): Promise<string> {
  const abort = new AbortController();
  const toy = toyBenchmark({
    train: r.train ?? 12,
    valid: r.valid ?? 0,
    onEpisode: (_t, epoch) => {
      if (r.interruptAtEpoch !== undefined && epoch >= r.interruptAtEpoch) abort.abort();
    },
  });
  await runBenchmark({
    benchmark: { ...toy, name: r.benchmark, envLabel: r.env ?? toy.envLabel },
    method: { module: r.method, memoryParams: defaultMemoryParams({ simNormMean: 0.6, simNormStd: 0.15, epsilon: 0.2, simThreshold: 0.3 }), buildStrategy: 'proceduralization' },
    schedule: { epochs: r.epochs ?? 3, batchSize: 4, concurrency: 1, seed: r.seed },
    validation: { run: (r.valid ?? 0) > 0, beforeTraining: false },
    models: { agent: (player) => new SimChatModel({ seed: r.seed, players: { toy: player } }), embedder: new LocalNgramEmbedder() },
    folder: { dir, resume: false, manifest: {} },
    stops: { signal: abort.signal },
    log: pino({ level: 'silent' }),
  });
  return dir;
}

export const GOLDEN_METHODS: string[] = ['none', 'rag', 'memp', 'memrl'];
export const GOLDEN_SEEDS = [1, 2, 3];

/**
 * The golden set: BigCodeBench-named runs with 3 seeds per method and HLE-named runs
 * with one seed, under root/<benchmark>/<method>-s<seed>.
 */
export async function buildGoldenSet(root: string): Promise<void> {
  for (const method of GOLDEN_METHODS) {
    for (const seed of GOLDEN_SEEDS) await makeRun(join(root, 'bcb', `${method}-s${seed}`), { benchmark: 'bcb', method, seed });
    await makeRun(join(root, 'hle', `${method}-s1`), { benchmark: 'hle', method, seed: 1 });
  }
}
