/**
 * `memrl run <benchmark>`: one subcommand per registered benchmark, its flags derived
 * from the benchmark's flag table. The action parses, starts the run through the app
 * layer, turns Ctrl-C into a clean stop, prints the final lines and sets the exit code.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command, OptionValues } from 'commander';
import type { Registry } from '../../app/registry.js';
import type { RunOptions } from '../../app/start-run.js';
import type { BenchmarkModule } from '../../core/benchmark.js';
import { fsError, isSystemError } from '../../util/fs-errors.js';
import { EXIT } from '../exit-codes.js';
import { withExamples } from '../help.js';
import { addRunOptions, runFlagsFromOptions } from '../run-flags.js';

export function registerRunCommand(program: Command, registry: Registry): void {
  const run = withExamples(program.command('run').description('Run a benchmark through the shared memory engine (train epochs, optional validation)'), [
    'memrl run bcb --epochs 3 --limit 50',
    'memrl run bcb --help                  # every flag of one benchmark, with its default',
    'memrl run arithmetic --plugin examples/plugins/arithmetic/index.ts',
  ]);
  for (const bench of registry.benchmarks) registerBenchmark(run, bench, registry);
}

/** Signals that stop a run as Ctrl-C does: cleanly, resumable, exit 130. */
const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function fmt(x: number | null | undefined): string {
  return typeof x === 'number' ? x.toFixed(3) : '-';
}

function registerBenchmark(run: Command, bench: BenchmarkModule, registry: Registry): void {
  const cmd = run.command(bench.name).description(bench.description);
  addRunOptions(cmd, bench, registry);
  if (bench.examples?.length) withExamples(cmd, bench.examples);
  cmd.action(async (opts: OptionValues) => {
    // Loaded when a run starts, not when the CLI does: models, embedders, arrow, containers.
    const flags = runFlagsFromOptions(opts, bench, registry);
    if (flags.dryRun === true) {
      const { dryRunText } = await import('../../app/estimate/dry-run.js');
      process.stdout.write(await dryRunText(bench.name, flags, registry));
      return;
    }
    const { startRun } = await import('../../app/start-run.js');
    const queueUrl = typeof flags.queue === 'string' ? flags.queue : undefined;
    const distributed = queueUrl ? await distributedParts(queueUrl, bench) : undefined;
    const handle = await startRun(
      { benchmark: bench.name, flags, registry, command: process.argv.slice(2), ...(distributed ? { episodeQueue: distributed.episodeQueue, rateGates: distributed.rateGates } : {}) },
      { err: (t) => process.stderr.write(t), tty: process.stderr.isTTY === true },
    ).catch(async (err: unknown) => {
      await distributed?.close();
      throw err;
    });

    // Ctrl-C, and SIGTERM/SIGHUP alike (a `kill`, a closed terminal, a scheduler's stop): finish
    // cleanly (finished episodes are journaled; --resume continues). Twice: quit now.
    let interrupts = 0;
    const onSignal = (signal: NodeJS.Signals): void => {
      interrupts += 1;
      if (interrupts > 1) process.exit(EXIT.interrupted);
      const again = signal === 'SIGINT' ? 'Ctrl-C again' : `${signal} again`;
      process.stderr.write(`\nmemrl: interrupted${signal === 'SIGINT' ? '' : ` (${signal})`}; stopping after the running episodes (${again} to quit now)\n`);
      handle.stop();
    };
    for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
    try {
      const end = await handle.done.catch((err: unknown) => {
        // A full disk (or another system error) during the run: said in words, with how to resume once it is fixed.
        if (!isSystemError(err)) throw err;
        const resume = existsSync(join(handle.runDir, 'run.json')) ? { resume: `memrl run ${bench.name} --resume ${handle.runDir}` } : {};
        throw fsError(err, { path: err.path ?? handle.runDir, ...resume });
      });
      // --resume alone restores every setting of the run (and its plug-ins).
      const queueHint = distributed ? ` --queue ${distributed.label}` : '';
      const resumeHint = (extra = ''): string => `resume with: memrl run ${bench.name} --resume ${handle.runDir}${queueHint}${extra}`;
      if (end.budgetCut !== undefined) {
        process.stderr.write(`stopped by the budget (${end.budgetCut}); ${resumeHint(` ${end.budget!.flag} <more>`)}\n`);
        process.exitCode = EXIT.budget;
        return;
      }
      const result = end.result;
      if (!result) {
        // The budget was already spent before this attempt started.
        process.exitCode = EXIT.budget;
        return;
      }
      const s = result.summary;
      // A stopped epoch's accuracy counts the tasks it did not reach as unsolved: said, so it is not read as the epoch's result.
      const lastEpoch = s.metrics.train.epochs.at(-1);
      const partial = result.interrupted && lastEpoch && lastEpoch.missing > 0 && lastEpoch.ran > 0 ? ` (epoch ${lastEpoch.epoch} unfinished: ${lastEpoch.ran} of ${lastEpoch.ran + lastEpoch.missing} tasks ran, the rest count as unsolved)` : '';
      // The reference's LLB/HLE accuracy leaves errored rows out; shown beside ours when they differ.
      const refAcc = s.train.lastExcludingErrors !== s.train.last ? ` (${fmt(s.train.lastExcludingErrors)} excluding errors, as the reference counts)` : '';
      // The results line is the command's output (stdout); the rest is diagnostics (stderr).
      const results = `results: ${handle.runDir}\n`;
      if (result.failure) {
        process.stderr.write(`failed: ${result.failure}\nfix the cause, then ${resumeHint()}\n`);
        process.stdout.write(results);
        process.exitCode = EXIT.fault;
        return;
      }
      process.stderr.write(
        `${result.interrupted ? 'interrupted' : 'done'}: ${result.epochsCompleted}/${handle.config.run.epochs} epoch(s); ` +
          `last acc ${fmt(s.train.last)}${refAcc}${partial}, CSR ${fmt(s.train.csr)}${s.valid ? `, valid acc ${fmt(s.valid.last)}` : ''}\n` +
          (result.interrupted ? `${resumeHint(end.budget ? ` ${end.budget.flag} <more>` : '')}\n` : ''),
      );
      process.stdout.write(results);
      if (result.interrupted) process.exitCode = end.budget ? EXIT.budget : EXIT.interrupted;
    } finally {
      for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
      await distributed?.close();
    }
  });
}

/**
 * `--queue`: Redis must answer now (one line within 10 s if not). The run's episodes go
 * to the queue of what they need; its endpoint rate limit is kept in Redis, shared with the workers.
 */
async function distributedParts(url: string, bench: BenchmarkModule): Promise<{ label: string; episodeQueue: NonNullable<RunOptions['episodeQueue']>; rateGates: NonNullable<RunOptions['rateGates']>; close(): Promise<void> }> {
  const { checkReachable, queueTarget, queueName, cellNeeds } = await import('../../sweep/queue.js');
  const target = queueTarget(url);
  await checkReachable(target);
  const { openEpisodeQueue } = await import('../../sweep/episode-queue.js');
  const { redisRateGates } = await import('../../sweep/redis-rate-gate.js');
  const gates = redisRateGates(target);
  return {
    // The URL with its password hidden: safe to print in the resume hint.
    label: target.label,
    episodeQueue: ({ config }) => openEpisodeQueue(url, queueName(cellNeeds({ config }, bench), 'episodes'), { warn: (line) => process.stderr.write(line) }),
    rateGates: gates.factory,
    close: () => gates.close(),
  };
}
