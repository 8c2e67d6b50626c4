/** LifelongAgentBench ready to run: db episodes on a SQL server, os episodes in a root shell. */
import { packNamespace } from '../../util/template.js';
import { basename } from 'node:path';
import type { ResolvedConfig } from '../../config/types.js';
import type { Benchmark, LoadedTasks } from '../../core/benchmark.js';
import type { LlbSettings } from './config.js';
import { loadLlbFile, type LlbTask, type LlbTaskKind } from './dataset.js';
import { DB_STATEMENT_TIMEOUT_S } from './db-env.js';
import { runDbEpisode, runOsEpisode, type LlbEpisodeOptions } from './episode.js';
import { openDbBackend, openOsBackend, type LlbDbBackend, type LlbEvaluatorOptions, type LlbOsBackend } from './evaluator.js';
import { PyRandom } from '../../util/python/random.js';
import { llbSimPlayer } from './sim-player.js';

export interface LlbBenchmarkOptions {
  task: LlbTaskKind;
  splitFile: string;
  validFile: string;
  validate: boolean;
  limit?: number | null;
  /** experiment.dataset_ratio (default 1: every task). */
  datasetRatio?: number;
  /** experiment.random_seed, for the dataset_ratio sample. */
  seed?: number;
  episode: LlbEpisodeOptions;
  /** Where tasks run (default: local). */
  evaluator?: LlbEvaluatorOptions;
}

/**
 * Train (and validation) tasks in string order of the sample index. Below a
 * dataset_ratio of 1 the training tasks are Python's random.seed(seed);
 * random.sample(keys, int(n · ratio)), in the order drawn (memrl/run/llb_rl_runner.py:
 * LLBRunner._split_dataset); then `limit` keeps the first N of each set.
 */
export function loadLlbTasks(opts: Pick<LlbBenchmarkOptions, 'task' | 'splitFile' | 'validFile' | 'validate' | 'limit' | 'datasetRatio' | 'seed'>): LoadedTasks<LlbTask> {
  const train = loadLlbFile(opts.splitFile, opts.task);
  const valid = opts.validate ? loadLlbFile(opts.validFile, opts.task) : null;
  const cut = <T>(xs: T[]) => (opts.limit ? xs.slice(0, opts.limit) : xs);
  const ratio = opts.datasetRatio ?? 1;
  const sampled = ratio < 1 ? new PyRandom(opts.seed ?? 42).sample(train.tasks, Math.floor(train.tasks.length * ratio)) : train.tasks;
  const trainTasks = cut(sampled);
  const validTasks = valid ? cut(valid.tasks) : [];
  return {
    train: trainTasks,
    valid: validTasks,
    sources: [train, ...(valid ? [valid] : [])].map((f) => ({ path: f.path, sha256: f.sha256 })),
    splitLabel: `${opts.task}: ${basename(opts.splitFile)}${ratio < 1 ? ` ratio ${ratio} seed ${opts.seed ?? 42}` : ''} (${trainTasks.length})${valid ? ` / ${basename(opts.validFile)} (${validTasks.length})` : ''}`,
  };
}

export function createLlbBenchmark(opts: LlbBenchmarkOptions): Benchmark<LlbTask> {
  const evaluator: LlbEvaluatorOptions = opts.evaluator ?? { backend: 'local', concurrency: 1 };
  const statementTimeoutS = opts.episode.statementTimeoutS ?? DB_STATEMENT_TIMEOUT_S;
  // Opened once, at load (which checks that the backend works); released by close().
  let db: Promise<LlbDbBackend> | undefined;
  let os: Promise<LlbOsBackend> | undefined;
  const openDb = () => (db ??= openDbBackend(evaluator, statementTimeoutS));
  const openOs = () => (os ??= openOsBackend(evaluator));
  return {
    name: 'llb',
    envLabel: `llb-${opts.task}`,
    load: async () => {
      const loaded = loadLlbTasks(opts);
      if (opts.task === 'db') await openDb();
      else await openOs();
      return loaded;
    },
    episode: async (task, ctx) => {
      if (task.kind === 'db') {
        const backend = await openDb();
        return runDbEpisode(task, ctx, opts.episode, backend.server);
      }
      const backend = await openOs();
      return runOsEpisode(task, ctx, opts.episode, () => backend.create());
    },
    simPlayer: (tasks) => llbSimPlayer(tasks),
    describeEvaluator: async () => {
      try {
        return await (opts.task === 'db' ? openDb() : openOs()).then((b) => b.describe());
      } catch (err) {
        return { backend: evaluator.backend, error: (err as Error).message };
      }
    },
    close: async () => {
      const open = [db, os].filter((p): p is Promise<LlbDbBackend> | Promise<LlbOsBackend> => p !== undefined);
      db = os = undefined;
      await Promise.all(open.map((p) => p.then((b) => b.close(), () => undefined)));
    },
  };
}

/** The benchmark for one `memrl run llb`, from its resolved settings. */
export function createLlbRun(s: LlbSettings, cfg: ResolvedConfig<LlbSettings>): Benchmark<LlbTask> {
  return createLlbBenchmark(llbRunOptions(s, cfg));
}

/** What a `memrl run llb` loads, how its episodes prompt and where they run (also what --dry-run reads). */
export function llbRunOptions(s: LlbSettings, cfg: ResolvedConfig<LlbSettings>): LlbBenchmarkOptions {
  return {
    task: s.task,
    splitFile: s.splitFile,
    validFile: s.validFile,
    validate: cfg.run.runValidation,
    limit: cfg.run.limit,
    datasetRatio: s.datasetRatio,
    seed: cfg.run.seed,
    episode: {
      maxSteps: cfg.run.maxSteps,
      temperature: cfg.llm.temperature,
      maxTokens: cfg.llm.maxTokens ?? undefined,
      promptDir: packNamespace(cfg.run.prompts, 'llb'),
      memoryPromptDir: packNamespace(cfg.run.prompts, 'memory'),
      fidelity: cfg.fidelity,
      // The reference labels successes procedure and reflections adjustment; its vanilla updater stores every memory as a procedure.
      memoryType: (m) => (m.success || cfg.memory.updateStrategy === 'vanilla' ? 'procedure' : 'adjustment'),
    },
    evaluator: { backend: cfg.evaluator.backend, docker: cfg.evaluator.docker, concurrency: cfg.run.concurrency },
  };
}
