/**
 * LifelongAgentBench as a memrl benchmark module: multi-turn db (SQL on MariaDB /
 * MySQL) or os (a root shell) episodes, memory per mini-batch.
 */
import type { BenchmarkModule } from '../../core/benchmark.js';
import { probeEnv } from '../../doctor/probes.js';
import { successRateTags } from '../../metrics/tensorboard/tags.js';
import { LLB_EXPERIMENT_KEYS, LLB_KEYS, llbDefaults, llbPaperProfile, llbExperiment, llbFlags, llbMemoryParams, resolveLlbSettings, type LlbSettings } from './config.js';
import { LLB_DATA } from './data-files.js';
import { llbGoldCheck } from './gold-command.js';
import { LLB_REFERENCE_PROMPTS } from './reference-prompts.js';
import { LLB_FIDELITY_SWITCHES } from './switches.js';

export const llb: BenchmarkModule<LlbSettings> = {
  kind: 'benchmark',
  name: 'llb',
  promptTemplates: 'src/bench/llb/prompts',
  displayName: 'LLB',
  description:
    'LifelongAgentBench: multi-turn db (SQL on MariaDB / MySQL) or os (a root shell) episodes, memory per mini-batch.\n' +
    'local evaluator: db needs a running MariaDB (bash scripts/setup.sh mariadb), os the Debian rootfs (bash scripts/setup.sh rootfs);\n' +
    '--evaluator docker: db in one mysql:8 server container, os in one container per task (memrl.evaluator.docker.images).',
  examples: [
    'memrl run llb --task db --limit 20 --epochs 2        # offline sim model, real MariaDB',
    'memrl run llb --task os --model gpt-4o-mini --epochs 20',
    'memrl run llb --task db --evaluator docker            # one server container for the run',
  ],
  data: LLB_DATA,
  defaults: llbDefaults,
  profiles: { paper: llbPaperProfile },
  flags: llbFlags,
  evaluatorFlags: true,
  flagHelp: {
    '--run-validation':
      'score the validation file every experiment.valid_interval epochs (default: memrl.run_validation, else on when valid_interval > 0 and valid_file is set, as the reference; forced on without valid_file: the release\'s val file)',
    '--evaluator':
      'where tasks run: local = the host MariaDB (db) / the rootfs sandbox (os); docker = one server container per run (db) / one container per task (os), images from memrl.evaluator.docker.images (default: memrl.evaluator.backend, else local)',
  },
  keys: {
    reads: LLB_KEYS,
    help: {
      'experiment.max_steps': 'LLB',
      'experiment.valid_interval': 'LLB',
      'experiment.dataset_ratio': 'LLB',
      'memrl.run_validation': 'LLB: when experiment.valid_file is set',
    },
  },
  sharedKeys: [{ section: 'experiment', after: 'mode', keys: LLB_EXPERIMENT_KEYS }],
  images: [
    {
      key: 'llb_db',
      image: 'mysql:8',
      description: 'LLB db server image: mysql:8, or memrl/llb-db-mariadb:latest (docker/llb-db-mariadb.Dockerfile).',
      instead: 'without a registry set memrl.evaluator.docker.images.llb_db: memrl/llb-db-mariadb:latest (built by that script)',
    },
    { key: 'llb_os', image: 'memrl/llb-os:latest', description: 'LLB os task image (docker/llb-os.Dockerfile).' },
  ],
  resolve: resolveLlbSettings,
  memoryParams: llbMemoryParams,
  // The reference validates only with a valid_file: before section 1 when val_before_train, then after
  // every valid_interval-th section (0 = never after one) (memrl/run/llb_rl_runner.py:LLBRunner.run, _load_eval_datasets).
  runValidation: (tree) => Boolean(llbExperiment(tree).valid_file),
  validInterval: (tree) => tree.experiment.valid_interval,
  fidelitySwitches: LLB_FIDELITY_SWITCHES,
  referencePrompts: LLB_REFERENCE_PROMPTS,
  fidelityTargets: async () => (await import('./fidelity.js')).llbFidelityTargets(),
  tagFamily: successRateTags('Validation'),
  manifest: (s) => ({ ...s }),
  // A sweep's benchmark axis may say llb-db or llb-os (the results table's columns).
  variants: { db: { 'experiment.task': 'db' }, os: { 'experiment.task': 'os' } },
  // db tasks need the local MariaDB, os tasks the rootfs sandbox (bubblewrap); a config without experiment.task runs the default task.
  workerNeeds: (config) => {
    const task = (config.experiment as { task?: string } | undefined)?.task ?? llbDefaults.experiment!.task;
    return task === 'db' ? ['mariadb'] : ['bwrap'];
  },
  dryRun: async (s, run) => (await import('./dry-run.js')).llbDryRun(s, run),
  create: async (s, run) => (await import('./benchmark.js')).createLlbRun(s, run),
  doctor: {
    local: async () => [
      { backend: 'local', part: 'llb db server', ...(await probeEnv('sql', 'local', {})) },
      { backend: 'local', part: 'llb os sandbox', ...(await probeEnv('shell', 'local', {})) },
    ],
  },
  goldCheck: llbGoldCheck,
};
