/**
 * `memrl check-gold bcb`: replay BigCodeBench's canonical solutions through the
 * evaluator (local sandbox, or containers with --evaluator docker) and report which
 * fail here and why. A report, not a test: it exits 0 whatever the pass rate, and
 * non-zero only on bad input or no sandbox.
 */
import { decimal, positiveInt, type FlagDef, type FlagValues } from '../../config/flags.js';
import type { GoldCheck, GoldCheckContext } from '../../core/benchmark.js';
import { InterruptedError } from '../../util/errors.js';
import { goldEvaluator, goldFlags, idList, writeGoldReport, type GoldEvaluatorFlags } from '../gold.js';
// Types only: the checker and its evaluators load when the command runs, not with the CLI.
import type { GoldReport, GoldTaskResult } from './check-gold.js';
import type { BcbSubset } from './dataset.js';
import type { BcbEvalMode } from './evaluate.js';

/**
 * Gold checks take the reference's effective limit as the budget (the runner's 120 s
 * join, evaluate.ts's testTimeLimit): a few canonical solutions legitimately run 60-90 s (servers with
 * run_duration, scripts that sleep past a 60 s timeout), and a gold check should not
 * call those failures.
 */
const GOLD_TIMEOUT_SEC = 120;

const positiveNumber = decimal((n) => n > 0, 'a positive number');

const FLAGS: readonly (FlagDef & { default?: unknown })[] = [
  { flags: '--subset <subset>', description: 'task subset', choices: ['full', 'hard'], default: 'full', path: null },
  {
    flags: '--mode <mode>',
    description: 'reference: run the program as given; calibrated: prepend code_prompt like BigCodeBench',
    choices: ['reference', 'calibrated'],
    default: 'reference',
    path: null,
  },
  { flags: '--limit <n>', description: 'only the first N tasks (by id number)', parse: positiveInt, path: null },
  { flags: '--ids <ids>', description: 'only these task ids, comma-separated (e.g. 13,BigCodeBench/42)', parse: idList, path: null },
  { flags: '--concurrency <n>', description: 'sandboxes (or containers) running at once', parse: positiveInt, default: 1, path: null },
  { flags: '--timeout <sec>', description: 'per-task wall-clock budget in seconds (max 120)', parse: positiveNumber, default: GOLD_TIMEOUT_SEC, path: null },
  { flags: '--data-path <path>', description: 'BigCodeBench .jsonl or .jsonl.gz (default: the pulled release, memrl data pull bcb)', path: null },
  {
    flags: '--fork-server',
    description: 'run each test in a child of a warm interpreter (default: memrl.evaluator.fork_server of --config, else on)',
    negatable: 'a fresh interpreter per test',
    path: null,
  },
  {
    flags: '--slowest-first',
    description:
      "start the slowest tasks first, so none starts last and runs alone: by this machine's earlier checks (kept in ~/.cache/memrl/gold-durations), else by the durations shipped with memrl (default on)",
    negatable: 'start the tasks in id order and keep no durations',
    path: null,
  },
  ...goldFlags({
    evaluator: 'where the tests run: local = bubblewrap sandbox, docker = one container per task (default: memrl.evaluator.backend of --config, else local)',
    image: 'image for --evaluator docker (default: memrl.evaluator.docker.images.bcb, i.e. memrl/bcb:latest from scripts/build-images.sh bcb)',
    config: 'YAML config whose memrl.evaluator section to use (container limits, engine, image)',
  }),
];

interface BcbGoldFlags extends GoldEvaluatorFlags {
  limit?: number;
  subset: BcbSubset;
  concurrency: number;
  mode: BcbEvalMode;
  dataPath?: string;
  ids?: string[];
  timeout?: number;
  forkServer?: boolean;
  slowestFirst?: boolean;
  out?: string;
  quiet?: boolean;
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

function progressLine(r: GoldTaskResult, done: number, total: number): string {
  const width = String(total).length;
  const head = `[${String(done).padStart(width)}/${total}] ${r.id} ${r.status} ${formatSeconds(r.durationMs)}`;
  return r.status === 'pass' ? head : `${head}  ${r.firstError ?? ''}`;
}

/** 'docker memrl/bcb:latest (3f2a…), ' for container runs; nothing for the local sandbox. */
function where(report: GoldReport): string {
  if (report.backend !== 'docker') return '';
  const id = report.image?.id.replace(/^sha256:/, '').slice(0, 12);
  return `docker ${report.image?.name ?? ''}${id ? ` ${id}` : ''}, `;
}

export function formatGoldSummary(report: GoldReport): string {
  const pct = (100 * report.passRate).toFixed(1);
  const lines = [
    `BigCodeBench gold check (${report.subset}, ${report.mode} mode, ${where(report)}${report.python} ${report.pythonVersion ?? ''})`.trimEnd(),
    `passed ${report.passed}/${report.total} (${pct}%)  median ${formatSeconds(report.medianMs)}/task  wall ${formatSeconds(report.wallMs)}`,
    `by status: ${Object.entries(report.byStatus).map(([k, v]) => `${k} ${v}`).join(', ')}`,
  ];
  if (report.failing.length > 0) {
    lines.push(`failures by likely cause: ${Object.entries(report.byCategory).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  }
  if (report.missingLibs.length > 0) lines.push(`libraries the sandbox lacks: ${report.missingLibs.join(', ')}`);
  if (report.failing.length > 0) {
    lines.push('failing tasks:');
    const idWidth = Math.max(...report.failing.map((f) => f.id.length));
    for (const f of report.failing) {
      lines.push(`  ${f.id.padEnd(idWidth)}  ${f.status.padEnd(13)}  ${f.category ?? ''}${f.firstError ? `: ${f.firstError}` : ''}`);
    }
  }
  return lines.join('\n') + '\n';
}

export const bcbGoldCheck: GoldCheck = {
  description: 'run BigCodeBench canonical solutions in the evaluator (local sandbox or containers); print the pass rate and every failure',
  flags: FLAGS,
  async run(values: FlagValues, ctx: GoldCheckContext): Promise<void> {
    const flags = values as unknown as BcbGoldFlags;
    const { checkGoldBcb } = await import('./check-gold.js');
    const report = await checkGoldBcb({
      subset: flags.subset,
      mode: flags.mode,
      concurrency: flags.concurrency,
      signal: ctx.signal,
      ...(flags.limit !== undefined ? { limit: flags.limit } : {}),
      ...(flags.ids ? { ids: flags.ids } : {}),
      ...(flags.dataPath ? { dataPath: flags.dataPath } : {}),
      ...(flags.timeout !== undefined ? { timeoutSec: flags.timeout } : {}),
      ...goldEvaluator(flags, ctx, 'bcb'),
      ...(flags.forkServer !== undefined ? { forkServer: flags.forkServer } : {}),
      ...(flags.slowestFirst === false ? { durationsPath: null } : {}),
      onResult: flags.quiet ? undefined : (r, done, total) => ctx.io.err(progressLine(r, done, total) + '\n'),
    });
    if (ctx.signal.aborted) throw new InterruptedError();
    ctx.io.out(formatGoldSummary(report));
    if (flags.out) writeGoldReport(flags.out, report, ctx.io);
  },
};
