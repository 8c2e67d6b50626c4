/**
 * The headline metrics `memrl compare` can gate on, each with the direction that
 * counts as better. Forgetting is "lower is better"; bwt is in [−1, 0] and 0 means
 * nothing forgotten, so it is "higher is better" (see src/metrics/compute.ts).
 */
import type { MetricsReport } from '../metrics/compute.js';
import { UserError } from '../util/errors.js';

export const METRIC_NAMES = ['last', 'csr', 'forgetting_flip', 'forgetting_max', 'bwt'] as const;
export type MetricName = (typeof METRIC_NAMES)[number];

export interface MetricDef {
  name: MetricName;
  better: 'higher' | 'lower';
  label: string;
}

export const METRICS: Record<MetricName, MetricDef> = {
  last: { name: 'last', better: 'higher', label: 'last-epoch accuracy' },
  csr: { name: 'csr', better: 'higher', label: 'final cumulative success rate' },
  forgetting_flip: { name: 'forgetting_flip', better: 'lower', label: 'forgetting (mean flip rate)' },
  forgetting_max: { name: 'forgetting_max', better: 'lower', label: 'forgetting (Chaudhry max)' },
  bwt: { name: 'bwt', better: 'higher', label: 'backward transfer' },
};

/** Names a user may give to --metric; groups expand to several metrics. */
const ALIASES: Record<string, MetricName[]> = {
  last: ['last'],
  acc: ['last'],
  csr: ['csr'],
  forgetting: ['forgetting_flip', 'forgetting_max'],
  forgetting_flip: ['forgetting_flip'],
  forgettingflip: ['forgetting_flip'],
  forgetting_max: ['forgetting_max'],
  forgettingmax: ['forgetting_max'],
  bwt: ['bwt'],
};

export const DEFAULT_METRICS = 'last,csr,forgetting';

/** Parse a --metric list ("last,csr,forgetting"); unknown names are a usage error. */
export function parseMetricList(text: string): MetricName[] {
  const out: MetricName[] = [];
  const parts = text.split(',').map((s) => s.trim()).filter(Boolean);
  if (parts.length === 0) throw new UserError(`--metric: empty list; give e.g. --metric ${DEFAULT_METRICS}`);
  for (const part of parts) {
    const names = ALIASES[part.toLowerCase().replace(/-/g, '_')] ?? ALIASES[part.toLowerCase()];
    if (!names) {
      throw new UserError(`--metric: unknown metric '${part}'; choose from last, csr, forgetting (= forgetting_flip + forgetting_max), forgetting_flip, forgetting_max, bwt`);
    }
    for (const n of names) if (!out.includes(n)) out.push(n);
  }
  return out;
}

export type MetricValues = Record<MetricName, number | null>;

export function metricValues(report: MetricsReport): MetricValues {
  // ?? null: a summary.json from an older memrl may lack a field.
  return {
    last: report.last ?? null,
    csr: report.csrFinal ?? null,
    forgetting_flip: report.forgettingFlip ?? null,
    forgetting_max: report.forgettingMax ?? null,
    bwt: report.bwt ?? null,
  };
}
