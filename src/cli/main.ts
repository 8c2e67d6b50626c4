/**
 * The CLI entry. Commands are loaded when they run, not when the CLI starts: `memrl
 * --help` lists them from the table below without importing any, and `memrl run bcb`
 * imports the run command (and, only when the run starts, models and evaluators).
 * Plug-ins (--plugin, memrl.plugins of --config) are loaded before the command is
 * built, so their benchmarks and methods get subcommands and flags like built-in ones.
 *
 * Errors end here: a MemrlError prints one line and exits by its kind and code
 * (exit-codes.ts); anything else is a bug, printed with its stack under MEMRL_DEBUG.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import type { Registry } from '../app/registry.js';
import { MemrlError, errorMessage } from '../util/errors.js';
import { fsError, humanizeErrno } from '../util/fs-errors.js';
import { memrlVersion } from '../util/version.js';
import { EXIT, exitCodeOf } from './exit-codes.js';

export interface CommandEntry {
  name: string;
  description: string;
  /** Imports the command and registers it (options, subcommands, action). */
  register(program: Command, registry: Registry): Promise<void>;
  /** Needs the registry (and so the plug-ins). */
  registry?: boolean;
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'run',
    description: 'Run a benchmark through the shared memory engine (train epochs, optional validation)',
    registry: true,
    register: async (p, r) => (await import('./commands/run.js')).registerRunCommand(p, r),
  },
  {
    name: 'config',
    description: 'check a config file and print it fully resolved (defaults < YAML < flags), secrets redacted',
    registry: true,
    register: async (p, r) => void (await import('./commands/config.js')).registerConfigCommand(p, r),
  },
  { name: 'memory', description: 'inspect and exercise the memory engine', register: async (p) => (await import('./commands/memory-replay.js')).registerMemoryCommand(p) },
  {
    name: 'sweep',
    description: 'run a grid of runs (benchmarks × methods × seeds × any config key) from a sweep file; re-running finishes what is unfinished',
    registry: true,
    register: async (p, r) => (await import('./commands/sweep.js')).registerSweepCommand(p, r),
  },
  {
    name: 'worker',
    description: 'take jobs from a BullMQ queue on Redis (cells of sweeps, episodes of `memrl run --queue`) and run them, until stopped (SIGTERM: finish the jobs in hand, then exit)',
    registry: true,
    register: async (p, r) => (await import('./commands/worker.js')).registerWorkerCommand(p, r),
  },
  {
    name: 'check-gold',
    description: 'replay gold answers through an evaluator to measure this machine (not a model)',
    registry: true,
    register: async (p, r) => (await import('./commands/check-gold.js')).registerCheckGoldCommand(p, r),
  },
  {
    name: 'table',
    description: 'print a results table (methods × benchmarks) from run folders, with across-seed bootstrap intervals',
    register: async (p) => (await import('./commands/table.js')).registerTableCommand(p),
  },
  {
    name: 'view',
    description: 'browse runs in a local web app (127.0.0.1 only): task × epoch grids, each episode’s transcript and memories, two runs side by side, a memory’s life',
    register: async (p) => (await import('./commands/view.js')).registerViewCommand(p),
  },
  {
    name: 'analyze',
    description: "the paper's analyses from run folders: Q-critic, memory dynamics, task similarity, lifelong metrics, ablations; writes analysis.json into each run",
    register: async (p) => (await import('./commands/analyze.js')).registerAnalyzeCommand(p),
  },
  {
    name: 'compare',
    description:
      'compare a candidate run with a baseline and exit 1 when a metric got worse by more than the tolerance (0 ok, 1 regression, 2 usage error, unreadable input or mismatched runs)',
    register: async (p) => (await import('./commands/compare.js')).registerCompareCommand(p),
  },
  {
    name: 'export',
    description: 'write the outcome matrix (one row per task × epoch × phase) as Parquet, Arrow IPC or CSV',
    register: async (p) => (await import('./commands/export.js')).registerExportCommand(p),
  },
  {
    name: 'report',
    description: 'write one self-contained HTML report (curves, forgetting, comparison, memory, cost, manifests)',
    register: async (p) => (await import('./commands/report.js')).registerReportCommand(p),
  },
  {
    name: 'doctor',
    description: 'check which evaluator backends (local sandbox, containers) work on this machine, and why not',
    registry: true,
    register: async (p, r) => (await import('./commands/doctor.js')).registerDoctorCommand(p, r),
  },
  {
    name: 'fidelity',
    description: "replay input → output vectors recorded from the reference code through memrl's own functions; agreement per file",
    registry: true,
    register: async (p, r) => (await import('./commands/fidelity.js')).registerFidelityCommand(p, r),
  },
  {
    name: 'prompts',
    description: "list prompt templates; export memrl's as a pack, or import the reference's from a MemRL checkout",
    registry: true,
    register: async (p, r) => (await import('./commands/prompts.js')).registerPromptsCommand(p, r),
  },
  {
    name: 'plugin',
    description: 'write a plug-in: a benchmark or memory method in a folder of its own',
    register: async (p) => (await import('./commands/plugin.js')).registerPluginCommand(p),
  },
  {
    name: 'data',
    description: "fetch the benchmarks' datasets into a cache (pull), check them against their pinned checksums (verify), show where each is (list, path)",
    registry: true,
    register: async (p, r) => (await import('./commands/data.js')).registerDataCommand(p, r),
  },
  {
    name: 'cleanup',
    description: 'remove containers left by crashed memrl runs (found by their dev.memrl labels)',
    register: async (p) => (await import('./commands/cleanup.js')).registerCleanupCommand(p),
  },
];

function newProgram(): Command {
  return (
    new Command('memrl')
      .description('Memory-augmented LLM agents on real benchmarks (MemRL, arXiv 2601.03192) and their baselines')
      .version(memrlVersion(), '-V, --version')
      .exitOverride()
      // One line per error: commander's "(Did you mean …?)" joins the line it belongs to.
      .configureOutput({ outputError: (text, write) => write(text.replace(/\n\(Did you mean (.+)\?\)\n?$/, ' (did you mean $1?)\n')) })
  );
}

/** The program with every command listed (for help); none of them loaded. */
export function buildProgram(): Command {
  const program = newProgram();
  for (const c of COMMANDS) program.command(c.name).description(c.description).allowUnknownOption().helpOption(false);
  return program;
}

/** How prescan reads a config file: once (a pipe can be read only once; the config load gets the same text). */
export interface ConfigReader {
  parse(text: string): unknown;
  read(path: string): string;
}

/**
 * What argv says before commander sees it: the command, and the plug-ins named on the
 * line or in the memrl.plugins of its config file (read with `config` when given).
 */
export function prescan(args: readonly string[], config?: ConfigReader): { command: string | undefined; plugins: string[] } {
  const { command, configFile } = scanArgs(args);
  const plugins: string[] = [];
  forEachFlag(args, (flag, value) => {
    if (flag === '--plugin') plugins.push(value);
    // A resumed run brings back the plug-ins it was run with.
    if (flag === '--resume') plugins.push(...pluginsOfRun(value));
  });
  if (configFile && config) plugins.push(...pluginsInConfig(configFile, config));
  return { command, plugins };
}

/** The command, and the config file the line names (--config, or `memrl config <file>`). */
function scanArgs(args: readonly string[]): { command: string | undefined; configFile: string | undefined } {
  const positional = args.filter((a, i) => !a.startsWith('-') && !(i > 0 && /^--(config|plugin|benchmark)$/.test(args[i - 1] ?? '')));
  let command = positional[0];
  if (command === 'help') command = positional[1];
  let configFile: string | undefined;
  forEachFlag(args, (flag, value) => {
    if (flag === '--config') configFile = value;
  });
  // `memrl config <file>` names the file as an argument.
  if (command === 'config' && !configFile) configFile = positional[1];
  return { command, configFile };
}

/** Each `--flag value` or `--flag=value` before `--`. */
function forEachFlag(args: readonly string[], fn: (flag: string, value: string) => void): void {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') break;
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = inline ?? args[i + 1];
    if (value !== undefined) fn(flag!, value);
  }
}

/** The plug-ins a run folder's run.json records (its absolute paths). */
function pluginsOfRun(dir: string): string[] {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { plugins?: unknown };
    return Array.isArray(manifest.plugins) ? manifest.plugins.filter((p): p is string => typeof p === 'string') : [];
  } catch {
    return [];
  }
}

/** memrl.plugins of a config file, read raw: a bad file is reported by the real config load. */
function pluginsInConfig(file: string, config: ConfigReader): string[] {
  try {
    const data = config.parse(config.read(file)) as { memrl?: { plugins?: unknown } } | null;
    const list = data?.memrl?.plugins;
    return Array.isArray(list) ? list.filter((p): p is string => typeof p === 'string') : [];
  } catch {
    return [];
  }
}

/** Entry point: user errors become one line on stderr and a non-zero exit code, never a stack trace. */
export async function main(argv: string[]): Promise<void> {
  const args = argv.slice(2);
  // Output piped into a reader that stopped (`memrl … | head`): nothing more to say, not a stack trace with EPIPE.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  try {
    // Relative paths, config files and run folders all resolve against it: a deleted one is one line, not a raw ENOENT.
    process.cwd();
    const { command } = prescan(args);
    const entry = COMMANDS.find((c) => c.name === command);
    const program = newProgram();
    let registry: Registry | undefined;
    if (entry?.registry) {
      const { builtinRegistry } = await import('../app/registry.js');
      // A config file may name plug-ins (memrl.plugins); YAML is read only when there is one, and only once (a pipe can be read once).
      const { configFile } = scanArgs(args);
      const reader: ConfigReader | undefined = configFile ? { parse: (await import('yaml')).parse, read: (await import('../config/yaml-source.js')).readConfigText } : undefined;
      const { plugins } = prescan(args, reader);
      registry = builtinRegistry();
      if (plugins.length) registry = await (await import('../app/plugins.js')).loadPlugins(registry, plugins);
    }
    for (const c of COMMANDS) {
      if (c === entry) await c.register(program, registry as Registry);
      else program.command(c.name).description(c.description).allowUnknownOption().helpOption(false);
    }
    for (const cmd of program.commands) cmd.exitOverride();
    await program.parseAsync(entry?.name === 'run' ? (await import('./run-flags.js')).normalizeSnakeCaseArgs(argv, registry) : argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version exit 0; commander already printed its message.
      process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.badInput;
      return;
    }
    if (err instanceof MemrlError) {
      process.stderr.write(`memrl: ${humanizeErrno(err.message)}\n`);
      // A plug-in's own exception: its stack, when asked for.
      if (err.cause !== undefined && args.includes('--verbose')) process.stderr.write(`${err.cause instanceof Error ? err.cause.stack : String(err.cause)}\n`);
      process.exitCode = exitCodeOf(err);
      return;
    }
    // A system error (a full disk, a read-only folder, a path too long): the machine's or the input's, said in words.
    const system = fsError(err);
    if (system) {
      process.stderr.write(`memrl: ${system.message}\n`);
      if (process.env.MEMRL_DEBUG) process.stderr.write(`${(err as Error)?.stack ?? ''}\n`);
      process.exitCode = exitCodeOf(system);
      return;
    }
    process.stderr.write(`memrl: ${humanizeErrno(errorMessage(err))}\n`);
    if (process.env.MEMRL_DEBUG) process.stderr.write(`${(err as Error)?.stack ?? ''}\n`);
    process.exitCode = EXIT.fault;
  }
}
