import type { RunSpec } from '../../cli/run-executor.js';
import { addRunBcbOptions, runFlagsFromOptions } from '../../cli/run-flags.js';
import { createBcbBenchmark } from './index.js';
import type { BcbTask } from './dataset.js';

/** `memrl run bcb`: BigCodeBench as a RunSpec. */
export const bcbRunSpec: RunSpec<BcbTask> = {
  name: 'bcb',
  description:
    'BigCodeBench: generate code per task, run its unit tests in the sandbox, learn from the outcome.\n' +
    'Without --config it runs the built-in quickstart: the offline sim model and the local embedder.',
  addOptions: (cmd) => void addRunBcbOptions(cmd),
  flagsFromOptions: runFlagsFromOptions,
  create: (cfg) =>
    createBcbBenchmark({
      load: {
        dataPath: cfg.bcb.dataPath ?? undefined,
        splitFile: cfg.bcb.splitFile,
        subset: cfg.bcb.subset,
        split: cfg.bcb.split,
        trainRatio: cfg.bcb.trainRatio,
        seed: cfg.run.seed,
        limit: cfg.run.limit ?? undefined,
      },
      episode: {
        temperature: cfg.llm.temperature,
        maxTokens: cfg.llm.maxTokens ?? undefined,
        memoryBudgetChars: cfg.bcb.memoryBudget ?? undefined,
        promptDir: cfg.run.promptDir ?? undefined,
        eval: { mode: cfg.evaluator.bcbMode, timeoutSec: Math.min(cfg.evaluator.evalTimeoutS, cfg.evaluator.hardTimeoutS) },
      },
      evaluator: {
        backend: cfg.evaluator.backend,
        docker: cfg.evaluator.docker,
        concurrency: cfg.run.concurrency,
        timeoutSec: Math.min(cfg.evaluator.evalTimeoutS, cfg.evaluator.hardTimeoutS),
      },
    }),
  manifest: (cfg) => ({ bcb: cfg.bcb }),
};
