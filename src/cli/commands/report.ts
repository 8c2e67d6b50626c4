/**
 * `memrl report <paths...>`: one self-contained HTML file from run folders. Chart.js,
 * the readers and the renderer (report/report-cli.ts) load when the command runs, not
 * for its --help.
 */
import type { Command } from 'commander';
import { DEFAULT_BOOTSTRAP_SEED, DEFAULT_RESAMPLES } from '../../report/bootstrap.js';
import type { ReportFlags } from '../../report/report-cli.js';

export const DEFAULT_REPORT_FILE = 'memrl-report.html';

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
    .action(async (paths: string[], flags: ReportFlags) => {
      const { buildReport } = await import('../../report/report-cli.js');
      const { writeExport } = await import('../../report/export-cli.js');
      const html = buildReport(paths, flags);
      const out = flags.out ?? DEFAULT_REPORT_FILE;
      writeExport(out, Buffer.from(html, 'utf8'));
      process.stderr.write(`memrl: wrote ${out}\n`);
    });
}
