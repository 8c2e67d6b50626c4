/**
 * `memrl report <run-dir>...`: flags checked, runs read, one HTML file written.
 * The Commander registration lives here until src/cli/commands/ gets a report.ts.
 */
import type { Command } from 'commander';
import { UserError } from '../util/errors.js';
import { writeExport } from './export-cli.js';
import { renderReport } from './html/render-report.js';
import { loadRuns } from './load-runs.js';
import { loadPaperResults } from './paper-results.js';
import { DEFAULT_BOOTSTRAP_SEED, DEFAULT_RESAMPLES } from './table-cli.js';

export interface ReportFlags {
  out?: string;
  paper?: boolean;
  seed?: string | number;
  resamples?: string | number;
}

export const DEFAULT_REPORT_FILE = 'memrl-report.html';

export function buildReport(paths: readonly string[], flags: ReportFlags, generatedAt?: string): string {
  const seed = Number(flags.seed ?? DEFAULT_BOOTSTRAP_SEED);
  const resamples = Number(flags.resamples ?? DEFAULT_RESAMPLES);
  if (!Number.isInteger(seed) || seed < 0) throw new UserError(`--seed ${flags.seed}: expected an integer ≥ 0`);
  if (!Number.isInteger(resamples) || resamples < 1) throw new UserError(`--resamples ${flags.resamples}: expected an integer ≥ 1`);
  return renderReport(loadRuns(paths), { seed, resamples, generatedAt, ...(flags.paper ? { paper: loadPaperResults() } : {}) });
}

export function registerReportCommand(program: Command): void {
  program
    .command('report')
    .argument('<paths...>', 'run folders, or folders holding them (e.g. results/bcb)')
    .description('write one self-contained HTML report (curves, forgetting, comparison, memory, cost, manifests)')
    .option('--out <file>', 'HTML file to write', DEFAULT_REPORT_FILE)
    .option('--seed <n>', 'seed of the bootstrap intervals', String(DEFAULT_BOOTSTRAP_SEED))
    .option('--resamples <n>', 'bootstrap resamples per cell', String(DEFAULT_RESAMPLES))
    .option('--paper', "add the paper's published numbers: reference rows in the comparison, dashed lines on the learning curves")
    .addHelpText('after', `\nExamples:\n  memrl report results/ --out report.html\n  memrl report results/ --paper\n  memrl report results/bcb/<run-a> results/bcb/<run-b>\n`)
    .action((paths: string[], flags: ReportFlags) => {
      const html = buildReport(paths, flags);
      const out = flags.out ?? DEFAULT_REPORT_FILE;
      writeExport(out, Buffer.from(html, 'utf8'));
      process.stderr.write(`memrl: wrote ${out}\n`);
    });
}
