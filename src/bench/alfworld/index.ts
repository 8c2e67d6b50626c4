/**
 * ALFWorld as a memrl benchmark module: ReAct episodes in a text household through a
 * Python bridge, learning from won and lost games. Offline it plays
 * household-standin, our own small household, never reported as ALFWorld.
 */
import type { BenchmarkModule } from '../../core/benchmark.js';
import { pythonVersion, settle } from '../../doctor/probes.js';
import { successRateTags } from '../../metrics/tensorboard/tags.js';
import { ALFWORLD_ENVIRONMENT_KEYS, ALFWORLD_EXPERIMENT_KEYS, REAL_ALFWORLD_IMAGE, STANDIN_IMAGE, alfworldDefaults, alfworldPaperProfile, alfworldFlags, alfworldSection, resolveAlfworldSettings, type AlfworldSettings } from './config.js';
import { ALFWORLD_DATA } from './data-files.js';
import { ALFWORLD_REFERENCE_PROMPTS } from './reference-prompts.js';
import { ALFWORLD_SWITCHES } from './switches.js';

/** The stand-in's env label in run.json and the rows. */
const STANDIN_ENV = 'household-standin';

export const alfworld: BenchmarkModule<AlfworldSettings> = {
  kind: 'benchmark',
  name: 'alfworld',
  promptTemplates: 'src/bench/alfworld/prompts',
  displayName: 'ALFWorld',
  description:
    'ALFWorld: ReAct episodes in a text household through a Python bridge, learning from won / lost games.\n' +
    'Without --config it runs the built-in quickstart: the offline sim model on the household stand-in\n' +
    '(env: household-standin, not ALFWorld). --env alfworld needs: pip install alfworld && alfworld-download.',
  examples: [
    'memrl run alfworld --limit 8 --epochs 2               # offline: sim model on the household stand-in',
    'memrl run alfworld --config configs/alfworld.yaml --env alfworld --model gpt-4o-mini',
  ],
  configSection: alfworldSection,
  defaults: alfworldDefaults,
  profiles: { paper: alfworldPaperProfile },
  flags: alfworldFlags,
  evaluatorFlags: true,
  flagHelp: {
    '--run-validation': 'score the validation games before training and after every epoch (default: memrl.run_validation, else on for ALFWorld)',
    '--batch-size': 'games per memory-commit batch (default: experiment.batch_size, else {experiment.batch_size} for ALFWorld)',
    '--evaluator':
      'where the Python bridge runs: local = a python3 child process, docker = one container per bridge from memrl.evaluator.docker.images.alfworld (default: memrl.evaluator.backend, else local)',
  },
  keys: {
    reads: ['environment.', 'experiment.few_shot_path', 'experiment.max_steps', 'experiment.dataset_ratio', 'experiment.valid_interval'],
    help: {
      'memory.sim_norm_mean': 'ALF 0.5187',
      'memory.sim_norm_std': 'ALF 0.1203',
      'experiment.max_steps': 'ALFWorld',
      'experiment.valid_interval': 'ALFWorld',
      'experiment.dataset_ratio': 'ALFWorld',
    },
  },
  sharedKeys: [
    { section: 'experiment', after: 'dataset_ratio', keys: ALFWORLD_EXPERIMENT_KEYS },
    { section: 'environment', keys: ALFWORLD_ENVIRONMENT_KEYS },
  ],
  // The reference validates before section 1 whatever valid_interval says, then after
  // every section n with valid_interval > 0 and n % valid_interval == 0 (0: never again).
  validInterval: (tree) => tree.experiment.valid_interval,
  fidelitySwitches: ALFWORLD_SWITCHES,
  referencePrompts: ALFWORLD_REFERENCE_PROMPTS,
  fidelityTargets: async () => (await import('./fidelity.js')).ALFWORLD_FIDELITY_TARGETS,
  images: [
    {
      key: 'alfworld',
      image: REAL_ALFWORLD_IMAGE,
      description: 'ALFWorld bridge image: python3 with alfworld and its data (docker/alfworld.Dockerfile).',
      instead: `the household stand-in needs only ${STANDIN_IMAGE} (built by that script)`,
    },
  ],
  resolve: resolveAlfworldSettings,
  tagFamily: successRateTags('eval_in_distribution'),
  standIn: STANDIN_ENV,
  paper: { taskSimilarity: 0.518, gainOverNone: 0.229 },
  manifest: (s) => ({ ...s, env: s.env === 'standin' ? STANDIN_ENV : 'alfworld' }),
  data: ALFWORLD_DATA,
  dryRun: async (s, run) => (await import('./dry-run.js')).alfworldDryRun(s, run),
  create: async (s, run) => (await import('./benchmark.js')).createAlfworldRun(s, run),
  doctor: {
    local: async () => {
      const { spawnSync } = await import('node:child_process');
      const r = await settle(async () => {
        const py = pythonVersion('/usr/bin/python3');
        if (!py.ok) return py;
        const probe = spawnSync('/usr/bin/python3', ['-c', 'import alfworld'], { encoding: 'utf8', timeout: 30_000 });
        return {
          ok: true,
          detail: `${py.detail}; household-standin ready; real ALFWorld ${probe.status === 0 ? 'importable' : 'not installed (pip install alfworld && alfworld-download)'}`,
        };
      });
      return [{ backend: 'local', part: 'alfworld bridge', ...r }];
    },
    // What stand-in runs use while images.alfworld is left at the real ALFWorld image.
    extraImages: (docker) => (docker.images.alfworld === REAL_ALFWORLD_IMAGE ? [{ part: 'alfworld stand-in image', image: STANDIN_IMAGE }] : []),
  },
};
