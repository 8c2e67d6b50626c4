/**
 * Humanity's Last Exam as a memrl benchmark module: one solver call and one judge
 * call per question, learning from the judge's verdict.
 */
import { redactConfig } from '../../config/redact.js';
import type { BenchmarkModule } from '../../core/benchmark.js';
import { HLE_EXPERIMENT_KEYS, hleDefaults, hlePaperProfile, hleFlags, hleJudge, hleSection, resolveHleSettings, type HleSettings } from './config.js';
import { HLE_DATA } from './data-files.js';
import { HLE_REFERENCE_PROMPTS } from './reference-prompts.js';
import { HLE_SWITCHES } from './switches.js';

export const hle: BenchmarkModule<HleSettings> = {
  kind: 'benchmark',
  name: 'hle',
  promptTemplates: 'src/bench/hle/prompts',
  referencePrompts: HLE_REFERENCE_PROMPTS,
  fidelitySwitches: HLE_SWITCHES,
  fidelityTargets: async () => (await import('./fidelity.js')).hleFidelityTargets,
  displayName: 'HLE',
  description:
    "Humanity's Last Exam: one solver call and one judge call per question, learning from the judge's verdict.\n" +
    'The questions: --train <file.parquet>, else the release `memrl data pull hle` fetched (HLE is gated; see docs/data.md).\n' +
    'Without --config it runs the built-in quickstart: the offline sim model (and sim judge) and the local embedder.',
  examples: [
    'memrl run hle --train test/fixtures/hle/hle_snappy.parquet         # offline: sim solver and judge on our fixture',
    'memrl run hle --train hle_test.parquet --model gpt-4o --judge-model gpt-4o-2024-08-06 --num-train 200',
    'memrl run hle --config configs/hle.yaml --train hle_test.parquet --categories Math Physics',
  ],
  configSection: hleSection,
  defaults: hleDefaults,
  profiles: { paper: hlePaperProfile },
  flags: hleFlags,
  flagHelp: {
    '--run-validation': 'also score the validation split after every epoch (default: memrl.run_validation, else on for HLE when there is a validation split)',
  },
  keys: {
    // rl_config.tau: the similarity floor of the Self-RAG and Mem0 baselines (the reference's HLE scripts read it).
    reads: ['experiment.hle_categories', 'experiment.hle_category_ratio', 'experiment.train_valid_split', 'experiment.dataset_ratio', 'rl_config.tau'],
    // The HLE runner fixes the initial Q at 1.0 (success) / 0.0 (failure).
    ignores: ['rl_config.q_init_pos', 'rl_config.q_init_neg'],
    help: {
      'memory.sim_norm_mean': 'HLE 0.18568',
      'memory.sim_norm_std': 'HLE 0.09408',
      'experiment.dataset_ratio': 'HLE',
      'rl_config.tau': 'HLE only',
      'rl_config.q_init_pos': 'HLE fixes 1.0',
      'rl_config.q_init_neg': 'HLE fixes 0.0',
    },
  },
  sharedKeys: [{ section: 'experiment', after: 'bon', keys: HLE_EXPERIMENT_KEYS }],
  resolve: resolveHleSettings,
  memoryParams: (p, cfg) => ({ ...p, qInitPos: 1, qInitNeg: 0, baselineThreshold: cfg.rl_config.tau }),
  judge: hleJudge,
  // The reference hle_runner's scalars.
  tagFamily: {
    train: [
      ['Train/Section_Acc', 'acc'],
      ['Train/Cumulative_Acc', 'csr'],
    ],
    valid: [
      ['Evaluation/Acc', 'acc'],
      ['Valid/Cumulative_Acc', 'csr'],
    ],
  },
  paper: { taskSimilarity: 0.186, gainOverNone: 0.216 },
  manifest: ({ client: _client, ...s }) => redactConfig(s),
  data: HLE_DATA,
  dryRun: async (s, run) => (await import('./dry-run.js')).hleDryRun(s, run),
  create: async (s, run) => (await import('./benchmark.js')).createHleRun(s, run),
};
