/**
 * TensorBoard tag names. The reference runners' names are kept so old dashboards
 * keep working; everything memrl adds lives under `memrl/<phase>/…`.
 */
import type { EpochMetrics, MetricsReport } from '../compute.js';
import type { OutcomePhase } from '../outcome-row.js';

/** HLE (reference hle_runner). */
export const HLE_TAGS = {
  trainSectionAcc: 'Train/Section_Acc',
  trainCumulativeAcc: 'Train/Cumulative_Acc',
  evalAcc: 'Evaluation/Acc',
  validCumulativeAcc: 'Valid/Cumulative_Acc',
} as const;

/** ALFWorld and LifelongAgentBench (reference alfworld_rl_runner / llb_rl_runner). */
export const SUCCESS_RATE_TAGS = {
  trainSectionSuccessRate: 'Train/Section_Success_Rate',
  trainCumulativeSuccessRate: 'Train/Cumulative_Success_Rate',
  trainSectionAvgSteps: 'Train/Section_Avg_Steps',
  evalSuccessRate: (set: string) => `Evaluation/Success_Rate/${set}`,
  evalAvgSteps: (set: string) => `Evaluation/Avg_Steps/${set}`,
} as const;

/** The evaluation-set names the reference puts in `Evaluation/Success_Rate/<set>`. */
export const DEFAULT_EVAL_SET = {
  alfworld: 'eval_in_distribution',
  llb: 'Validation',
} as const;

/** BigCodeBench (reference bcb_runner). */
export const BCB_TAGS = {
  passAt1: (phase: OutcomePhase) => `bcb/${phase}/pass_at_1`,
} as const;

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

export type TagFamily = 'hle' | 'alfworld' | 'llb' | 'bcb' | 'other';

/** Which reference tag set a benchmark name uses ('other' = memrl tags only). */
export function tagFamily(benchmark: string): TagFamily {
  const b = benchmark.toLowerCase();
  if (b === 'hle') return 'hle';
  if (b === 'alfworld') return 'alfworld';
  if (b === 'bcb' || b.startsWith('bigcodebench')) return 'bcb';
  if (b.startsWith('llb') || ['db', 'os', 'db_bench', 'os_interaction', 'lifelongagentbench'].includes(b)) {
    return 'llb';
  }
  return 'other';
}

/** Anything with a scalar() like TensorBoardWriter's. */
export interface ScalarSink {
  scalar(tag: string, value: number, step: number, wallTime?: number): void;
}

export interface EpochScalarOptions {
  /** Which epoch of the report to write; default the report's last one. */
  epoch?: number;
  /** Set name for `Evaluation/…/<set>` (ALFWorld, LLB); default the reference's. */
  evalSet?: string;
}

/** The (tag, value) pairs for one epoch of a report; null metrics are left out. */
export function epochScalars(
  benchmark: string,
  report: MetricsReport,
  opts: EpochScalarOptions = {},
): { tag: string; value: number; step: number }[] {
  const e = pickEpoch(report, opts.epoch);
  if (e === undefined) return [];
  const phase = report.phase;
  const family = tagFamily(benchmark);
  const out: { tag: string; value: number | null }[] = [];
  const add = (tag: string, value: number | null): void => void out.push({ tag, value });

  if (family === 'hle') {
    add(phase === 'train' ? HLE_TAGS.trainSectionAcc : HLE_TAGS.evalAcc, e.acc);
    add(phase === 'train' ? HLE_TAGS.trainCumulativeAcc : HLE_TAGS.validCumulativeAcc, e.csr);
  } else if (family === 'alfworld' || family === 'llb') {
    if (phase === 'train') {
      add(SUCCESS_RATE_TAGS.trainSectionSuccessRate, e.acc);
      add(SUCCESS_RATE_TAGS.trainCumulativeSuccessRate, e.csr);
      add(SUCCESS_RATE_TAGS.trainSectionAvgSteps, e.avgSteps);
    } else {
      const set = opts.evalSet ?? DEFAULT_EVAL_SET[family];
      add(SUCCESS_RATE_TAGS.evalSuccessRate(set), e.acc);
      add(SUCCESS_RATE_TAGS.evalAvgSteps(set), e.avgSteps);
    }
  } else if (family === 'bcb') {
    add(BCB_TAGS.passAt1(phase), e.acc);
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
  benchmark: string,
  report: MetricsReport,
  opts: EpochScalarOptions = {},
): number {
  const scalars = epochScalars(benchmark, report, opts);
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
