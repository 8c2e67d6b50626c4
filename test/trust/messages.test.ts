/**
 * Messages for what goes wrong on the user's side or the machine's, one case per row,
 * each through the built CLI as a user meets it: the exit code (2: the user's input or
 * machine; 1: memrl's own fault), the first line memrl says about it (a run that got as
 * far as its banner prints that first: the line checked is then the first `memrl:` line),
 * and the files of an earlier finished run byte-identical afterwards. No line is a raw
 * errno string.
 *
 * Faults of the machine are real, not mocked: a full disk is a small tmpfs, a read-only
 * folder a read-only bind mount, an unreadable file one owned by another user (bubblewrap
 * gives each its own mount and user namespace).
 */
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBwrap } from '../../src/env/bwrap/check.js';
import { assertBuilt, MEMRL_BIN, runAsync, runMemrl, type CliResult } from '../helpers/cli.js';
import { digest } from '../helpers/digest.js';
import { errorReply, startOpenAIServer, type OpenAITestServer } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp.js';

const HLE = resolve('test/fixtures/hle/hle_snappy.parquet');
const QUICKSTART = resolve('configs/quickstart.yaml');

interface Case {
  name: string;
  /** memrl's arguments (a function: made when the case runs, after its files are written). */
  args: string[] | (() => string[]);
  code: number;
  /** The first line memrl says (after a run's banner, if it got that far). */
  line: RegExp;
  env?: Record<string, string>;
  /** Run inside bubblewrap with these mounts/user (machine faults). */
  bwrap?: () => string[];
  /** Through `sh -c <script> memrl <args>`: the script ends with exec "$@" (a folder deleted under the command). */
  shell?: string;
  /** Also true afterwards. */
  after?: () => void;
}

let work: string;
let goodRun: string;
/** A run killed (SIGKILL) just before its summary. */
let killedRun: string;
let bwrapOk = false;
let html: Server;
let htmlUrl: string;
let api: OpenAITestServer;

const file = (name: string, text: string): string => {
  writeFileSync(join(work, name), text);
  return name;
};
const folder = (name: string): string => {
  mkdirSync(join(work, name), { recursive: true });
  return name;
};
/** A file nobody but its owner (root outside the sandbox) may read. */
const unreadable = (name: string): string => {
  chmodSync(join(work, name), 0o000);
  return name;
};
const SIM = 'llm:\n  provider: sim\nembedding:\n  provider: local\n';
const sweepFile = (name: string, body: string): string => file(name, `name: ${name.replace(/\.yaml$/, '')}\n${body}`);
const onlyRun = (dir: string, bench: string): string[] => (existsSync(join(work, dir, bench)) ? readdirSync(join(work, dir, bench)) : []);

const CASES: Case[] = [
  {
    name: 'a full disk during a run: the folder, the cause, how to resume',
    bwrap: () => ['--size', '1000000', '--tmpfs', join(work, folder('small'))],
    shell: `head -c 940000 /dev/zero > small/fill && exec "$@"`,
    args: ['run', 'hle', '--train', HLE, '--epochs', '3', '--output-dir', 'small/out'],
    code: 2,
    line: /^memrl: \S+\/small\/out\/hle\/\S+: no space left on the device \(the disk is full\); free some space .*then resume the run: memrl run hle --resume \S+\/small\/out\/hle\/\S+$/,
  },
  {
    name: 'a path too long',
    args: ['run', 'hle', '--train', HLE, '--output-dir', 'x'.repeat(300)],
    code: 2,
    line: /^memrl: the results folder \(--output-dir\) \S+x… ?.*: the path is too long for the file system .*; choose a shorter path/,
  },
  {
    name: 'a working folder deleted under the command',
    shell: 'mkdir gone && cd gone && rmdir ../gone && exec "$@"',
    args: ['run', 'hle', '--train', HLE],
    code: 2,
    line: /^memrl: the current folder no longer exists \(deleted or moved\); cd into an existing folder and run the command again$/,
  },
  { name: 'a folder given as the HLE parquet', args: () => ['run', 'hle', '--train', folder('questions.parquet')], code: 2, line: /^memrl: the HLE questions \(--train\) \S+questions\.parquet: is a folder, not a file; give the file's own path/ },
  { name: 'a folder given as the BCB data file', args: () => ['run', 'bcb', '--data-path', folder('bcb-data')], code: 2, line: /^memrl: BigCodeBench data file \S+bcb-data: is a folder, not a file/ },
  {
    name: 'an unreadable config file',
    bwrap: () => ['--unshare-user', '--uid', '1000'],
    args: () => ['run', 'hle', '--train', HLE, '--config', unreadable(file('secret.yaml', SIM))],
    code: 2,
    line: /^memrl: config file secret\.yaml: permission denied; check its permissions/,
  },
  {
    name: 'an unreadable parquet file',
    bwrap: () => ['--unshare-user', '--uid', '1000'],
    args: () => ['run', 'hle', '--train', (cpSync(HLE, join(work, 'locked.parquet')), unreadable('locked.parquet'))],
    code: 2,
    line: /^memrl: the HLE questions \(--train\) \S*locked\.parquet: permission denied/,
  },
  {
    name: '`analyze` on a read-only run folder',
    bwrap: () => ['--ro-bind', join(work, goodRun), join(work, goodRun)],
    args: () => ['analyze', goodRun],
    code: 2,
    line: /^memrl: \S+\/analysis\.json: cannot write \(the file system is read-only\); pass --no-write/,
  },
  {
    name: "a sweep whose base: file is missing",
    args: () => ['sweep', sweepFile('nobase.yaml', 'base: nope-base.yaml\naxes:\n  benchmark: [alfworld]\n'), '--output-dir', 'sweeps'],
    code: 2,
    line: /^memrl: nobase\.yaml:2: base: nope-base\.yaml: no such file \(\S+nope-base\.yaml; a base is relative to the sweep file's folder\)/,
    after: () => expect(existsSync(join(work, 'sweeps', 'nobase'))).toBe(false),
  },
  {
    name: 'a YAML alias bomb',
    args: () => {
      const rows = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
      for (const [k, prev] of [['b', 'a'], ['c', 'b'], ['d', 'c'], ['e', 'd'], ['f', 'e']]) rows.push(`${k}: &${k} [${Array(9).fill(`*${prev}`).join(',')}]`);
      return ['run', 'hle', '--train', HLE, '--config', file('bomb.yaml', `${rows.join('\n')}\n`)];
    },
    code: 2,
    line: /^memrl: bomb\.yaml: invalid YAML: its aliases \(\*name\) expand to too many nodes/,
  },
  { name: 'an empty config', args: () => ['run', 'hle', '--train', HLE, '--config', file('empty.yaml', '')], code: 2, line: /^memrl: empty\.yaml: the config file is empty/ },
  { name: 'a config of comments only', args: () => ['run', 'hle', '--train', HLE, '--config', file('comments.yaml', '# llm:\n#   provider: sim\n')], code: 2, line: /^memrl: comments\.yaml: the config file is empty/ },
  { name: '--config /dev/null, with a key in the environment', args: ['run', 'hle', '--train', HLE, '--config', '/dev/null'], env: { OPENAI_API_KEY: 'sk-test-would-be-billed' }, code: 2, line: /^memrl: \/dev\/null: the config file is empty/ },
  {
    name: '--api-key-env naming a variable that is set but empty',
    args: ['run', 'hle', '--train', HLE, '--model', 'm', '--api-key-env', 'EMPTY_KEY_42'],
    env: { EMPTY_KEY_42: '' },
    code: 2,
    line: /^memrl: --api-key-env EMPTY_KEY_42: the environment variable EMPTY_KEY_42 is set but empty; export EMPTY_KEY_42=/,
  },
  {
    name: 'an HTML page at the base URL',
    args: () => ['run', 'hle', '--train', HLE, '--model', 'm', '--base-url', htmlUrl, '--epochs', '1', '--output-dir', 'html-out'],
    env: { OPENAI_API_KEY: 'sk-test-1234567' },
    code: 2,
    line: /^memrl: http:\/\/127\.0\.0\.1:\d+\/v1 answered chat with an HTML page, not an OpenAI-compatible API; check the base URL/,
  },
  { name: '`memrl sweep stauts x`', args: ['sweep', 'stauts', 'x'], code: 2, line: /^memrl: sweep stauts: unknown sweep command \(did you mean `memrl sweep status x`\?\)$/ },
  { name: 'an empty sweep file', args: () => ['sweep', file('empty-sweep.yaml', '')], code: 2, line: /^memrl: empty-sweep\.yaml: the sweep file is empty/ },
  {
    name: '`compare` against a killed run',
    args: () => ['compare', goodRun, killedRun],
    code: 2,
    line: /^memrl: refusing to compare: candidate run \S+ is not complete \(interrupted: its process \(pid \d+, since \S+\) ended without recording an end \(killed, or the machine stopped\); .*\); finish it first: memrl run hle --resume \S+/,
  },
  {
    name: 'an embeddings endpoint answering 500',
    args: () => ['run', 'hle', '--train', HLE, '--config', file('emb500.yaml', `llm:\n  provider: sim\nembedding:\n  provider: openai\n  api_key: sk-test-aaaa\n  base_url: ${api.url}\n  model: e\n`), '--output-dir', 'emb-out'],
    code: 2,
    line: /^memrl: openai:e embeddings at http:\/\/127\.0\.0\.1:\d+\/v1 failed: 500 .*\(the server failed: check it, or try again later\)$/,
    // Nothing that looks like a run is left.
    after: () => expect(onlyRun('emb-out', 'hle')).toEqual([]),
  },
  {
    name: 'a changed sweep config: the key that changed',
    args: () => ['sweep', sweepFile('grid.yaml', `base: ${QUICKSTART}\nset: { memrl.limit: 2, experiment.num_sections: 1 }\naxes:\n  benchmark: [bcb]\n  seed: [1]\n`.replace('memrl.limit: 2', 'memrl.limit: 3')), '--output-dir', 'sweeps'],
    code: 2,
    line: /^memrl: grid\.yaml: cell bcb-s1 already has a run \(\S+\) made with memrl\.limit: 2 \(now 3\), against what the sweep file now gives; restore the file/,
  },
  {
    name: '--retrieve-threshold for a method that does not use it',
    args: ['run', 'hle', '--train', HLE, '--method', 'mem0', '--retrieve-threshold', '0.9'],
    code: 2,
    line: /^memrl: --retrieve-threshold: method mem0 does not use rl_config\.sim_threshold .*; set memrl\.mem0\.threshold in the config/,
  },
];

beforeAll(async () => {
  assertBuilt();
  work = tempDir('memrl-messages-');
  // The sandboxed user of the unreadable-file cases must reach the folder itself.
  chmodSync(work, 0o755);
  bwrapOk = (await checkBwrap()).ok;
  const r = await runMemrl(['run', 'hle', '--train', HLE, '--limit', '3', '--epochs', '1', '--output-dir', 'results'], { cwd: work });
  expect(r.code).toBe(0);
  goodRun = /^results: (\S+)$/m.exec(r.stdout)![1]!.slice(work.length + 1);
  const k = await runMemrl(['run', 'hle', '--train', HLE, '--limit', '3', '--epochs', '1', '--output-dir', 'killed'], { cwd: work, env: { MEMRL_CRASH_AT: 'end:1' } });
  expect(k.code).toBeNull();
  killedRun = join('killed', 'hle', readdirSync(join(work, 'killed', 'hle'))[0]!);
  html = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>');
  });
  await new Promise<void>((ok) => html.listen(0, '127.0.0.1', ok));
  htmlUrl = `http://127.0.0.1:${(html.address() as AddressInfo).port}/v1`;
  api = await startOpenAIServer({ embeddings: () => errorReply(500, 'internal error') });
  // The sweep whose config the changed-sweep case changes: one finished cell.
  const s = await runMemrl(['sweep', sweepFile('grid.yaml', `base: ${QUICKSTART}\nset: { memrl.limit: 2, experiment.num_sections: 1 }\naxes:\n  benchmark: [bcb]\n  seed: [1]\n`), '--output-dir', 'sweeps'], { cwd: work });
  expect(s.code, s.stderr).toBe(0);
}, 240_000);

afterAll(async () => {
  html?.close();
  await api?.close();
});

async function runCase(c: Case): Promise<CliResult> {
  const args = typeof c.args === 'function' ? c.args() : c.args;
  const env = { ...process.env, OPENAI_API_KEY: '', ...c.env };
  let argv = [process.execPath, MEMRL_BIN, ...args];
  if (c.shell) argv = ['sh', '-c', c.shell, 'memrl', ...argv];
  if (c.bwrap) argv = ['bwrap', '--dev-bind', '/', '/', ...c.bwrap(), '--chdir', work, '--', ...argv];
  return runAsync(argv[0]!, argv.slice(1), { cwd: work, env, timeoutMs: 120_000 });
}

describe('what goes wrong on the user side: one line naming it, the cause, what to do; the right exit code; earlier results untouched', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    if (c.bwrap && !bwrapOk) {
      if (process.env.CI) throw new Error('bubblewrap is needed for the machine-fault cases');
      return;
    }
    const before = digest(join(work, 'results'));
    const r = await runCase(c);
    const lines = r.stderr.split('\n').filter(Boolean);
    const said = lines.find((l) => l.startsWith('memrl:')) ?? lines[0];
    expect(said, r.stderr).toMatch(c.line);
    expect(r.code, r.stderr).toBe(c.code);
    // No raw errno string anywhere in what was printed.
    expect(r.stderr).not.toMatch(/\bE[A-Z]{3,}: [a-z]/);
    expect(digest(join(work, 'results'))).toEqual(before);
    c.after?.();
  });
});
