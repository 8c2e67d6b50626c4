/**
 * `memrl check-gold bcb`: replay BigCodeBench's canonical solutions through the
 * evaluator (local sandbox, or containers with --evaluator docker) and report
 * which fail here and why. A report, not a test: it
 * exits 0 whatever the pass rate, and non-zero only on bad input or no sandbox.
 */
import { writeFileSync } from 'node:fs';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { checkGoldBcb, type GoldReport, type GoldTaskResult } from '../../bench/bcb/check-gold.js';
import type { BcbSubset } from '../../bench/bcb/dataset.js';
import { MAX_TIMEOUT_SEC, type BcbEvalMode } from '../../bench/bcb/evaluate.js';
import { UserError, errorMessage } from '../../util/errors.js';
import { checkGoldLlb, formatLlbGoldSummary } from '../../bench/llb/check-gold.js';
import { loadConfig } from '../../config/load.js';
import type { DockerSettings } from '../../config/types.js';

/**
 * Gold checks take BigCodeBench's hard limit as the budget: a few canonical
 * solutions legitimately run 60-90 s (servers with run_duration, scripts that
 * sleep past a 60 s timeout), and a gold check should not call those failures.
 */
const GOLD_TIMEOUT_SEC = MAX_TIMEOUT_SEC;

interface BcbGoldFlags {
  limit?: number;
  subset: BcbSubset;
  concurrency: number;
  mode: BcbEvalMode;
  dataPath?: string;
  ids?: string[];
  timeout?: number;
  out?: string;
  quiet?: boolean;
  evaluator?: 'local' | 'docker';
  dockerHost?: string;
  image?: string;
  config?: string;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number');
  return n;
}

function idList(value: string): string[] {
  const ids = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (ids.length === 0) throw new InvalidArgumentError('expected a comma-separated list of task ids');
  return ids;
}

export function registerCheckGoldCommand(program: Command): void {
  const gold = program
    .command('check-gold')
    .description('replay gold answers through an evaluator to measure this machine (not a model)');
  gold
    .command('bcb')
    .description('run BigCodeBench canonical solutions in the evaluator (local sandbox or containers); print the pass rate and every failure')
    .addOption(new Option('--subset <subset>', 'task subset').choices(['full', 'hard']).default('full'))
    .addOption(
      new Option('--mode <mode>', 'reference: run the program as given; calibrated: prepend code_prompt like BigCodeBench')
        .choices(['reference', 'calibrated'])
        .default('reference'),
    )
    .option('--limit <n>', 'only the first N tasks (by id number)', positiveInt)
    .option('--ids <ids>', 'only these task ids, comma-separated (e.g. 13,BigCodeBench/42)', idList)
    .option('--concurrency <n>', 'sandboxes (or containers) running at once', positiveInt, 1)
    .addOption(
      new Option('--evaluator <backend>', 'where the tests run: local = bubblewrap sandbox, docker = one container per task (default: memrl.evaluator.backend of --config, else local)').choices(['local', 'docker']),
    )
    .option('--docker-host <url>', 'container engine for --evaluator docker (default: memrl.evaluator.docker.host, else DOCKER_HOST, else the usual sockets)')
    .option('--image <name>', 'image for --evaluator docker (default: memrl.evaluator.docker.images.bcb, i.e. memrl/bcb:latest from scripts/build-images.sh bcb)')
    .option('--config <file>', 'YAML config whose memrl.evaluator section to use (container limits, engine, image)')
    .option('--timeout <sec>', 'per-task wall-clock budget in seconds (max 120)', positiveNumber, GOLD_TIMEOUT_SEC)
    .option('--data-path <path>', 'BigCodeBench .jsonl or .jsonl.gz (default: shared data dir)')
    .option('--out <file>', 'also write the full report as JSON')
    .option('-q, --quiet', 'no per-task progress lines')
    .action(async (flags: BcbGoldFlags) => {
      await runBcbGold(flags);
    });
  gold
    .command('llb')
    .description('LifelongAgentBench: run every gold SQL (db) or ground-truth script (os) and its check, locally or in containers; print the pass rate, failing ids and vacuous checks')
    .addOption(new Option('--task <task>', 'task family').choices(['db', 'os']).default('db'))
    .option('--file <path>', 'LLB data file (default: the shared *_runtime_learning_data.json, 500 tasks)')
    .option('--limit <n>', 'only the first N tasks (string order of sample index)', positiveInt)
    .option('--ids <ids>', 'only these sample indices, comma-separated (e.g. 3,db/17)', idList)
    .option('--concurrency <n>', 'tasks running at once', positiveInt, 8)
    .addOption(new Option('--evaluator <backend>', 'local = host MariaDB / bubblewrap rootfs; docker = containers (default: memrl.evaluator.backend of --config, else local)').choices(['local', 'docker']))
    .option('--docker-host <url>', 'container engine for --evaluator docker (default: memrl.evaluator.docker.host, else DOCKER_HOST, else the usual sockets)')
    .option('--image <name>', 'image for --evaluator docker (default: memrl.evaluator.docker.images.llb_db / llb_os, i.e. mysql:8 / memrl/llb-os:latest)')
    .option('--config <file>', 'YAML config whose memrl.evaluator section to use')
    .option('--out <file>', 'also write the full report as JSON')
    .option('-q, --quiet', 'no per-task progress lines')
    .action(async (flags: LlbGoldFlags) => {
      const report = await checkGoldLlb({
        task: flags.task,
        file: flags.file,
        limit: flags.limit,
        ids: flags.ids,
        concurrency: flags.concurrency,
        evaluator: llbEvaluator(flags),
        onResult: flags.quiet ? undefined : (r, done, total) => process.stderr.write(`[${done}/${total}] ${r.id} ${r.pass ? 'pass' : 'FAIL'}${r.vacuous ? ' (vacuous)' : ''}\n`),
      });
      process.stdout.write(formatLlbGoldSummary(report));
      if (flags.out) writeReport(flags.out, report);
    });
}

interface LlbGoldFlags {
  task: 'db' | 'os';
  file?: string;
  limit?: number;
  ids?: string[];
  concurrency: number;
  evaluator?: 'local' | 'docker';
  dockerHost?: string;
  image?: string;
  config?: string;
  out?: string;
  quiet?: boolean;
}

/** memrl.evaluator of --config (or the defaults), with the flags on top. */
function llbEvaluator(flags: LlbGoldFlags): { backend: 'local' | 'docker'; docker: DockerSettings } {
  const ev = loadConfig(flags.config, { ...(flags.evaluator ? { evaluator: flags.evaluator } : {}), ...(flags.dockerHost ? { dockerHost: flags.dockerHost } : {}) }, 'llb').evaluator;
  const docker = flags.image ? { ...ev.docker, images: { ...ev.docker.images, [flags.task === 'db' ? 'llbDb' : 'llbOs']: flags.image } } : ev.docker;
  return { backend: ev.backend, docker };
}

/** memrl.evaluator of --config (or the defaults), with the flags on top. */
function bcbEvaluator(flags: BcbGoldFlags): { backend: 'local' | 'docker'; docker: DockerSettings } {
  // inspect: a gold check calls no model, so a config without its API key at hand is fine.
  const ev = loadConfig(flags.config, { ...(flags.evaluator ? { evaluator: flags.evaluator } : {}), ...(flags.dockerHost ? { dockerHost: flags.dockerHost } : {}) }, 'bcb', { inspect: true }).evaluator;
  return { backend: ev.backend, docker: flags.image ? { ...ev.docker, images: { ...ev.docker.images, bcb: flags.image } } : ev.docker };
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

async function runBcbGold(flags: BcbGoldFlags): Promise<void> {
  const abort = new AbortController();
  const onSigint = (): void => abort.abort();
  process.once('SIGINT', onSigint);
  let report: GoldReport;
  try {
    report = await checkGoldBcb({
      subset: flags.subset,
      mode: flags.mode,
      concurrency: flags.concurrency,
      signal: abort.signal,
      ...(flags.limit !== undefined ? { limit: flags.limit } : {}),
      ...(flags.ids ? { ids: flags.ids } : {}),
      ...(flags.dataPath ? { dataPath: flags.dataPath } : {}),
      ...(flags.timeout !== undefined ? { timeoutSec: flags.timeout } : {}),
      ...bcbEvaluator(flags),
      onResult: flags.quiet ? undefined : (r, done, total) => process.stderr.write(progressLine(r, done, total) + '\n'),
    });
  } finally {
    process.off('SIGINT', onSigint);
  }
  if (abort.signal.aborted) throw new UserError('interrupted', 130);
  process.stdout.write(formatGoldSummary(report));
  if (flags.out) writeReport(flags.out, report);
}

/** The JSON report of a gold check, for --out. */
function writeReport(path: string, report: unknown): void {
  try {
    writeFileSync(path, JSON.stringify(report, null, 2) + '\n');
  } catch (err) {
    throw new UserError(`cannot write report ${path}: ${errorMessage(err)}`);
  }
  process.stdout.write(`report written to ${path}\n`);
}
