import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addRunOptions, normalizeSnakeCaseArgs, runFlagsFromOptions as flagsOf } from '../../src/cli/run-flags.js';
import type { FlagValues as RunFlags } from '../../src/config/flags.js';

const addRunBcbOptions = (cmd: Command): Command => addRunOptions(cmd, 'bcb');
const runFlagsFromOptions = (opts: Record<string, unknown>): RunFlags => flagsOf(opts, 'bcb');

function parse(args: string[]): RunFlags {
  let flags: RunFlags | undefined;
  const cmd = addRunBcbOptions(new Command('bcb').exitOverride().configureOutput({ writeErr: () => {} }));
  cmd.action((opts: Record<string, unknown>) => {
    flags = runFlagsFromOptions(opts);
  });
  cmd.parse(args, { from: 'user' });
  return flags!;
}

function parseError(args: string[]): string {
  try {
    parse(args);
  } catch (err) {
    return (err as Error).message;
  }
  return '';
}

describe('memrl run bcb flags', () => {
  it('parses the reference flags into camelCase RunFlags', () => {
    expect(
      parse(['--subset', 'full', '--split', 'complete', '--epochs', '10', '--retrieve-k', '3', '--retrieve-threshold', '0.4', '--eval-timeout', '30', '--max-tokens', '2048', '--train-ratio', '0.8', '--seed', '7']),
    ).toEqual({ subset: 'full', split: 'complete', epochs: 10, retrieveK: 3, retrieveThreshold: 0.4, evalTimeout: 30, maxTokens: 2048, trainRatio: 0.8, seed: 7 });
  });

  it('an unset flag is absent, so it cannot override the YAML file', () => {
    expect(parse([])).toEqual({});
  });

  it('accepts the reference\'s snake_case spellings', () => {
    expect(parse(['--split_file', 's.json', '--data_path=d.jsonl', '--retrieve_k', '2', '--untrusted_hard_timeout', '90', '--output_dir', 'out'])).toEqual({
      splitFile: 's.json',
      dataPath: 'd.jsonl',
      retrieveK: 2,
      untrustedHardTimeout: 90,
      outputDir: 'out',
    });
  });

  it('our flags: method, concurrency, limit, validation, resume, evaluator, bcb mode, batch size', () => {
    expect(
      parse(['--method', 'memp', '--concurrency', '8', '--limit', '20', '--run-validation', '--resume', 'r/1', '--evaluator', 'docker', '--bcb-mode', 'calibrated', '--batch-size', '5']),
    ).toEqual({ method: 'memp', concurrency: 8, limit: 20, runValidation: true, resume: 'r/1', evaluator: 'docker', bcbMode: 'calibrated', batchSize: 5 });
    expect(parse(['--no-run-validation'])).toEqual({ runValidation: false });
  });

  it('rejects bad numbers and unknown choices in one line', () => {
    expect(parseError(['--epochs', '0'])).toBe("error: option '--epochs <n>' argument '0' is invalid. Expected a positive integer.");
    expect(parseError(['--epochs', 'abc'])).toMatch(/--epochs <n>.*'abc' is invalid/);
    expect(parseError(['--epochs', '2.5'])).toMatch(/is invalid/);
    expect(parseError(['--temperature', '3'])).toMatch(/between 0 and 2/);
    expect(parseError(['--train-ratio', '1'])).toMatch(/between 0 and 1/);
    expect(parseError(['--retrieve_k', '-1'])).toMatch(/--retrieve_k <n>.*is invalid/);
    const method = parseError(['--method', 'foo']);
    expect(method).toBe("error: option '--method <name>' argument 'foo' is invalid. Allowed choices are none, rag, memp, memrl, reflection, passk, selfrag, mem0.");
  });

  it('every flag in --help explains itself and states its default', () => {
    const help = addRunBcbOptions(new Command('bcb')).helpInformation();
    expect(help).not.toMatch(/^ {2}--split_file/m); // aliases are hidden...
    expect(help.replace(/\s+/g, ' ')).toMatch(/also --split_file/); // ...but mentioned
    // The --no- form of a switch says what it does; its positive form states the default.
    const entries = help.split(/\n(?=\s{2}--)/).filter((entry) => entry.trim().startsWith('--') && !entry.trim().startsWith('--no-'));
    expect(entries.length).toBeGreaterThan(20);
    for (const entry of entries) expect(entry.replace(/\s+/g, ' ')).toMatch(/\(default: /);
  });
});

describe('normalizeSnakeCaseArgs', () => {
  it('rewrites known snake_case flags, in both --flag value and --flag=value forms', () => {
    expect(normalizeSnakeCaseArgs(['run', 'bcb', '--split_file', 'a.json', '--eval_timeout=30', '--epochs', '2'])).toEqual([
      'run',
      'bcb',
      '--split-file',
      'a.json',
      '--eval-timeout=30',
      '--epochs',
      '2',
    ]);
  });

  it('leaves unknown flags, values and anything after -- alone', () => {
    expect(normalizeSnakeCaseArgs(['--not_a_flag', 'x_y', '--', '--split_file'])).toEqual(['--not_a_flag', 'x_y', '--', '--split_file']);
  });
});
