/**
 * What makes two runs the same experiment, so that their seeds may be pooled: the same
 * benchmark variant (LLB db and os are different columns), method, model, data, and
 * every setting that can move a number. Seeds, speed, spending, paths and secrets do
 * not count.
 */
import { createHash } from 'node:crypto';
import type { RunJson } from '../core/run-files/index.js';

/** Config keys that cannot change what is measured (matched exactly, or by a `section.` prefix). */
const NOT_DEFINING = [
  'experiment.random_seed',
  // The method is its own dimension (run.json's method); naming it explicitly (a sweep does) or deriving it is the same run.
  'memrl.method',
  'memrl.sim.seed',
  'experiment.output_dir',
  'experiment.experiment_name',
  'experiment.log_level',
  'experiment.ckpt_resume_enabled',
  'experiment.ckpt_resume_path',
  'experiment.ckpt_resume_epoch',
  'memrl.concurrency',
  'memrl.cache_dir',
  'memrl.data.',
  'memrl.budget.',
  'memrl.prices',
  'memrl.plugins',
  'memrl.max_error_rate',
  'memrl.llm.',
  'memrl.evaluator.docker.host',
  'memrl.log_dir',
];

function defining(key: string): boolean {
  if (/(^|\.)(api_key|base_url|api_version)$/.test(key)) return false; // where the model is reached, not which model
  return !NOT_DEFINING.some((k) => key === k || (k.endsWith('.') && key.startsWith(k)));
}

/** The defining settings of a run, as key → JSON value: its config's leaves, plus its data files' hashes. */
export function definingSettings(manifest: Pick<RunJson, 'config' | 'dataset'>): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (v: unknown, prefix: string): void => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const [k, child] of Object.entries(v)) walk(child, prefix ? `${prefix}.${k}` : k);
    } else if (prefix && defining(prefix)) {
      out[prefix] = JSON.stringify(v);
    }
  };
  walk(manifest.config, '');
  out['dataset.sha256'] = JSON.stringify(manifest.dataset.sources.map((s) => s.sha256));
  return out;
}

export function experimentKey(settings: Record<string, string>): string {
  const canonical = JSON.stringify(Object.keys(settings).sort().map((k) => [k, settings[k]]));
  return createHash('sha256').update(canonical).digest('hex').slice(0, 12);
}

/**
 * The table column of a run: its benchmark, or benchmark-variant when the benchmark
 * labels its environment so (LLB's `llb-db`, `llb-os`).
 */
export function columnOf(benchmark: string, env: string): string {
  return env.startsWith(`${benchmark}-`) ? env : benchmark;
}

/** Short words for the settings that most often tell experiments apart. */
const SHORT: Record<string, (v: unknown) => string> = {
  'memrl.limit': (v) => (v === null ? 'all tasks' : `limit ${String(v)}`),
  'experiment.num_sections': (v) => `${String(v)} epochs`,
  'dataset.sha256': () => 'other data',
};

/**
 * How runs of one group differ: a label per experiment key naming only the differing
 * settings. `words`: the benchmarks' short words for their own settings (`{value}` for
 * the value), e.g. { 'memrl.x.subset': '{value} subset' }.
 */
export function differenceLabels(runs: readonly { key: string; settings: Record<string, string> }[], words: Readonly<Record<string, string>> = {}): Map<string, string> {
  const keys = [...new Set(runs.map((r) => r.key))];
  const labels = new Map<string, string>();
  if (keys.length < 2) return labels;
  const first = new Map(keys.map((k) => [k, runs.find((r) => r.key === k)!.settings]));
  const all = new Set([...first.values()].flatMap((s) => Object.keys(s)));
  const differing = [...all].filter((k) => new Set([...first.values()].map((s) => s[k])).size > 1);
  for (const [key, settings] of first) {
    const parts = differing.slice(0, 3).map((k) => {
      const raw = settings[k];
      if (raw === undefined) return `${k} unset`;
      const value = JSON.parse(raw) as unknown;
      if (SHORT[k]) return SHORT[k](value);
      return words[k] ? words[k].replace('{value}', String(value)) : `${k}=${raw}`;
    });
    labels.set(key, parts.join(', ') + (differing.length > 3 ? ', …' : ''));
  }
  return labels;
}
