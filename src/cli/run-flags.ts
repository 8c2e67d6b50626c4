/**
 * Commander options from flag definitions (src/config/flags.ts): the options of
 * `memrl run <benchmark>` and `memrl config`, their hidden snake_case aliases, and the
 * flag values read back from commander. Nothing here knows a benchmark by name.
 *
 * The reference spells flags in snake_case (--split_file). Those spellings are accepted
 * too: as hidden aliases on the command (so they work however argv reached commander),
 * and normalizeSnakeCaseArgs() rewrites them in argv for callers that prefer to
 * normalise up front. Only known flags are rewritten.
 */
import { Command, InvalidArgumentError, Option, type OptionValues } from 'commander';
import { flagAttr, FlagValueError, longName, type FlagDef, type FlagValues } from '../config/flags.js';
import { helpDefaults, runFlagsFor } from '../config/run-flags.js';
import type { BenchmarkConfigPart } from '../config/types.js';
import { builtinRegistry, findBenchmark, type Registry } from '../app/registry.js';

/** The run flags of a benchmark (by name, in the registry; default: the built-ins). */
export function runFlagDefs(benchmark: string | BenchmarkConfigPart, registry: Registry = builtinRegistry()): FlagDef[] {
  const part = typeof benchmark === 'string' ? findBenchmark(registry, benchmark) : benchmark;
  return runFlagsFor(part, registry.methods.map((m) => m.name));
}

/** A flag's parser as commander wants it: a bad value is commander's "argument ... is invalid. <why>". */
function argParser(def: FlagDef): ((raw: string, previous: unknown) => unknown) | undefined {
  const parse = def.parse;
  if (!parse && !def.repeatable) return undefined;
  return (raw, previous) => {
    let value: unknown = raw;
    if (parse) {
      try {
        value = parse(raw);
      } catch (err) {
        if (err instanceof FlagValueError) throw new InvalidArgumentError(err.message);
        throw err;
      }
    }
    return def.repeatable ? [...((previous as unknown[] | undefined) ?? []), value] : value;
  };
}

function buildOption(def: FlagDef & { default?: unknown }, flags = def.flags, hidden = false): Option {
  const option = new Option(flags, hidden ? `same as ${longName(def)}` : def.description);
  if (def.choices) option.choices(def.choices);
  const parser = argParser(def);
  if (parser) option.argParser(parser);
  if (def.default !== undefined) option.default(def.default);
  if (hidden) option.hideHelp();
  return option;
}

/** Adds these flags (and their hidden snake_case aliases and --no- forms) to `cmd`. */
export function addFlags(cmd: Command, defs: readonly (FlagDef & { default?: unknown })[]): Command {
  for (const def of defs) {
    const shown = def.snake ? { ...def, description: `${def.description} [also ${def.snake}]` } : def;
    cmd.addOption(buildOption(shown));
    if (def.snake) cmd.addOption(buildOption(def, def.flags.replace(longName(def), def.snake), true));
    if (def.negatable) cmd.addOption(new Option(`--no-${longName(def).slice(2)}`, def.negatable));
  }
  return cmd;
}

/** Adds `memrl run <benchmark>`'s flags to `cmd`, their help's defaults filled in as the run would resolve them. */
export function addRunOptions(cmd: Command, benchmark: string | BenchmarkConfigPart, registry: Registry = builtinRegistry()): Command {
  const part = typeof benchmark === 'string' ? findBenchmark(registry, benchmark) : benchmark;
  return addFlags(cmd, runFlagsFor(part, registry.methods.map((m) => m.name), helpDefaults(registry, part)));
}

// commander's attribute name for '--split_file' is 'split_file'; for '--split-file', 'splitFile'.
const snakeAttr = (snake: string) => snake.slice(2);

/** Flag values from `cmd.opts()`, folding the snake_case aliases in (the kebab spelling wins); unset flags are absent. */
export function flagsFrom(opts: OptionValues, defs: readonly FlagDef[]): FlagValues {
  const flags: FlagValues = {};
  for (const def of defs) {
    const attr = flagAttr(def);
    const value = opts[attr] ?? (def.snake ? opts[snakeAttr(def.snake)] : undefined);
    if (value !== undefined) flags[attr] = def.transform ? def.transform(value) : value;
  }
  return flags;
}

/** The flag values of `memrl run <benchmark>` from its parsed options. */
export function runFlagsFromOptions(opts: OptionValues, benchmark: string | BenchmarkConfigPart, registry?: Registry): FlagValues {
  return flagsFrom(opts, runFlagDefs(benchmark, registry));
}

/** snake_case spelling → kebab-case flag, over every registered benchmark's flags. */
export function snakeCaseAliases(registry: Registry = builtinRegistry()): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  for (const b of registry.benchmarks) for (const def of runFlagDefs(b, registry)) if (def.snake) out.set(def.snake, longName(def));
  return out;
}

/**
 * Rewrites known snake_case flags (`--split_file x`, `--split_file=x`) to their
 * kebab-case form. Unknown flags and everything after `--` are left alone.
 */
export function normalizeSnakeCaseArgs(argv: readonly string[], registry?: Registry): string[] {
  const aliases = snakeCaseAliases(registry);
  const out: string[] = [];
  let passthrough = false;
  for (const arg of argv) {
    if (passthrough || !arg.startsWith('--')) {
      out.push(arg);
      if (arg === '--') passthrough = true;
      continue;
    }
    if (arg === '--') {
      passthrough = true;
      out.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const kebab = aliases.get(name);
    out.push(kebab ? kebab + (eq === -1 ? '' : arg.slice(eq)) : arg);
  }
  return out;
}
