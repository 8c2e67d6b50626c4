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
}

const positive = (flag: string, raw: string): number => {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new UserError(`${flag} ${raw}: give a whole number ≥ 1`);
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
    .addHelpText('after', '\nExamples:\n  memrl sweep configs/sweeps/quickstart.yaml            # offline, about a minute\n  memrl sweep status sweeps/quickstart\n  memrl table sweeps/quickstart --paper\n  memrl sweep configs/sweeps/paper.yaml --queue redis://127.0.0.1:6379   # cells to `memrl worker`s\n\nDetails: docs/scale.md\n');
  sweep
    .command('run <file> [more...]', { isDefault: true })
    .description('run every unfinished cell of the sweep file (the default: memrl sweep <file>)')
    .option('--output-dir <dir>', 'where the sweep folder <name>/ goes', 'sweeps')
    .option('--max-runs <n>', 'cells running at once in this process', '2')
    .option('--concurrency <n>', 'episodes in flight across all running cells (one shared budget)', '4')
    .option('--queue <url>', 'hand the cells to `memrl worker`s through BullMQ on this Redis (redis://host:port) instead of running them here')
    .action(async (file: string, more: string[], flags: SweepFlags) => {
      // `memrl sweep stauts x` reaches the default command with two words: say what was meant.
      if (more.length > 0) throw unknownSubcommand(file, more);
      const maxRuns = positive('--max-runs', flags.maxRuns);
      const concurrency = positive('--concurrency', flags.concurrency);
      if (flags.queue) {
        // Before any folder is made: a wrong URL leaves nothing behind.
        const { checkReachable, queueTarget } = await import('../../sweep/queue.js');
        await checkReachable(queueTarget(flags.queue));
      }
      // The sweep's plug-ins (its plugins: list, its base configs' memrl.plugins) before its axes are checked.
      const { sweepRegistry } = await import('../../sweep/plugins.js');
      const withPlugins = await sweepRegistry(file, registry);
      const { openSweep } = await import('../../sweep/prepare.js');
      const sweepOpen = openSweep(file, flags.outputDir, withPlugins);
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
          cells = await runSweepLocally(sweepOpen, { maxRuns, concurrency, registry: withPlugins, err: (t) => process.stderr.write(t), signal: ac.signal });
        }
        const { renderSweepStatus } = await import('../../sweep/status.js');
        const { sweepStateFromDisk } = await import('../../sweep/state.js');
        process.stderr.write(renderSweepStatus(sweepStateFromDisk(sweepOpen.dir)));
        process.stdout.write(`sweep: ${sweepOpen.dir}\n`);
        const unfinished = cells.filter((c) => c.status !== 'complete');
        if (unfinished.length > 0) {
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
