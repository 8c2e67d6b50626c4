import type { Command } from 'commander';
import { DEFAULT_BOOTSTRAP_SEED, DEFAULT_RESAMPLES, renderTable, type TableFlags } from '../../report/table-cli.js';
import { TABLE_METRICS } from '../../report/table-metrics.js';

/** `memrl table <paths...>`: the paper-style results table from run folders. */
export function registerTableCommand(program: Command): void {
  program
    .command('table')
    .argument('<paths...>', 'run folders, or folders holding them (e.g. results/)')
    .description('print a results table (methods × benchmarks) from run folders, with across-seed bootstrap intervals')
    .option('--format <format>', 'md, latex or csv', 'md')
    .option('--metric <list>', `comma-separated: ${TABLE_METRICS.map((m) => m.key).join(', ')}`, 'last,csr')
    .option('--by <dims>', 'rows,columns: method,benchmark or benchmark,method', 'method,benchmark')
    .option('--phase <phase>', 'train or valid (validation set)', 'train')
    .option('--paper', "add the paper's published numbers (data/paper-results.json) as reference rows")
    .option('--seed <n>', 'seed of the bootstrap intervals', String(DEFAULT_BOOTSTRAP_SEED))
    .option('--resamples <n>', 'bootstrap resamples per cell', String(DEFAULT_RESAMPLES))
    .addHelpText('after', `\nExamples:\n  memrl table results/                          # every run below, methods × benchmarks\n  memrl table results/ --paper --format latex   # with the paper's numbers, for a paper\n  memrl table results/bcb --metric last,csr,forgetting --by benchmark,method\n`)
    .action((paths: string[], flags: TableFlags) => {
      const { text, warnings } = renderTable(paths, flags);
      for (const w of warnings) process.stderr.write(`memrl: note: ${w}\n`);
      process.stdout.write(text);
    });
}
