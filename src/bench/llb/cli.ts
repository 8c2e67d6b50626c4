import type { RunSpec } from '../../cli/run-executor.js';
import { addRunLlbOptions, runLlbFlagsFromOptions } from '../../cli/run-flags.js';
import { createLlbBenchmark } from './index.js';
import type { LlbTask } from './dataset.js';

/** `memrl run llb`: LifelongAgentBench db (MariaDB / MySQL) or os (shell sandbox / containers) as a RunSpec. */
export const llbRunSpec: RunSpec<LlbTask> = {
  name: 'llb',
  description:
    'LifelongAgentBench: multi-turn db (SQL on MariaDB / MySQL) or os (a root shell) episodes, memory per mini-batch.\n' +
    'local evaluator: db needs a running MariaDB (bash scripts/setup.sh mariadb), os the Debian rootfs (bash scripts/setup.sh rootfs);\n' +
    '--evaluator docker: db in one mysql:8 server container, os in one container per task (memrl.evaluator.docker.images).',
  addOptions: (cmd) => void addRunLlbOptions(cmd),
  flagsFromOptions: runLlbFlagsFromOptions,
  methods: ['none', 'rag', 'memp', 'memrl', 'passk', 'reflection'],
  create: (cfg) =>
    createLlbBenchmark({
      task: cfg.llb.task,
      splitFile: cfg.llb.splitFile,
      validFile: cfg.llb.validFile,
      validate: cfg.run.runValidation,
      limit: cfg.run.limit,
      episode: {
        maxSteps: cfg.run.maxSteps,
        temperature: cfg.llm.temperature,
        maxTokens: cfg.llm.maxTokens ?? undefined,
        promptDir: cfg.run.promptDir ?? undefined,
      },
      evaluator: { backend: cfg.evaluator.backend, docker: cfg.evaluator.docker, concurrency: cfg.run.concurrency },
    }),
  manifest: (cfg) => ({ llb: { ...cfg.llb } }),
};
