/**
 * `memrl check-gold <benchmark>`: one subcommand per registered benchmark that has a
 * gold check (its module's goldCheck): gold answers through the evaluator, to measure
 * this machine rather than a model.
 */
import { Command, type OptionValues } from 'commander';
import { builtinRegistry, type Registry } from '../../app/registry.js';
import type { BenchmarkModule, GoldCheck } from '../../core/benchmark.js';
import { withExamples } from '../help.js';
import { addFlags } from '../run-flags.js';

export function registerCheckGoldCommand(program: Command, registry: Registry = builtinRegistry()): void {
  const gold = program.command('check-gold').description('replay gold answers through an evaluator to measure this machine (not a model)');
  const checked = registry.benchmarks.filter((b) => b.goldCheck);
  for (const bench of checked) registerGold(gold, bench, bench.goldCheck!, registry);
  // From the registry, so a plug-in benchmark with a gold check shows up too.
  const first = checked[0]?.name ?? '<benchmark>';
  withExamples(gold, [
    ...checked.map((b) => `memrl check-gold ${b.name} --limit 20`),
    `memrl check-gold ${first} --evaluator docker --out gold.json   # in containers, the report as JSON too`,
  ]).addHelpText('after', `Each benchmark's flags: memrl check-gold <benchmark> --help\n`);
}

function registerGold(gold: Command, bench: BenchmarkModule, check: GoldCheck, registry: Registry): void {
  const cmd = addFlags(gold.command(bench.name).description(check.description), check.flags);
  withExamples(cmd, [`memrl check-gold ${bench.name} --limit 20`, `memrl check-gold ${bench.name} --evaluator docker --out gold.json`]);
  cmd.action(async (values: OptionValues) => {
    const abort = new AbortController();
    const onSigint = (): void => abort.abort();
    process.once('SIGINT', onSigint);
    try {
      // The config loader (and YAML) loads when a check runs, not for --help.
      const { loadConfig } = await import('../../app/config.js');
      await check.run(values, {
        io: { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) },
        signal: abort.signal,
        loadConfig: (path, flags) => loadConfig(path, flags, bench.name, { inspect: true, registry }),
      });
    } finally {
      process.off('SIGINT', onSigint);
    }
  });
}
