import type { RunSpec } from '../../cli/run-executor.js';
import { addRunAlfworldOptions, runAlfworldFlagsFromOptions } from '../../cli/run-flags.js';
import { createAlfworldBenchmark } from './index.js';
import type { AlfworldTask } from './dataset.js';

/** `memrl run alfworld`: ALFWorld (or its offline stand-in) as a RunSpec. */
export const alfworldRunSpec: RunSpec<AlfworldTask> = {
  name: 'alfworld',
  description:
    'ALFWorld: ReAct episodes in a text household through a Python bridge, learning from won / lost games.\n' +
    'Without --config it runs the built-in quickstart: the offline sim model on the household stand-in\n' +
    '(env: household-standin, not ALFWorld). --env alfworld needs: pip install alfworld && alfworld-download.',
  addOptions: (cmd) => void addRunAlfworldOptions(cmd),
  flagsFromOptions: runAlfworldFlagsFromOptions,
  methods: ['none', 'rag', 'memp', 'memrl', 'passk', 'reflection'],
  create: (cfg) => {
    const a = cfg.alfworld;
    return createAlfworldBenchmark({
      env: a.env,
      load: {
        validSplit: a.validSplit,
        validate: cfg.run.runValidation,
        gameFile: a.gameFile,
        datasetRatio: a.datasetRatio,
        seed: cfg.run.seed,
        limit: cfg.run.limit,
      },
      bridge: {
        seed: cfg.run.seed,
        envType: a.envType,
        envConfigPath: a.envConfigPath,
        gamesPerType: a.gamesPerType,
        python: a.python,
        timeoutMs: a.bridgeTimeoutS * 1000,
      },
      poolSize: cfg.run.concurrency,
      docker: cfg.evaluator.backend === 'docker' ? cfg.evaluator.docker : null,
      fewShotPath: a.fewShotPath,
      maxSteps: cfg.run.maxSteps,
      temperature: cfg.llm.temperature,
      maxTokens: cfg.llm.maxTokens ?? undefined,
      promptDir: cfg.run.promptDir ?? undefined,
    });
  },
  manifest: (cfg) => ({ alfworld: { ...cfg.alfworld, env: cfg.alfworld.env === 'standin' ? 'household-standin' : 'alfworld' } }),
};
