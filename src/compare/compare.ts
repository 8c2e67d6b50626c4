/**
 * The comparison itself: baseline runs against candidate runs on one phase.
 * Pure (no I/O); every report (text, Markdown, JSON, JUnit) renders its result.
 *
 * Decision rule, per metric (also in docs/compare.md). With d = mean(candidate) −
 * mean(baseline) signed so that "worse" is positive (w = −d for higher-is-better
 * metrics, w = d for forgetting) and [lo, hi] the seeded bootstrap 95% interval of d:
 *   regressed  when w > tolerance AND the interval lies entirely on the worse side of 0;
 *   improved   when −w > tolerance AND the interval lies entirely on the better side;
 *   ok         otherwise.
 * With one run per side the interval is the point [d, d], so the rule is exactly
 * "worse by more than the tolerance". The exit code is 1 when any checked metric regressed.
 */
import type { OutcomePhase } from '../metrics/outcome-row.js';
import { UserError } from '../util/errors.js';
import { bootstrapDiffInterval, mean } from './bootstrap.js';
import { checkCompatible } from './compat.js';
import { METRICS, type MetricName } from './metrics.js';
import { isSolved, type LoadedRun, type PhaseData } from './run-data.js';

export interface CompareOptions {
  metrics: MetricName[];
  /** Absolute, on the 0..1 scale of the metrics. */
  tolerance: number;
  phase: OutcomePhase;
  force: boolean;
  bootstrap: { samples: number; seed: number; level: number };
}

export interface SideSummary {
  benchmark: string;
  method: string;
  model: string;
  simulated: boolean;
  split: string | null;
  runs: { id: string; source: string; kind: LoadedRun['kind']; seed: number | null; status: string }[];
}

export interface MetricStat {
  mean: number | null;
  /** One value per run that defines the metric (forgetting is undefined when nothing was solved). */
  values: number[];
}

export type MetricVerdict = 'ok' | 'improved' | 'regressed' | 'unavailable';

export interface MetricComparison {
  metric: MetricName;
  label: string;
  better: 'higher' | 'lower';
  baseline: MetricStat;
  candidate: MetricStat;
  /** mean(candidate) − mean(baseline), raw sign. */
  delta: number | null;
  /** Bootstrap interval of delta; [delta, delta] with one run per side. */
  interval: [number, number] | null;
  verdict: MetricVerdict;
  reason: string;
}

export interface EpochComparison {
  epoch: number;
  baseline: { acc: number | null; csr: number | null };
  candidate: { acc: number | null; csr: number | null };
}

export interface TaskSide {
  /** Runs of this side that solved the task in their final epoch. */
  solved: number;
  /** Runs of this side that have the task. */
  runs: number;
  /** Final-epoch statuses, one per run. */
  statuses: string[];
}

export interface TaskFlip {
  taskId: string;
  baseline: TaskSide;
  candidate: TaskSide;
}

export interface TaskComparison {
  available: boolean;
  /** Why per-task data is missing, when it is. */
  reason?: string;
  solvedToFailed: TaskFlip[];
  failedToSolved: TaskFlip[];
  onlyInBaseline: string[];
  onlyInCandidate: string[];
  stillSolved: number;
  stillFailed: number;
}

export interface Comparison {
  memrlCompare: 1;
  verdict: 'ok' | 'regression';
  exitCode: 0 | 1;
  phase: OutcomePhase;
  tolerance: number;
  decisionRule: string;
  bootstrap: CompareOptions['bootstrap'];
  /** Mismatches overridden by --force. */
  forced: string[];
  notes: string[];
  baseline: SideSummary;
  candidate: SideSummary;
  metrics: MetricComparison[];
  regressed: MetricName[];
  epochs: EpochComparison[];
  tasks: TaskComparison;
}

export const DECISION_RULE =
  'a metric regresses when the candidate mean is worse than the baseline mean by more than the tolerance ' +
  'and the seeded bootstrap 95% interval of the difference excludes 0 (one run per side: the interval is the point, so the tolerance alone decides)';

// Rates are sums of 1/N: keep 0.6 − 0.4 from counting as more than a 0.2 tolerance.
const EPS = 1e-9;

export function compareRuns(baseline: LoadedRun[], candidate: LoadedRun[], opts: CompareOptions): Comparison {
  const compat = checkCompatible(baseline, candidate);
  if (compat.mismatches.length > 0 && !opts.force) {
    throw new UserError(`refusing to compare: ${compat.mismatches.join('; ')}; compare like with like, or pass --force`);
  }
  const basePhases = phases(baseline, opts.phase, 'baseline');
  const candPhases = phases(candidate, opts.phase, 'candidate');
  const notes = [...compat.notes];

  const finalEpoch = (ps: PhaseData[]): string => [...new Set(ps.map((p) => p.epochs.at(-1)?.epoch ?? '-'))].join('/');
  if (finalEpoch(basePhases) !== finalEpoch(candPhases)) {
    notes.push(`final epochs differ (baseline ${finalEpoch(basePhases)}, candidate ${finalEpoch(candPhases)}): last and csr are taken at different epochs`);
  }

  const metrics = opts.metrics.map((m) => compareMetric(m, basePhases, candPhases, opts));
  const regressed = metrics.filter((m) => m.verdict === 'regressed').map((m) => m.metric);
  const tasks = compareTasks(basePhases, candPhases, baseline, candidate);
  if (tasks.onlyInBaseline.length + tasks.onlyInCandidate.length > 0) {
    notes.push(`task sets differ (${tasks.onlyInBaseline.length} only in baseline, ${tasks.onlyInCandidate.length} only in candidate): rates have different denominators`);
  }
  return {
    memrlCompare: 1,
    verdict: regressed.length > 0 ? 'regression' : 'ok',
    exitCode: regressed.length > 0 ? 1 : 0,
    phase: opts.phase,
    tolerance: opts.tolerance,
    decisionRule: DECISION_RULE,
    bootstrap: opts.bootstrap,
    forced: opts.force ? compat.mismatches : [],
    notes,
    baseline: sideSummary(baseline),
    candidate: sideSummary(candidate),
    metrics,
    regressed,
    epochs: compareEpochs(basePhases, candPhases),
    tasks,
  };
}

function phases(runs: LoadedRun[], phase: OutcomePhase, side: string): PhaseData[] {
  return runs.map((r) => {
    const p = r.data.phases[phase];
    if (!p) {
      const hint = phase === 'valid' ? 'run with --run-validation, or compare --phase train' : 'it has no training rows';
      throw new UserError(`--phase ${phase}: ${side} run ${r.data.id} (${r.source}) has no ${phase} outcomes; ${hint}`);
    }
    return p;
  });
}

function sideSummary(runs: LoadedRun[]): SideSummary {
  const first = runs[0]!.data;
  const join = (f: (r: LoadedRun) => string): string => [...new Set(runs.map(f))].join(' / ');
  return {
    benchmark: join((r) => r.data.benchmark),
    method: join((r) => r.data.method),
    model: join((r) => r.data.model),
    simulated: first.simulated,
    split: first.split,
    runs: runs.map((r) => ({ id: r.data.id, source: r.source, kind: r.kind, seed: r.data.seed, status: r.data.status })),
  };
}

function stat(ps: PhaseData[], m: MetricName): MetricStat {
  const values = ps.map((p) => p.metrics[m]).filter((v): v is number => typeof v === 'number');
  return { mean: values.length ? mean(values) : null, values };
}

const f3 = (x: number): string => x.toFixed(3);
const signed = (x: number): string => `${x >= 0 ? '+' : '-'}${Math.abs(x).toFixed(3)}`;

function compareMetric(metric: MetricName, base: PhaseData[], cand: PhaseData[], opts: CompareOptions): MetricComparison {
  const def = METRICS[metric];
  const b = stat(base, metric);
  const c = stat(cand, metric);
  const common = { metric, label: def.label, better: def.better, baseline: b, candidate: c };
  if (b.mean === null || c.mean === null) {
    const which = b.mean === null && c.mean === null ? 'either side' : b.mean === null ? 'the baseline' : 'the candidate';
    return { ...common, delta: null, interval: null, verdict: 'unavailable', reason: `not defined for ${which} (e.g. forgetting when nothing was solved to forget)` };
  }
  const delta = c.mean - b.mean;
  const interval = bootstrapDiffInterval(b.values, c.values, { ...opts.bootstrap, label: metric });
  const sign = def.better === 'higher' ? -1 : 1;
  const worse = sign * delta; // > 0: the candidate is worse
  // Interval entirely on the worse (better) side of zero, in the metric's direction.
  const [lo, hi] = interval;
  const surelyWorse = def.better === 'higher' ? hi < 0 : lo > 0;
  const surelyBetter = def.better === 'higher' ? lo > 0 : hi < 0;
  const multi = b.values.length > 1 || c.values.length > 1;
  const ci = multi ? `; ${Math.round(opts.bootstrap.level * 100)}% interval of the difference [${signed(lo)}, ${signed(hi)}]` : '';
  const move = `${f3(b.mean)} → ${f3(c.mean)} (${signed(delta)}, ${def.better} is better; tolerance ${opts.tolerance})`;
  if (worse > opts.tolerance + EPS && surelyWorse) {
    return { ...common, delta, interval, verdict: 'regressed', reason: `worse: ${move}${ci}${multi ? ' excludes 0' : ''}` };
  }
  if (-worse > opts.tolerance + EPS && surelyBetter) {
    return { ...common, delta, interval, verdict: 'improved', reason: `better: ${move}${ci}${multi ? ' excludes 0' : ''}` };
  }
  if (worse > opts.tolerance + EPS) {
    return { ...common, delta, interval, verdict: 'ok', reason: `worse by more than the tolerance but not beyond noise: ${move}${ci} includes 0` };
  }
  return { ...common, delta, interval, verdict: 'ok', reason: `within tolerance: ${move}${ci}` };
}

function compareEpochs(base: PhaseData[], cand: PhaseData[]): EpochComparison[] {
  const epochs = [...new Set([...base, ...cand].flatMap((p) => p.epochs.map((e) => e.epoch)))].sort((a, b) => a - b);
  const at = (ps: PhaseData[], epoch: number, key: 'acc' | 'csr'): number | null => {
    const vals = ps.map((p) => p.epochs.find((e) => e.epoch === epoch)?.[key]).filter((v): v is number => typeof v === 'number');
    return vals.length ? mean(vals) : null;
  };
  return epochs.map((epoch) => ({
    epoch,
    baseline: { acc: at(base, epoch, 'acc'), csr: at(base, epoch, 'csr') },
    candidate: { acc: at(cand, epoch, 'acc'), csr: at(cand, epoch, 'csr') },
  }));
}

/**
 * Final-epoch outcome per task. With several runs a side "solves" a task when more
 * than half of its runs that have the task solved it; the counts are reported too.
 */
function compareTasks(base: PhaseData[], cand: PhaseData[], baseRuns: LoadedRun[], candRuns: LoadedRun[]): TaskComparison {
  const empty = (): Omit<TaskComparison, 'available' | 'reason'> => ({
    solvedToFailed: [],
    failedToSolved: [],
    onlyInBaseline: [],
    onlyInCandidate: [],
    stillSolved: 0,
    stillFailed: 0,
  });
  const missing = (runs: LoadedRun[], ps: PhaseData[], side: string): string | undefined => {
    const i = ps.findIndex((p) => p.final === null);
    return i < 0 ? undefined : `${side} ${runs[i]!.source} has no per-task outcomes (a summary.json, or a baseline saved from one); compare run folders or a baseline saved from them`;
  };
  const reason = missing(baseRuns, base, 'baseline') ?? missing(candRuns, cand, 'candidate');
  if (reason) return { available: false, reason, ...empty() };

  const collect = (ps: PhaseData[]): Map<string, TaskSide> => {
    const m = new Map<string, TaskSide>();
    for (const p of ps) {
      for (const [id, status] of Object.entries(p.final ?? {})) {
        const t = m.get(id) ?? { solved: 0, runs: 0, statuses: [] };
        t.runs++;
        if (isSolved(status)) t.solved++;
        t.statuses.push(status);
        m.set(id, t);
      }
    }
    return m;
  };
  const b = collect(base);
  const c = collect(cand);
  const solved = (t: TaskSide): boolean => t.solved * 2 > t.runs;
  const out: TaskComparison = { available: true, ...empty() };
  for (const [id, bt] of b) {
    const ct = c.get(id);
    if (!ct) {
      out.onlyInBaseline.push(id);
      continue;
    }
    const flip = { taskId: id, baseline: bt, candidate: ct };
    if (solved(bt) && !solved(ct)) out.solvedToFailed.push(flip);
    else if (!solved(bt) && solved(ct)) out.failedToSolved.push(flip);
    else if (solved(bt)) out.stillSolved++;
    else out.stillFailed++;
  }
  for (const id of c.keys()) if (!b.has(id)) out.onlyInCandidate.push(id);
  return out;
}
