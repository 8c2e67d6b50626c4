import type { RunSpec } from '../../cli/run-executor.js';
import { addRunAlfworldOptions, runAlfworldFlagsFromOptions } from '../../cli/run-flags.js';
import { createAlfworldBenchmark } from './index.js';
import type { AlfworldTask } from './dataset.js';
import type { DockerSettings, ResolvedConfig } from '../../config/types.js';

const REAL_ALFWORLD_IMAGE = 'memrl/alfworld:latest';
const STANDIN_IMAGE = 'memrl/alfworld-standin:latest';

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
      docker: cfg.evaluator.backend === 'docker' ? dockerSettingsFor(cfg) : null,
      fewShotPath: a.fewShotPath,
      maxSteps: cfg.run.maxSteps,
      temperature: cfg.llm.temperature,
      maxTokens: cfg.llm.maxTokens ?? undefined,
      promptDir: cfg.run.promptDir ?? undefined,
    });
  },
  manifest: (cfg) => ({ alfworld: { ...cfg.alfworld, env: cfg.alfworld.env === 'standin' ? 'household-standin' : 'alfworld' } }),
};

/**
 * The stand-in needs only python3: while images.alfworld is left at the real ALFWorld
 * image (the default), stand-in runs use the small stand-in image instead.
 */
function dockerSettingsFor(cfg: ResolvedConfig): DockerSettings {
  const d = cfg.evaluator.docker;
  if (cfg.alfworld.env !== 'standin' || d.images.alfworld !== REAL_ALFWORLD_IMAGE) return d;
  return { ...d, images: { ...d.images, alfworld: STANDIN_IMAGE } };
}
