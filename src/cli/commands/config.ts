/**
 * `memrl config [file]`: load a config the way `memrl run <benchmark>` would and print
 * it, secrets redacted, with the keys that have no effect. It takes the flags of the
 * benchmark named by --benchmark (default bcb), so `memrl config --benchmark llb --task
 * os` checks exactly what `memrl run llb --task os` would use. A bad file prints one
 * line naming file, line and key, and sets exit code 2.
 */
import { Command, Option, type OptionValues } from 'commander';
import { builtinRegistry, defaultBenchmark, findBenchmark, type Registry } from '../../app/registry.js';
import type { ResolvedConfig } from '../../config/types.js';
import { UserError, errorMessage } from '../../util/errors.js';
import { exitCodeOf } from '../exit-codes.js';
import { withExamples } from '../help.js';
import { addRunOptions, runFlagsFromOptions } from '../run-flags.js';

export function registerConfigCommand(program: Command, registry: Registry = builtinRegistry()): Command {
  const names = registry.benchmarks.map((b) => b.name);
  const cmd = program
    .command('config')
    .description('check a config file and print it fully resolved (defaults < YAML < flags), secrets redacted')
    .argument('[file]', 'YAML config (default: the built-in quickstart)')
    .addOption(new Option('--benchmark <name>', `benchmark whose defaults, rules and flags apply (default: ${defaultBenchmark(registry)})`).choices(names))
    .option('--derived', 'print the derived run settings (method, memory parameters, epochs, ...) instead of the config tree')
    .option('--explain', 'list every config key with its type, default and meaning, then exit')
    // The other flags are the chosen benchmark's run flags: parsed again below, once it is known.
    .allowUnknownOption()
    .allowExcessArguments()
    .addHelpText('after', '\nAlso takes the flags of `memrl run <benchmark>` (see `memrl run <benchmark> --help`).');
  withExamples(cmd, [
    'memrl config configs/bcb.yaml                      # check a file: resolved tree, inert keys, notes',
    'memrl config --benchmark llb --task os --derived   # the settings a run would use',
    'memrl config --explain --benchmark hle             # every key, its default and meaning',
  ]);
  cmd.action(async (_file: string | undefined, opts: OptionValues, self: Command) => {
    const benchmark = (opts.benchmark as string | undefined) ?? defaultBenchmark(registry);
    try {
      // The loader, YAML and the schema's text load when the command runs, not for --help.
      const { explainText, loadConfig } = await import('../../app/config.js');
      if (opts.explain) {
        process.stdout.write(explainText(benchmark, registry));
        return;
      }
      const runFlags = addRunOptions(new Command('config').argument('[file]').exitOverride(), findBenchmark(registry, benchmark), registry);
      runFlags.parse(self.args, { from: 'user' });
      const file = runFlags.args[0];
      const flags = runFlagsFromOptions(runFlags.opts(), benchmark, registry);
      if (file && typeof flags.config === 'string' && file !== flags.config) {
        throw new UserError(`give the config file once: either as an argument (${file}) or with --config (${flags.config})`);
      }
      const resolved = loadConfig(file ?? (flags.config as string | undefined), flags, benchmark, { inspect: true, registry });
      process.stdout.write(await render(resolved, Boolean(opts.derived)));
    } catch (err) {
      if (!(err instanceof UserError)) throw err;
      process.stderr.write(`memrl: ${errorMessage(err)}\n`);
      process.exitCode = exitCodeOf(err);
    }
  });
  return cmd;
}

async function render(resolved: ResolvedConfig, derived: boolean): Promise<string> {
  const { stringify } = await import('yaml');
  const { redactConfig, withoutUnusedEndpoints } = await import('../../config/redact.js');
  const header = [
    `# memrl config: ${resolved.source}`,
    `# benchmark ${resolved.benchmark}, method ${resolved.method} (${resolved.methodReason})`,
  ];
  let body: string;
  if (derived) {
    const { config: _tree, notes: _notes, inertKeys: _inert, unreadKeys: _unread, fileKeys: _keys, fidelity, ...settings } = resolved;
    body = stringify(redactConfig({ ...settings, fidelity: { profile: fidelity.profile, switches: fidelity.settings } }), { lineWidth: 0 });
  } else {
    body = stringify(redactConfig(withoutUnusedEndpoints(resolved.config)), { lineWidth: 0 });
  }
  const footer: string[] = [];
  if (resolved.inertKeys.length) {
    footer.push('# inert keys in the file (accepted for compatibility, no effect):');
    for (const { key, reason } of resolved.inertKeys) footer.push(`#   ${key}: ${reason}`);
  }
  if (resolved.unreadKeys.length) {
    footer.push(`# keys in the file that ${resolved.benchmark} does not read: ${resolved.unreadKeys.join(', ')}`);
  }
  for (const note of resolved.notes) footer.push(`# note: ${note}`);
  return [...header, body.trimEnd(), ...footer].join('\n') + '\n';
}
