/** BigCodeBench ready to run: tasks, episodes through the chosen evaluator, manifest facts. */
import { packNamespace } from '../../util/template.js';
import type { ResolvedConfig } from '../../config/types.js';
import type { Benchmark } from '../../core/benchmark.js';
import { REFERENCE_FIDELITY } from '../../util/fidelity.js';
import { SANITIZE_SWITCH, TIME_LIMIT_SWITCH } from './switches.js';
import { testTimeLimit } from './evaluate.js';
import { bcbModeOf, type BcbSettings } from './config.js';
import { loadBcb, type BcbLoadOptions, type BcbTask } from './dataset.js';
import { runBcbEpisode, type BcbEpisodeOptions } from './episode.js';
import { bcbSimPlayer } from './sim-player.js';
import { createBcbEvaluator, defaultDockerSettings, type BcbEvaluatorSettings } from './evaluator.js';
import { HEAVY_SETUP_COMMAND, heavySetupModules } from './heavy-libraries.js';

export interface BcbBenchmarkOptions {
  load: BcbLoadOptions;
  episode: BcbEpisodeOptions;
  /** Where the tests run (memrl.evaluator.backend); default: the local sandbox. */
  evaluator?: BcbEvaluatorSettings;
}

/** Tasks that need a library the sandbox lacks: they cannot pass whatever the model writes. */
export function blockedByMissingLibs(tasks: readonly BcbTask[], missingLibs: readonly string[]): { taskId: string; reason: string }[] {
  const missing = new Set(missingLibs);
  const heavy = heavySetupModules();
  return tasks.flatMap((t) => {
    const lacking = t.libs.filter((l) => missing.has(l));
    if (!lacking.length) return [];
    const installable = lacking.filter((l) => heavy.has(l));
    const fix = installable.length ? ` (${HEAVY_SETUP_COMMAND} installs ${installable.join(', ')})` : '';
    return [{ taskId: t.id, reason: `needs ${lacking.join(', ')}, not installed in the sandbox${fix}` }];
  });
}

export function createBcbBenchmark(opts: BcbBenchmarkOptions): Benchmark<BcbTask> {
  // The run's tasks, kept for the manifest's list of blocked tasks.
  let tasks: BcbTask[] = [];
  const evaluator = createBcbEvaluator(
    opts.evaluator ?? { backend: 'local', docker: defaultDockerSettings(), concurrency: 1, ...(opts.episode.eval.timeoutSec !== undefined ? { timeoutSec: opts.episode.eval.timeoutSec } : {}) },
  );
  return {
    name: 'bcb',
    envLabel: 'bigcodebench',
    load: async () => {
      const loaded = await loadBcb(opts.load);
      tasks = [...loaded.train, ...loaded.valid];
      return loaded;
    },
    episode: (task, ctx) => runBcbEpisode(task, ctx, opts.episode, evaluator),
    simPlayer: (tasks) => bcbSimPlayer(tasks),
    describeEvaluator: async () => {
      // The docker backend throws here (a UserError) when the engine or image is missing: the run stops before it starts.
      const facts = await evaluator.describe();
      const missing = Array.isArray(facts.missingLibs) ? (facts.missingLibs as string[]) : [];
      const sanitize = (opts.episode.fidelity ?? REFERENCE_FIDELITY).memrl(SANITIZE_SWITCH);
      return { mode: opts.episode.eval.mode, sanitize, ...facts, blockedTasks: blockedByMissingLibs(tasks, missing) };
    },
    close: () => evaluator.close(),
  };
}

/** The benchmark for one `memrl run bcb`, from its resolved settings. */
export function createBcbRun(s: BcbSettings, cfg: ResolvedConfig<BcbSettings>): Benchmark<BcbTask> {
  const opts = bcbRunOptions(s, cfg);
  const timeoutSec = opts.episode.eval.timeoutSec;
  return createBcbBenchmark({
    ...opts,
    evaluator: { backend: cfg.evaluator.backend, docker: cfg.evaluator.docker, concurrency: cfg.run.concurrency, timeoutSec, forkServer: cfg.evaluator.forkServer },
  });
}

/** What a `memrl run bcb` loads and how its episodes prompt and test (also what --dry-run reads). */
export function bcbRunOptions(s: BcbSettings, cfg: ResolvedConfig<BcbSettings>): Required<Pick<BcbBenchmarkOptions, 'load' | 'episode'>> {
  const timeoutSec = testTimeLimit(cfg.evaluator.evalTimeoutS, cfg.evaluator.hardTimeoutS, !cfg.fidelity.memrl(TIME_LIMIT_SWITCH));
  return {
    load: {
      dataPath: s.dataPath ?? undefined,
      splitFile: s.splitFile,
      subset: s.subset,
      split: s.split,
      trainRatio: s.trainRatio,
      seed: cfg.run.seed,
      limit: cfg.run.limit ?? undefined,
    },
    episode: {
      temperature: cfg.llm.temperature,
      maxTokens: cfg.llm.maxTokens ?? undefined,
      memoryBudgetChars: s.memoryBudget ?? undefined,
      promptDir: packNamespace(cfg.run.prompts, 'bcb'),
      eval: { mode: bcbModeOf(cfg.evaluator), timeoutSec },
      fidelity: cfg.fidelity,
    },
  };
}
