/**
 * --budget-usd, --budget-tokens, --prices and --cache: from the command line (and
 * from memrl.budget / memrl.prices / memrl.cache_dir in a file) to the run settings.
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addRunOptions, runFlagsFromOptions as flagsOf } from '../../src/cli/run-flags.js';
import type { FlagValues as RunFlags } from '../../src/config/flags.js';

const addRunBcbOptions = (cmd: Command): Command => addRunOptions(cmd, 'bcb');
const addRunHleOptions = (cmd: Command): Command => addRunOptions(cmd, 'hle');
const runFlagsFromOptions = (opts: Record<string, unknown>): RunFlags => flagsOf(opts, 'bcb');
const runHleFlagsFromOptions = (opts: Record<string, unknown>): RunFlags => flagsOf(opts, 'hle');
import { loadConfig } from '../../src/app/config.js';
import { errorOf, tempYaml } from './helpers.js';

function parse(args: string[], hle = false): RunFlags {
  let flags: RunFlags | undefined;
  const cmd = (hle ? addRunHleOptions : addRunBcbOptions)(new Command('x').exitOverride().configureOutput({ writeErr: () => {} }));
  cmd.action((opts: Record<string, unknown>) => {
    flags = (hle ? runHleFlagsFromOptions : runFlagsFromOptions)(opts);
  });
  cmd.parse(args, { from: 'user' });
  return flags!;
}

const parseError = (args: string[]): string => {
  try {
    parse(args);
  } catch (err) {
    return (err as Error).message;
  }
  return '';
};

describe('budget, price and cache flags', () => {
  it('reach the run settings, for BCB and the other benchmarks alike', () => {
    const flags = parse(['--budget-usd', '2.5', '--budget-tokens', '100000', '--prices', 'my-prices.yaml', '--cache', 'shared']);
    const cfg = loadConfig(undefined, flags, 'bcb', { cwd: '/tmp/w' });
    expect(cfg.run).toMatchObject({ budgetUsd: 2.5, budgetTokens: 100000, pricesFile: '/tmp/w/my-prices.yaml', cacheDir: '/tmp/w/shared' });
    const hle = loadConfig(undefined, parse(['--budget-tokens', '7', '--cache', 'c'], true), 'hle', { cwd: '/tmp/w' });
    expect(hle.run).toMatchObject({ budgetTokens: 7, budgetUsd: null, cacheDir: '/tmp/w/c' });
    expect(loadConfig(undefined, {}, 'bcb').run).toMatchObject({ budgetUsd: null, budgetTokens: null, pricesFile: null });
  });

  it('reject values that are not a positive budget', () => {
    expect(parseError(['--budget-usd', 'abc'])).toMatch(/--budget-usd <x>.*positive number of US dollars/);
    expect(parseError(['--budget-usd', '0'])).toMatch(/positive number/);
    expect(parseError(['--budget-tokens', '1.5'])).toMatch(/--budget-tokens <n>/);
  });

  it('come from the memrl section of a file, flags winning', () => {
    const { file } = tempYaml('llm:\n  provider: sim\nembedding:\n  provider: local\nmemrl:\n  budget:\n    usd: "3"\n    tokens: 5000\n  prices: p.json\n');
    expect(loadConfig(file, {}, 'bcb').run).toMatchObject({ budgetUsd: 3, budgetTokens: 5000 });
    expect(loadConfig(file, { budgetTokens: 10 }, 'bcb').run.budgetTokens).toBe(10);
    expect(errorOf(() => loadConfig(tempYaml('llm:\n  provider: sim\nembedding:\n  provider: local\nmemrl:\n  budget:\n    usd: -1\n').file, {}, 'bcb'))).toMatch(/memrl\.budget\.usd/);
  });
});
