/**
 * Bad input, as a new user gives it: one case per row (what is run, the exit code, the
 * one line that must explain it). Every case runs against a working folder that already
 * holds a finished run, and that run's files must be byte-identical afterwards: bad
 * input never damages results already written.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runMemrl } from '../helpers/cli.js';
import { digest } from '../helpers/digest.js';
import { tempDir } from '../helpers/temp.js';

const HLE = resolve('test/fixtures/hle/hle_snappy.parquet');

interface Case {
  name: string;
  args: string[] | (() => string[]);
  code: number;
  line: RegExp;
  env?: Record<string, string>;
}

let work: string;
let goodRun: string;

const file = (name: string, text: string): string => {
  writeFileSync(join(work, name), text);
  return name;
};

const CASES: Case[] = [
  { name: 'a zero epoch count', args: ['run', 'bcb', '--epochs', '0'], code: 2, line: /option '--epochs <n>' argument '0' is invalid\. Expected a positive integer\./ },
  { name: 'a word for a number', args: ['run', 'bcb', '--limit', 'ten'], code: 2, line: /option '--limit <n>' argument 'ten' is invalid/ },
  { name: 'a temperature out of range', args: ['run', 'hle', '--temperature', '3'], code: 2, line: /between 0 and 2/ },
  { name: 'a concurrency of zero', args: ['run', 'bcb', '--concurrency', '0'], code: 2, line: /--concurrency <n>.*Expected a positive integer/ },
  { name: 'an unknown method', args: ['run', 'bcb', '--method', 'memrll'], code: 2, line: /Allowed choices are none, rag, memp, memrl, reflection, passk/ },
  { name: 'an unknown benchmark', args: ['run', 'bcbb'], code: 2, line: /unknown command 'bcbb'/ },
  { name: 'an unknown flag', args: ['run', 'bcb', '--epoch', '3'], code: 2, line: /unknown option '--epoch'/ },
  { name: 'a missing config file', args: ['run', 'bcb', '--config', 'nope.yaml'], code: 2, line: /^memrl: nope\.yaml: config file not found$/ },
  { name: 'a folder as the config', args: () => (mkdirSync(join(work, 'cfgdir'), { recursive: true }), ['run', 'bcb', '--config', 'cfgdir']), code: 2, line: /cfgdir: is a directory, expected a YAML config file/ },
  { name: 'broken YAML', args: () => ['run', 'bcb', '--config', file('broken.yaml', 'llm:\n  model: [unclosed\n')], code: 2, line: /broken\.yaml:\d+:\d+: invalid YAML/ },
  { name: 'a misspelt key', args: () => ['run', 'bcb', '--config', file('typo.yaml', 'memory:\n  k_retreive: 5\n')], code: 2, line: /typo\.yaml:2: unknown key `memory\.k_retreive` \(did you mean `memory\.k_retrieve`\?\)/ },
  { name: 'a key of the wrong type', args: () => ['run', 'bcb', '--config', file('type.yaml', 'rl_config:\n  topk: many\n')], code: 2, line: /type\.yaml:2: `rl_config\.topk` must be an integer, got "many"/ },
  { name: 'a YAML list instead of sections', args: () => ['run', 'bcb', '--config', file('list.yaml', '- llm\n- memory\n')], code: 2, line: /list\.yaml:1: a config file must be a mapping of sections/ },
  { name: 'an unset ${VAR}', args: () => ['run', 'bcb', '--config', file('var.yaml', 'llm:\n  model: ${NO_SUCH_VAR_42}\n')], code: 2, line: /var\.yaml:2: `llm\.model`: environment variable NO_SUCH_VAR_42 is not set/ },
  { name: 'a real model without a key', args: ['run', 'hle', '--train', HLE, '--model', 'gpt-4o-mini'], code: 2, line: /`llm\.api_key` is a placeholder and OPENAI_API_KEY is not set/ },
  { name: 'a key variable that is not set', args: ['run', 'hle', '--train', HLE, '--model', 'm', '--api-key-env', 'NO_SUCH_KEY_42'], code: 2, line: /--api-key-env: environment variable NO_SUCH_KEY_42 is not set/ },
  { name: 'a key variable name that is no name', args: ['run', 'hle', '--model', 'm', '--api-key-env', 'my key'], code: 2, line: /--api-key-env <VAR>' argument 'my key' is invalid/ },
  { name: 'an endpoint on a closed port', args: ['run', 'hle', '--train', HLE, '--model', 'm', '--base-url', 'http://127.0.0.1:9/v1'], env: { OPENAI_API_KEY: 'sk-test-1234567' }, code: 2, line: /llm\.base_url http:\/\/127\.0\.0\.1:9\/v1: cannot connect/ },
  { name: 'a base URL that is no URL', args: ['run', 'hle', '--train', HLE, '--model', 'm', '--base-url', 'localhost:8000'], env: { OPENAI_API_KEY: 'sk-test-1234567' }, code: 2, line: /llm\.base_url localhost:8000: unsupported scheme/ },
  { name: 'HLE questions that do not exist', args: ['run', 'hle', '--train', 'nope.parquet'], code: 2, line: /nope\.parquet/ },
  { name: 'an LLB task family it does not have', args: ['run', 'llb', '--task', 'kg'], code: 2, line: /argument 'kg' is invalid\. Allowed choices are db, os/ },
  { name: 'kg in a config file', args: () => ['run', 'llb', '--config', file('kg.yaml', 'llm:\n  provider: sim\nembedding:\n  provider: local\nexperiment:\n  task: kg\n')], code: 2, line: /kg\.yaml:6: `experiment\.task: kg` is not available/ },
  { name: 'a split file that does not exist', args: ['run', 'bcb', '--split-file', 'nope.json'], code: 2, line: /nope\.json/ },
  { name: 'a split file that is not JSON', args: () => ['run', 'bcb', '--split-file', file('split.json', '{train_ids: [')], code: 2, line: /split file .*split\.json: not valid JSON/ },
  { name: 'a data file that does not exist', args: ['run', 'bcb', '--data-path', 'nope.jsonl'], code: 2, line: /nope\.jsonl/ },
  { name: 'a negative budget', args: ['run', 'bcb', '--budget-usd', '-1'], code: 2, line: /--budget-usd <x>' argument '-1' is invalid/ },
  { name: 'a price file that does not exist', args: ['run', 'hle', '--train', HLE, '--prices', 'nope.yaml'], code: 2, line: /nope\.yaml/ },
  { name: 'a results folder that cannot be written', args: ['run', 'hle', '--train', HLE, '--output-dir', '/sys/memrl-results'], code: 2, line: /cannot write into \/sys/ },
  { name: 'a log folder that cannot be written', args: ['run', 'hle', '--train', HLE, '--log-dir', '/sys/memrl-logs'], code: 2, line: /--log-dir \/sys\/memrl-logs: cannot write into \/sys/ },
  { name: 'a cache folder that cannot be written', args: ['run', 'hle', '--train', HLE, '--cache', '/sys/memrl-cache'], code: 2, line: /--cache \/sys\/memrl-cache: cannot write into \/sys/ },
  { name: '--resume of a folder that is no run', args: ['run', 'bcb', '--resume', 'nowhere'], code: 2, line: /--resume .*nowhere: no run\.json there/ },
  { name: '--resume of another benchmark\'s run', args: () => ['run', 'bcb', '--resume', goodRun], code: 2, line: /that is a hle run; resume it with: memrl run hle --resume/ },
  { name: '--resume with a contradicting flag', args: () => ['run', 'hle', '--resume', goodRun, '--limit', '1'], code: 2, line: /--limit gives memrl\.limit 1 but the run used 3/ },
  { name: '--resume with fewer epochs than done', args: () => ['run', 'hle', '--resume', goodRun, '--epochs', '0'], code: 2, line: /--epochs <n>' argument '0' is invalid/ },
  { name: '--replay of a folder that is no run', args: ['run', 'hle', '--train', HLE, '--replay', 'nowhere'], code: 2, line: /--replay nowhere: no run\.json there/ },
  { name: 'a plug-in that does not exist', args: ['run', 'bcb', '--plugin', 'nope.js'], code: 2, line: /plugin nope\.js: no such file/ },
  { name: 'a table of nothing', args: ['table', 'nowhere'], code: 2, line: /nowhere: no such file or folder/ },
  { name: 'a table of a folder without runs', args: () => (mkdirSync(join(work, 'empty'), { recursive: true }), ['table', 'empty']), code: 2, line: /empty: holds no memrl run folder/ },
  { name: 'a table format it does not know', args: () => ['table', goodRun, '--format', 'xlsx'], code: 2, line: /--format/ },
  { name: 'compare with one side only', args: () => ['compare', goodRun], code: 2, line: /give a baseline and a candidate/ },
  { name: 'an export without a format', args: () => ['export', goodRun], code: 2, line: /--format is required/ },
  { name: 'an export format it does not know', args: () => ['export', goodRun, '--format', 'xml'], code: 2, line: /--format xml: unknown export format/ },
  { name: 'a report written onto a folder', args: () => (mkdirSync(join(work, 'outdir'), { recursive: true }), ['report', goodRun, '--out', 'outdir']), code: 2, line: /--out outdir: is a folder/ },
  { name: 'config of a benchmark it does not know', args: ['config', '--benchmark', 'nope'], code: 2, line: /argument 'nope' is invalid/ },
  { name: 'a memory script that does not exist', args: ['memory', 'replay', 'nope.jsonl'], code: 2, line: /cannot read nope\.jsonl/ },
  { name: 'a gold check of zero tasks', args: ['check-gold', 'bcb', '--limit', '0'], code: 2, line: /--limit <n>' argument '0' is invalid/ },
];

beforeAll(async () => {
  assertBuilt();
  work = tempDir('memrl-badinput-');
  const r = await runMemrl(['run', 'hle', '--train', HLE, '--limit', '3', '--epochs', '1', '--output-dir', 'results'], { cwd: work });
  expect(r.code).toBe(0);
  goodRun = /^results: (\S+)$/m.exec(r.stdout)![1]!;
}, 120_000);

describe('bad input: one line naming what to fix, the right exit code, earlier results untouched', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const before = digest(join(work, 'results'));
    const r = await runMemrl(typeof c.args === 'function' ? c.args() : c.args, { cwd: work, env: c.env ?? {}, timeoutMs: 60_000 });
    const lines = r.stderr.trim().split('\n').filter(Boolean);
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(c.line);
    expect(r.code).toBe(c.code);
    expect(digest(join(work, 'results'))).toEqual(before);
  });
});
