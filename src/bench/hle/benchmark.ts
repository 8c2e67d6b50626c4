/** HLE ready to run: questions from Parquet, one solver and one judge call per question. */
import { packNamespace } from '../../util/template.js';
import type { ResolvedConfig } from '../../config/types.js';
import type { Benchmark } from '../../core/benchmark.js';
import type { HleSettings } from './config.js';
import { loadHle, type HleLoadOptions, type HleTask } from './dataset.js';
import { runHleEpisode, type HleEpisodeOptions } from './episode.js';
import { hleSimPlayer } from './sim-player.js';

export interface HleBenchmarkOptions {
  load: HleLoadOptions;
  episode: Omit<HleEpisodeOptions, 'tasksById'>;
  /** Judge facts for the run manifest. */
  judge: { provider: string; model: string; temperature: number };
}

export function createHleBenchmark(opts: HleBenchmarkOptions): Benchmark<HleTask> {
  // Filled by load(): a retrieved memory shows its source question's image too.
  const tasksById = new Map<string, HleTask>();
  return {
    name: 'hle',
    envLabel: 'hle',
    load: async () => {
      const loaded = await loadHle(opts.load);
      for (const t of [...loaded.train, ...loaded.valid]) tasksById.set(t.id, t);
      return loaded;
    },
    episode: (task, ctx) => runHleEpisode(task, ctx, { ...opts.episode, tasksById }),
    simPlayer: (tasks) => hleSimPlayer(tasks),
    describeEvaluator: async () => ({ kind: 'llm-judge', judge: opts.judge }),
  };
}

/** The benchmark for one `memrl run hle`, from its resolved settings. */
export function createHleRun(s: HleSettings, cfg: ResolvedConfig<HleSettings>): Benchmark<HleTask> {
  return createHleBenchmark({
    load: {
      trainPath: s.trainPath,
      validPath: s.validPath,
      categories: s.categories,
      categoryRatio: s.categoryRatio,
      datasetRatio: s.datasetRatio,
      trainValidSplit: s.trainValidSplit,
      seed: cfg.run.seed,
      numTrain: s.numTrain,
      numValid: s.numValid,
      limit: cfg.run.limit,
    },
    episode: {
      temperature: cfg.llm.temperature,
      maxTokens: cfg.llm.maxTokens ?? undefined,
      judgeTemperature: s.judge.temperature,
      judgeMaxTokens: s.judge.maxTokens ?? undefined,
      promptDir: packNamespace(cfg.run.prompts, 'hle'),
    },
    judge: { provider: s.judge.provider, model: s.judge.model, temperature: s.judge.temperature },
  });
}
