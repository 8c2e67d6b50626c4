import type { Command } from 'commander';
import { Option } from 'commander';
import { UserError } from '../../util/errors.js';

interface AnalyzeFlags {
  json?: boolean;
  write: boolean;
  highQ: string;
  bootstrap: string;
}

/** `memrl analyze <paths...>`: learning dynamics of runs (Q-critic, memory, similarity, lifelong metrics, ablations). */
export function registerAnalyzeCommand(program: Command): void {
  program
    .command('analyze')
    .argument('<paths...>', 'run folders, or folders holding them (a sweep, results/)')
    .description("the paper's analyses from run folders: Q-critic, memory dynamics, task similarity, lifelong metrics, ablations; writes analysis.json into each run")
    .option('--json', 'print everything as one JSON document instead of text')
    .option('--no-write', 'do not write analysis.json into the run folders')
    .option('--high-q <q>', 'Q above which an injected failure memory counts as a high-Q failure memory', '0.5')
    .addOption(new Option('--bootstrap <n>', 'bootstrap resamples for the correlation intervals').default('1000'))
    .addHelpText('after', '\nExamples:\n  memrl analyze results/bcb/20261124-…-memrl-sim-s42\n  memrl analyze sweeps/paper/ --json > analysis.json\n\nDefinitions: docs/analysis.md\n')
    .action(async (paths: string[], flags: AnalyzeFlags) => {
      const highQ = Number(flags.highQ);
      if (!Number.isFinite(highQ)) throw new UserError(`--high-q ${flags.highQ}: not a number`);
      const iterations = Number(flags.bootstrap);
      if (!Number.isInteger(iterations) || iterations < 0) throw new UserError(`--bootstrap ${flags.bootstrap}: give a whole number ≥ 0`);
      const [{ analyzePaths }, { renderCrossRun, renderRunAnalysis }, { embedderFor }] = await Promise.all([
        import('../../analysis/analyze.js'),
        import('../../analysis/render-text.js'),
        import('../../analysis/embedder.js'),
      ]);
      const { runs, cross } = await analyzePaths(paths, { highQ, bootstrapIterations: iterations, write: flags.write, embedderFor: (r) => embedderFor(r) });
      if (flags.json) {
        process.stdout.write(`${JSON.stringify({ runs, cross }, null, 2)}\n`);
        return;
      }
      process.stdout.write(runs.map(renderRunAnalysis).join('\n'));
      const c = renderCrossRun(cross);
      if (c) process.stdout.write(`\n${c}`);
      if (flags.write) process.stderr.write(`memrl: wrote analysis.json into ${runs.length} run folder(s)\n`);
    });
}
