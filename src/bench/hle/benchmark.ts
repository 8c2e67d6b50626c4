/** HLE ready to run: questions from Parquet, one solver and one judge call per question. */
import { packNamespace } from '../../util/template.js';
import type { ResolvedConfig } from '../../config/types.js';
import type { Benchmark } from '../../core/benchmark.js';
import type { HleSettings } from './config.js';
import { loadHle, type HleLoadOptions, type HleTask } from './dataset.js';
import type { Fidelity } from '../../util/fidelity.js';
import { CATEGORY_DEFAULTS_SWITCH, REFERENCE_DEFAULT_CATEGORIES, ROUND_ROBIN_SWITCH, SELECTION_COUNTS_SWITCH } from './switches.js';
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

/**
 * The category filter and ratio a run uses. The reference's run_hle.py never reads
 * them from its YAML: its command-line defaults (the eight HLE categories, ratio 1.0)
 * always apply unless the flags are given.
 */
export function hleCategorySelection(s: HleSettings, fidelity: Fidelity): Pick<HleLoadOptions, 'categories' | 'categoryRatio' | 'defaultCategories'> {
  if (fidelity.memrl(CATEGORY_DEFAULTS_SWITCH)) return { categories: s.categories, categoryRatio: s.categoryRatio, defaultCategories: null };
  return {
    categories: s.fromFlags.categories ? s.categories : null,
    categoryRatio: s.fromFlags.categoryRatio ? s.categoryRatio : 1,
    defaultCategories: REFERENCE_DEFAULT_CATEGORIES,
  };
}

/** The benchmark for one `memrl run hle`, from its resolved settings. */
export function createHleRun(s: HleSettings, cfg: ResolvedConfig<HleSettings>): Benchmark<HleTask> {
  return createHleBenchmark(hleRunOptions(s, cfg));
}

/** What a `memrl run hle` loads, how it prompts and judges (also what --dry-run reads). */
export function hleRunOptions(s: HleSettings, cfg: ResolvedConfig<HleSettings>): HleBenchmarkOptions {
  return {
    load: {
      trainPath: s.trainPath,
      validPath: s.validPath,
      ...hleCategorySelection(s, cfg.fidelity),
      order: cfg.fidelity.memrl(ROUND_ROBIN_SWITCH) ? 'round-robin' : 'concatenate',
      counts: cfg.fidelity.memrl(SELECTION_COUNTS_SWITCH) ? 'round' : 'floor',
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
      fidelity: cfg.fidelity,
    },
    judge: { provider: s.judge.provider, model: s.judge.model, temperature: s.judge.temperature },
  };
}
