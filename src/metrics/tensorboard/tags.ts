/**
 * TensorBoard tag names. The reference runners' names are kept so old dashboards
 * keep working; everything memrl adds lives under `memrl/<phase>/…`.
 */
import type { EpochMetrics, MetricsReport } from '../compute.js';
import type { OutcomePhase } from '../outcome-row.js';

/** What a reference tag carries: a phase's accuracy, cumulative success rate or mean turns. */
export type TagMetric = 'acc' | 'csr' | 'avgSteps';

/**
 * The reference runner's TensorBoard tags a benchmark's scalars also go under (its
 * module's `tagFamily`): per phase, each tag and the metric it carries, in the order
 * they are written. `{set}` in a tag stands for the validation set's name: the
 * benchmark's validSetLabel, else `validSet`.
 */
export interface ReferenceTags {
  train: readonly (readonly [tag: string, metric: TagMetric])[];
  valid: readonly (readonly [tag: string, metric: TagMetric])[];
  validSet?: string;
}

/** A benchmark's reference tags, or 'other': memrl's own tags only. */
export type TagFamily = ReferenceTags | 'other';

/** The success-rate tags two reference runners share (alfworld_rl_runner, llb_rl_runner), with their validation set's name. */
export function successRateTags(validSet: string): ReferenceTags {
  return {
    train: [
      ['Train/Section_Success_Rate', 'acc'],
      ['Train/Cumulative_Success_Rate', 'csr'],
      ['Train/Section_Avg_Steps', 'avgSteps'],
    ],
    valid: [
      ['Evaluation/Success_Rate/{set}', 'acc'],
      ['Evaluation/Avg_Steps/{set}', 'avgSteps'],
    ],
    validSet,
  };
}

/** memrl's own tags, the same for every benchmark. */
export const MEMRL_TAGS = {
  acc: (phase: OutcomePhase) => `memrl/${phase}/acc`,
  csr: (phase: OutcomePhase) => `memrl/${phase}/csr`,
  errors: (phase: OutcomePhase) => `memrl/${phase}/errors`,
  skipped: (phase: OutcomePhase) => `memrl/${phase}/skipped`,
  avgSteps: (phase: OutcomePhase) => `memrl/${phase}/avg_steps`,
  forgettingFlip: (phase: OutcomePhase) => `memrl/${phase}/forgetting_flip`,
  forgettingMax: (phase: OutcomePhase) => `memrl/${phase}/forgetting_max`,
  bwt: (phase: OutcomePhase) => `memrl/${phase}/bwt`,
  totalTokens: (phase: OutcomePhase) => `memrl/${phase}/total_tokens`,
} as const;

/** Histograms of the memory's Q after each epoch (step = epoch), from q-history.jsonl. */
export const Q_HISTOGRAM_TAGS = {
  all: 'memrl/memory/q',
  success: 'memrl/memory/q_success_memories',
  failure: 'memrl/memory/q_failure_memories',
} as const;

/** Anything with a scalar() like TensorBoardWriter's. */
export interface ScalarSink {
  scalar(tag: string, value: number, step: number, wallTime?: number): void;
}

export interface EpochScalarOptions {
  /** Which epoch of the report to write; default the report's last one. */
  epoch?: number;
  /** The validation set's name in `{set}`; default the family's own. */
  evalSet?: string;
}

/**
 * The (tag, value) pairs for one epoch of a report; null metrics are left out. `family`
 * is the benchmark's reference tags; a name (a benchmark that declares none) or 'other'
 * gives memrl's own tags only.
 */
export function epochScalars(
  family: TagFamily | string,
  report: MetricsReport,
  opts: EpochScalarOptions = {},
): { tag: string; value: number; step: number }[] {
  const e = pickEpoch(report, opts.epoch);
  if (e === undefined) return [];
  const phase = report.phase;
  const out: { tag: string; value: number | null }[] = [];
  const add = (tag: string, value: number | null): void => void out.push({ tag, value });

  if (typeof family === 'object') {
    const set = opts.evalSet ?? family.validSet ?? phase;
    for (const [tag, metric] of family[phase]) add(tag.replace('{set}', set), e[metric]);
  }

  add(MEMRL_TAGS.acc(phase), e.acc);
  add(MEMRL_TAGS.csr(phase), e.csr);
  add(MEMRL_TAGS.errors(phase), e.errors);
  add(MEMRL_TAGS.skipped(phase), e.skipped);
  add(MEMRL_TAGS.avgSteps(phase), e.avgSteps);
  add(MEMRL_TAGS.forgettingFlip(phase), e.forgettingFlip);
  add(MEMRL_TAGS.forgettingMax(phase), e.forgettingMax);
  add(MEMRL_TAGS.bwt(phase), e.bwt);
  add(MEMRL_TAGS.totalTokens(phase), e.totalTokens);

  return out.flatMap((s) => (s.value === null ? [] : [{ tag: s.tag, value: s.value, step: e.epoch }]));
}

/** Write one epoch of a report (step = epoch). Returns the number of scalars written. */
export function writeEpochScalars(
  writer: ScalarSink,
  family: TagFamily | string,
  report: MetricsReport,
  opts: EpochScalarOptions = {},
): number {
  const scalars = epochScalars(family, report, opts);
  for (const s of scalars) writer.scalar(s.tag, s.value, s.step);
  return scalars.length;
}

function pickEpoch(report: MetricsReport, epoch: number | undefined): EpochMetrics | undefined {
  if (epoch === undefined) return report.epochs[report.epochs.length - 1];
  const e = report.epochs.find((x) => x.epoch === epoch);
  if (e === undefined) {
    throw new Error(`writeEpochScalars: epoch ${epoch} is not in the ${report.phase} report (has ${report.epochs.map((x) => x.epoch).join(', ') || 'none'})`);
  }
  return e;
}
