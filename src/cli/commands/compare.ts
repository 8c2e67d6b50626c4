/**
 * `memrl compare`: a regression gate for CI. Compares a baseline (run folders, a
 * summary.json or a saved baseline file) with candidate runs and exits
 *   0  no checked metric regressed
 *   1  a metric regressed (see src/compare/compare.ts for the decision rule)
 *   2  usage error, unreadable input, or a refused like-with-like mismatch
 * `--save-baseline <file> <runs...>` writes the compact baseline file instead.
 */
import { Option, type Command } from 'commander';
import { writeBaseline } from '../../compare/baseline-file.js';
import { sideMismatches } from '../../compare/compat.js';
import { compareRuns, type Comparison } from '../../compare/compare.js';
import { renderJunit } from '../../compare/junit.js';
import { loadRuns } from '../../compare/load.js';
import { DEFAULT_METRICS, parseMetricList } from '../../compare/metrics.js';
import { renderMarkdown } from '../../compare/render-markdown.js';
import { renderText } from '../../compare/render-text.js';
import type { OutcomePhase } from '../../metrics/outcome-row.js';
import { writeFileAtomic } from '../../util/fs.js';
import { UserError, errorMessage } from '../../util/errors.js';
import { num } from '../../compare/format.js';
import { causeOf } from '../../util/fs-errors.js';

export interface CompareFlags {
  baselineRuns?: string[];
  candidateRuns?: string[];
  metric: string;
  tolerance: string;
  perTask?: boolean;
  phase: OutcomePhase;
  junit?: string;
  json?: string;
  markdown?: string;
  format: 'text' | 'md' | 'json';
  force?: boolean;
  saveBaseline?: string;
  bootstrapSamples: string;
  bootstrapSeed: string;
}

export interface CompareIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

const processIo: CompareIo = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

export function registerCompareCommand(program: Command, io: CompareIo = processIo): void {
  program
    .command('compare')
    .usage('<baseline> <candidate...> [options]')
    .description(
      'compare a candidate run with a baseline and exit 1 when a metric got worse by more than the tolerance ' +
        '(0 ok, 1 regression, 2 usage error, unreadable input or mismatched runs)',
    )
    .argument('[paths...]', 'baseline (run folder, folder of runs, summary.json or baseline file) then candidate run folder(s)')
    .option('--baseline-runs <paths...>', 'several baseline runs (e.g. seeds): run folders, folders holding them, or baseline files')
    .option('--candidate-runs <paths...>', 'several candidate runs, compared by mean and bootstrap interval')
    .option('--metric <list>', 'metrics to gate on: last, csr, forgetting (= forgetting_flip,forgetting_max), forgetting_flip, forgetting_max, bwt', DEFAULT_METRICS)
    .option('--tolerance <x>', 'allowed worsening per metric, absolute on the 0..1 scale', '0.02')
    .option('--per-task', 'list the tasks that flipped between solved and failed in the final epoch')
    .addOption(new Option('--phase <phase>', 'which outcomes to compare').choices(['train', 'valid']).default('train'))
    .option('--junit <file>', 'write the comparison as JUnit XML (a testcase per metric, one listing flipped tasks)')
    .option('--json <file>', 'write the full comparison as JSON')
    .option('--markdown <file>', 'write a Markdown summary for a pull-request comment')
    .addOption(new Option('--format <format>', 'what to print').choices(['text', 'md', 'json']).default('text'))
    .option('--force', 'compare even when benchmark, split, method or sim-vs-real differ')
    .option('--save-baseline <file>', 'write the given runs as a compact baseline file to commit (no comparison)')
    .option('--bootstrap-samples <n>', 'bootstrap resamples when a side has several runs', '10000')
    .option('--bootstrap-seed <n>', 'seed of the bootstrap (same seed, same interval)', '1')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  memrl compare examples/ci/baseline.json results/bcb/<run-id> --per-task --junit report.xml',
        '  memrl compare --baseline-runs base/bcb --candidate-runs cand/bcb --tolerance 0.03   (several seeds each)',
        '  memrl compare --save-baseline baseline.json results/bcb/<run-id>                   (write a baseline to commit)',
        '',
        'Exit codes: 0 no regression, 1 a metric regressed, 2 usage error, unreadable input or mismatched runs.',
        'Decision rule and file formats: docs/compare.md',
      ].join('\n'),
    )
    .action((paths: string[], flags: CompareFlags) => {
      process.exitCode = runCompare(paths, flags, io);
    });
}

/** The whole command; returns the exit code (a UserError exits 2). */
export function runCompare(paths: string[], flags: CompareFlags, io: CompareIo = processIo): number {
  try {
    if (flags.saveBaseline !== undefined) return saveBaseline(paths, flags, io);
    return compare(paths, flags, io);
  } catch (err) {
    // Exit 1 means "regression": an unexpected failure must not look like one.
    if (err instanceof UserError) throw err;
    throw new UserError(`compare: ${errorMessage(err)}`);
  }
}

function saveBaseline(paths: string[], flags: CompareFlags, io: CompareIo): number {
  const file = flags.saveBaseline!;
  if (flags.baselineRuns || flags.candidateRuns) {
    throw new UserError(`--save-baseline ${file}: give the runs to save as arguments (memrl compare --save-baseline ${file} <runs...>), not with --baseline-runs/--candidate-runs`);
  }
  if (paths.length === 0) throw new UserError(`--save-baseline ${file}: give the run folder(s) to save, e.g. memrl compare --save-baseline ${file} results/bcb/<run-id>`);
  const runs = loadRuns(paths, 'run');
  const mixed = sideMismatches(runs, 'saved');
  if (mixed.length > 0 && !flags.force) throw new UserError(`--save-baseline ${file}: ${mixed.join('; ')}; save one experiment per baseline, or pass --force`);
  writeBaseline(file, runs.map((r) => r.data));
  const first = runs[0]!.data;
  const train = first.phases.train?.metrics;
  io.err(
    `saved baseline ${file}: ${runs.length} run(s) of ${first.benchmark}, method ${first.method}, model ${first.model}` +
      `${train ? `; train last ${num(train.last)}, csr ${num(train.csr)}` : ''}` +
      `${runs.some((r) => r.data.phases.train?.final === null) ? ' (no per-task outcomes: a summary.json was given)' : ''}\n`,
  );
  return 0;
}

function parseNumber(flag: string, text: string, ok: (n: number) => boolean, want: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || !ok(n)) throw new UserError(`${flag} ${text}: expected ${want}`);
  return n;
}

function compare(paths: string[], flags: CompareFlags, io: CompareIo): number {
  let basePaths: string[];
  let candPaths: string[];
  if (flags.baselineRuns || flags.candidateRuns) {
    if (!flags.baselineRuns || !flags.candidateRuns) throw new UserError('--baseline-runs and --candidate-runs go together: give both');
    if (paths.length > 0) throw new UserError(`unexpected argument ${paths[0]}: with --baseline-runs/--candidate-runs, list every run under those flags`);
    basePaths = flags.baselineRuns;
    candPaths = flags.candidateRuns;
  } else {
    if (paths.length < 2) {
      throw new UserError('give a baseline and a candidate: memrl compare <baseline> <candidate...> (or --baseline-runs ... --candidate-runs ...)');
    }
    [basePaths, candPaths] = [paths.slice(0, 1), paths.slice(1)];
  }
  const tolerance = parseNumber('--tolerance', flags.tolerance, (n) => n >= 0 && n < 1, 'a number in [0, 1), e.g. 0.02');
  const samples = parseNumber('--bootstrap-samples', flags.bootstrapSamples, (n) => Number.isInteger(n) && n >= 100 && n <= 1_000_000, 'an integer from 100 to 1000000');
  const seed = parseNumber('--bootstrap-seed', flags.bootstrapSeed, (n) => Number.isInteger(n) && n >= 0, 'a non-negative integer');
  const metrics = parseMetricList(flags.metric);

  const comparison = compareRuns(loadRuns(basePaths, 'baseline'), loadRuns(candPaths, 'candidate'), {
    metrics,
    tolerance,
    phase: flags.phase,
    force: flags.force === true,
    bootstrap: { samples, seed, level: 0.95 },
  });
  writeReports(comparison, flags);
  if (flags.format === 'json') io.out(`${JSON.stringify(comparison, null, 2)}\n`);
  else if (flags.format === 'md') io.out(renderMarkdown(comparison));
  else io.out(renderText(comparison, { perTask: flags.perTask === true }));
  return comparison.exitCode;
}

function writeReports(c: Comparison, flags: CompareFlags): void {
  const write = (flag: string, file: string | undefined, text: () => string): void => {
    if (file === undefined) return;
    try {
      writeFileAtomic(file, text());
    } catch (err) {
      throw new UserError(`${flag} ${file}: cannot write (${causeOf(err)})`);
    }
  };
  write('--junit', flags.junit, () => renderJunit(c));
  write('--json', flags.json, () => `${JSON.stringify(c, null, 2)}\n`);
  write('--markdown', flags.markdown, () => renderMarkdown(c));
}
