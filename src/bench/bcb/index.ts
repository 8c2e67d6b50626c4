/**
 * BigCodeBench as a memrl benchmark module: generate code per task, run its unit
 * tests in a sandbox (or a container), learn from the outcome.
 */
import type { BenchmarkModule } from '../../core/benchmark.js';
import { probeEnv } from '../../doctor/probes.js';
import { BCB_EVALUATOR_KEYS, BCB_EXPERIMENT_KEYS, BCB_IMAGE, bcbDefaults, bcbPaperProfile, bcbFlags, bcbRunValidation, bcbSection, resolveBcbSettings, type BcbSettings } from './config.js';
import { BCB_DATA } from './data-files.js';
import { bcbGoldCheck } from './gold-command.js';
import { BCB_REFERENCE_PROMPTS } from './reference-prompts.js';
import { BCB_SWITCHES } from './switches.js';

export const bcb: BenchmarkModule<BcbSettings> = {
  kind: 'benchmark',
  name: 'bcb',
  promptTemplates: 'src/bench/bcb/prompts',
  referencePrompts: BCB_REFERENCE_PROMPTS,
  fidelitySwitches: BCB_SWITCHES,
  fidelityTargets: async () => (await import('./fidelity.js')).bcbFidelityTargets,
  displayName: 'BigCodeBench',
  description:
    'BigCodeBench: generate code per task, run its unit tests in the sandbox, learn from the outcome.\n' +
    'Without --config it runs the built-in quickstart: the offline sim model and the local embedder.',
  examples: [
    'memrl run bcb --epochs 3 --limit 50                      # offline quickstart: sim model, real tests',
    'memrl run bcb --model gpt-4o-mini --epochs 10                # OpenAI (OPENAI_API_KEY), the full subset and the paper\'s split',
    'memrl run bcb --base-url http://127.0.0.1:8000/v1 --model Qwen2.5-7B-Instruct --api-key-env VLLM_KEY',
    'memrl run bcb --resume results/bcb/<run-id>              # continue an interrupted run',
  ],
  configSection: bcbSection,
  defaults: bcbDefaults,
  profiles: { paper: bcbPaperProfile },
  flags: bcbFlags,
  evaluatorFlags: true,
  flagHelp: {
    '--run-validation': 'also score the held-out split after every epoch (default: memrl.run_validation, else experiment.bcb_run_validation, else off)',
    '--evaluator': 'where tests run: local = bubblewrap sandbox, docker = container (default: memrl.evaluator.backend, else local)',
  },
  keys: {
    reads: ['experiment.bcb_run_validation', 'memrl.evaluator.bcb_mode', 'memrl.evaluator.eval_timeout', 'memrl.evaluator.hard_timeout'],
    labels: { 'memrl.bcb.subset': '{value} subset', 'memrl.bcb.split_file': 'split {value}' },
    help: {
      'memory.sim_norm_mean': 'BCB 0.31',
      'memory.sim_norm_std': 'BCB 0.10',
      'memrl.run_validation': 'BCB: experiment.bcb_run_validation',
      'memrl.evaluator.eval_timeout': 'BCB (under bcb.time-limit=reference BigCodeBench raises it to 241 s, so hard_timeout binds)',
      'memrl.evaluator.hard_timeout': 'BCB',
      'memrl.evaluator.fork_server': 'BCB',
    },
  },
  sharedKeys: [
    { section: 'experiment', after: 'log_level', keys: BCB_EXPERIMENT_KEYS },
    { section: 'memrl.evaluator', after: 'backend', keys: BCB_EVALUATOR_KEYS },
  ],
  images: [{ key: 'bcb', image: BCB_IMAGE, description: 'BCB test image: python3 with the BigCodeBench libraries (docker/bcb.Dockerfile).' }],
  resolve: resolveBcbSettings,
  // The reference runs BCB validation only when asked (bcb_run_validation).
  runValidation: bcbRunValidation,
  // The reference bcb_runner's one scalar per phase.
  tagFamily: {
    train: [['bcb/train/pass_at_1', 'acc']],
    valid: [['bcb/valid/pass_at_1', 'acc']],
  },
  manifest: (s) => s,
  // Its tests run in the bubblewrap sandbox.
  workerNeeds: () => ['bwrap'],
  data: BCB_DATA,
  dryRun: async (s, run) => (await import('./dry-run.js')).bcbDryRun(s, run),
  create: async (s, run) => (await import('./benchmark.js')).createBcbRun(s, run),
  doctor: {
    local: async () => [
      { backend: 'local', part: 'bcb tests', ...(await probeEnv('python-tests', 'local', {})) },
      { backend: 'local', part: 'bcb libraries', ...(await (await import('./doctor.js')).probeBcbLibraries()) },
    ],
  },
  goldCheck: bcbGoldCheck,
};
