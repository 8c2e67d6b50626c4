/** `memrl report <run-dir>...`: flags checked, runs read, one HTML document (cli/commands/report.ts writes it). */
import { UserError } from '../util/errors.js';
import { renderReport } from './html/render-report.js';
import { loadRuns } from './load-runs.js';
import { loadPaperResults } from './paper-results.js';
import { DEFAULT_BOOTSTRAP_SEED, DEFAULT_RESAMPLES } from './bootstrap.js';

export interface ReportFlags {
  out?: string;
  paper?: boolean;
  seed?: string | number;
  resamples?: string | number;
}

export function buildReport(paths: readonly string[], flags: ReportFlags, generatedAt?: string): string {
  const seed = Number(flags.seed ?? DEFAULT_BOOTSTRAP_SEED);
  const resamples = Number(flags.resamples ?? DEFAULT_RESAMPLES);
  if (!Number.isInteger(seed) || seed < 0) throw new UserError(`--seed ${flags.seed}: expected an integer ≥ 0`);
  if (!Number.isInteger(resamples) || resamples < 1) throw new UserError(`--resamples ${flags.resamples}: expected an integer ≥ 1`);
  return renderReport(loadRuns(paths), { seed, resamples, generatedAt, ...(flags.paper ? { paper: loadPaperResults() } : {}) });
}
