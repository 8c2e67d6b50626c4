import type { Command } from 'commander';
import type { Registry } from '../../app/registry.js';
import { closest } from '../../config/issues.js';
import { UserError } from '../../util/errors.js';
import { EXIT } from '../exit-codes.js';

interface SweepFlags {
  outputDir: string;
  maxRuns: string;
  concurrency: string;
  queue?: string;
  dryRun?: boolean;
  budgetUsd?: string;
}

const positive = (flag: string, raw: string): number => {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new UserError(`${flag} ${raw}: give a whole number ≥ 1`);
  return n;
};

const positiveUsd = (raw: string): number => {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0) throw new UserError(`--budget-usd ${raw}: give a positive number of US dollars`, 'bad_arguments');
  return n;
};

const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const SUBCOMMANDS = ['run', 'status'];

/** Extra words after the default command's file: a misspelt subcommand, or one argument too many. */
function unknownSubcommand(first: string, rest: readonly string[]): UserError {
  const near = closest(first, SUBCOMMANDS);
  if (near) return new UserError(`sweep ${first}: unknown sweep command (did you mean \`memrl sweep ${near} ${rest.join(' ')}\`?)`, 'unknown_command');
  return new UserError(`sweep ${first} ${rest.join(' ')}: give one sweep file (memrl sweep <file>), or a command: memrl sweep status <dir>`, 'bad_arguments');
}

/** `memrl sweep <sweep.yaml>` runs (or finishes) a grid of runs; `memrl sweep status <dir>` shows it. */
export function registerSweepCommand(program: Command, registry: Registry): void {
  const sweep = program
    .command('sweep')
    .description('run a grid of runs (benchmarks × methods × seeds × any config key) from a sweep file; re-running finishes what is unfinished')
    .addHelpText('after', '\nExamples:\n  memrl sweep configs/sweeps/quickstart.yaml            # offline, about a minute\n  memrl sweep configs/sweeps/paper.yaml --dry-run      # calls, tokens, dollars and hours per cell, no call made\n  memrl sweep status sweeps/quickstart\n  memrl table sweeps/quickstart --paper\n  memrl sweep configs/sweeps/paper.yaml --queue redis://127.0.0.1:6379   # cells to `memrl worker`s\n\nDetails: docs/scale.md\n');
  sweep
    .command('run <file> [more...]', { isDefault: true })
    .description('run every unfinished cell of the sweep file (the default: memrl sweep <file>)')
    .option('--output-dir <dir>', 'where the sweep folder <name>/ goes', 'sweeps')
    .option('--max-runs <n>', 'cells running at once in this process', '2')
    .option('--concurrency <n>', 'episodes in flight across all running cells (one shared budget)', '4')
    .option('--queue <url>', 'hand the cells to `memrl worker`s through BullMQ on this Redis (redis://host:port) instead of running them here')
    .option('--dry-run', "estimate every cell's model calls, tokens, cost and time from the prompts it would send, print them with the totals, and exit without a call or a folder")
    .option('--budget-usd <x>', "stop the whole sweep (resumably) once its cells' billed calls cost this many US dollars, counted over every cell and attempt; run again with a larger value to go on")
    .action(async (file: string, more: string[], flags: SweepFlags) => {
      // `memrl sweep stauts x` reaches the default command with two words: say what was meant.
      if (more.length > 0) throw unknownSubcommand(file, more);
      const maxRuns = positive('--max-runs', flags.maxRuns);
      const concurrency = positive('--concurrency', flags.concurrency);
      const budgetUsd = flags.budgetUsd === undefined ? undefined : positiveUsd(flags.budgetUsd);
      if (budgetUsd !== undefined && flags.queue) throw new UserError('--budget-usd with --queue: the cells run on workers, which this process cannot stop; set memrl.budget.usd per cell in the sweep file\'s set instead, or run the sweep here', 'bad_arguments');
      // The sweep's plug-ins (its plugins: list, its base configs' memrl.plugins) before its axes are checked.
      const { sweepRegistry } = await import('../../sweep/plugins.js');
      const withPlugins = await sweepRegistry(file, registry);
      if (flags.dryRun) {
        const { sweepEstimateText } = await import('../../sweep/estimate-text.js');
        process.stdout.write(await sweepEstimateText(file, withPlugins, { maxRuns, perCell: true }));
        return;
      }
      if (flags.queue) {
        // Before any folder is made: a wrong URL leaves nothing behind.
        const { checkReachable, queueTarget } = await import('../../sweep/queue.js');
        await checkReachable(queueTarget(flags.queue));
      }
      const { openSweep } = await import('../../sweep/prepare.js');
      const sweepOpen = openSweep(file, flags.outputDir, withPlugins);
      // What the cells still to run will cost, said before the first of them starts.
      const { sweepEstimateText } = await import('../../sweep/estimate-text.js');
      process.stderr.write(await sweepEstimateText(file, withPlugins, { maxRuns, perCell: false, cells: sweepOpen.cells.filter((c) => sweepOpen.state.cells.find((s) => s.id === c.id)?.status !== 'complete') }));
      let budget: import('../../sweep/budget.js').SweepBudget | undefined;
      const ac = new AbortController();
      let interrupts = 0;
      const onSigint = (signal: NodeJS.Signals): void => {
        if (++interrupts > 1) process.exit(EXIT.interrupted);
        process.stderr.write(`\nmemrl: interrupted${signal === 'SIGINT' ? '' : ` (${signal})`}; stopping the running cells after their running episodes (${signal === 'SIGINT' ? 'Ctrl-C' : signal} again to quit now)\n`);
        ac.abort();
      };
      for (const signal of STOP_SIGNALS) process.on(signal, onSigint);
      try {
        let cells;
        if (flags.queue) {
          const { runSweepOnQueue } = await import('../../sweep/queue-coordinator.js');
          cells = await runSweepOnQueue(sweepOpen, { url: flags.queue, err: (t) => process.stderr.write(t), signal: ac.signal });
        } else {
          const { runSweepLocally } = await import('../../sweep/run-local.js');
          const left = sweepOpen.state.cells.filter((c) => c.status !== 'complete').length;
          process.stderr.write(`memrl: sweep ${sweepOpen.spec.name}: ${sweepOpen.cells.length} cells, ${left} to run (${sweepOpen.dir})\n`);
          const { cellStarts, renderCellStarts } = await import('../../sweep/cell-starts.js');
          process.stderr.write(renderCellStarts(cellStarts(sweepOpen)));
          const { SweepBudget } = await import('../../sweep/budget.js');
          budget = budgetUsd === undefined ? undefined : new SweepBudget(budgetUsd, sweepOpen.dir, sweepOpen.cells);
          cells = await runSweepLocally(sweepOpen, { maxRuns, concurrency, registry: withPlugins, err: (t) => process.stderr.write(t), signal: ac.signal, ...(budget ? { budget } : {}) });
        }
        const { renderSweepStatus } = await import('../../sweep/status.js');
        const { sweepStateFromDisk } = await import('../../sweep/state.js');
        process.stderr.write(renderSweepStatus(sweepStateFromDisk(sweepOpen.dir)));
        process.stdout.write(`sweep: ${sweepOpen.dir}\n`);
        const unfinished = cells.filter((c) => c.status !== 'complete');
        if (unfinished.length > 0 && budget?.reached()) {
          process.stderr.write(`memrl: ${budget.line()}\n`);
          process.exitCode = EXIT.budget;
        } else if (unfinished.length > 0) {
          process.stderr.write(`${unfinished.length} cell(s) unfinished; run the same command again to finish them\n`);
          process.exitCode = ac.signal.aborted ? EXIT.interrupted : EXIT.fault;
        }
      } finally {
        for (const signal of STOP_SIGNALS) process.off(signal, onSigint);
      }
    });
  sweep
    .command('status <dir>')
    .description("print a sweep's grid: each cell's status, epochs and last accuracy")
    .action(async (dir: string) => {
      const { sweepStateFromDisk } = await import('../../sweep/state.js');
      const { renderSweepStatus } = await import('../../sweep/status.js');
      // Each cell as its run folder says now (sweep.json may be stale: a sweep killed while its cells ran).
      process.stdout.write(renderSweepStatus(sweepStateFromDisk(dir)));
    });
}
