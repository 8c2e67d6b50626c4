/**
 * Results you can trust at a glance: a run that could not really run never looks
 * complete, a resumed run stays the experiment it was, and two processes never write
 * one run folder. Real `memrl run` commands (HLE on our Parquet fixtures: no sandbox
 * needed) against closed ports, a loopback server that fails every call, and lock files.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runMemrl, type CliResult } from '../helpers/cli.js';
import { errorReply, startOpenAIServer, type OpenAITestServer } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp.js';

const HLE = resolve('test/fixtures/hle/hle_snappy.parquet');
let work: string;

function memrl(args: string[]): Promise<CliResult> {
  return runMemrl(args, { cwd: work, timeoutMs: 120_000 });
}

function runDirOf(r: CliResult): string {
  const m = /^results: (\S+)$/m.exec(r.stdout);
  if (!m) throw new Error(`no run folder in: ${r.stdout}${r.stderr}`);
  return m[1]!;
}

function oneLine(r: CliResult, code: number, pattern: RegExp): void {
  expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
  expect(r.stderr).toMatch(pattern);
  expect(r.code).toBe(code);
}

/** A real-provider config for HLE (solver and judge on one endpoint), local embeddings. */
function realConfig(name: string, baseUrl: string, extra = '', llm = ''): string {
  writeFileSync(join(work, name), `llm:\n  provider: openai\n  api_key: sk-test-aaaa\n  base_url: ${baseUrl}\n  model: m\nembedding:\n  provider: local\nmemrl:\n  llm: {max_retries: 0, timeout_ms: 5000${llm}}\n${extra}`);
  return name;
}

beforeAll(() => {
  assertBuilt();
  work = tempDir('memrl-glance-');
});

describe('an endpoint that cannot be reached stops the run before it starts', () => {
  it('a closed port: one line naming the key and the URL, exit 2, no run folder', async () => {
    const r = await memrl(['run', 'hle', '--train', HLE, '--config', realConfig('closed.yaml', 'http://127.0.0.1:9/v1'), '--output-dir', 'closed']);
    oneLine(r, 2, /^memrl: llm\.base_url http:\/\/127\.0\.0\.1:9\/v1: cannot connect to 127\.0\.0\.1:9 \(connection refused\)/);
    expect(existsSync(join(work, 'closed'))).toBe(false);
  });

  it('a host that does not resolve, and an embeddings endpoint on a closed port, likewise', async () => {
    const dns = await memrl(['run', 'hle', '--train', HLE, '--config', realConfig('dns.yaml', 'http://no-such-host.invalid/v1'), '--output-dir', 'dns']);
    oneLine(dns, 2, /^memrl: llm\.base_url http:\/\/no-such-host\.invalid\/v1: the host no-such-host\.invalid does not resolve/);
    writeFileSync(join(work, 'emb.yaml'), 'llm:\n  provider: sim\nembedding:\n  provider: openai\n  api_key: sk-test-aaaa\n  base_url: http://127.0.0.1:9/v1\n');
    const emb = await memrl(['run', 'hle', '--train', HLE, '--config', 'emb.yaml', '--output-dir', 'emb']);
    oneLine(emb, 2, /^memrl: embedding\.base_url http:\/\/127\.0\.0\.1:9\/v1: cannot connect/);
    expect(existsSync(join(work, 'emb'))).toBe(false);
  });
});

describe('an endpoint that fails every call gives a failed run, not a complete one', () => {
  let server: OpenAITestServer;
  let failing = true;
  let dir: string;

  beforeAll(async () => {
    server = await startOpenAIServer({
      chat: (req) => {
        if (failing) return errorReply(500, 'upstream broke');
        const judge = JSON.stringify(req.body).includes('<reference_answer>');
        return judge ? JSON.stringify({ extracted_final_answer: 'A', reasoning: 'r', correct: 'yes', confidence: 90 }) : 'Answer: A\nConfidence: 90%';
      },
    });
  });
  afterAll(() => server?.close());

  it('stops as failed with the reason, exit 1; tables mark it and compare refuses it', async () => {
    // stop_after_failures 0: not stopped after its first calls (test/trust/wrong-results.test.ts), so max_error_rate decides.
    const cfg = realConfig('failing.yaml', server.url, '', ', stop_after_failures: 0');
    const r = await runMemrl(['run', 'hle', '--train', HLE, '--config', cfg, '--epochs', '2', '--output-dir', 'failing'], { cwd: work, env: { OPENAI_API_KEY: '' } });
    expect(r.stderr).toMatch(/^failed: epoch 1: 20 of 20 episodes ended in error \(100% > memrl\.max_error_rate 50%\); the first: model call failed: .*500/m);
    expect(r.code).toBe(1);
    dir = runDirOf(r);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({ status: 'failed', epochsCompleted: 0 });
    expect(existsSync(join(dir, 'checkpoint.json'))).toBe(false);

    const table = await memrl(['table', dir]);
    expect(table.stdout).toMatch(/¶/);
    expect(table.stdout).toContain('includes a failed run');
    const compare = await memrl(['compare', dir, dir]);
    expect(compare.code).toBe(2);
    expect(compare.stderr).toMatch(/failed \(epoch 1: 20 of 20 episodes ended in error/);
  });

  it('the same run resumes once the endpoint works, running the failed epoch again', async () => {
    failing = false;
    const r = await runMemrl(['run', 'hle', '--resume', dir], { cwd: work, env: { OPENAI_API_KEY: '' } });
    expect(r.stderr).toContain('done: 2/2 epoch(s)');
    expect(r.code).toBe(0);
    const rows = readFileSync(join(dir, 'outcomes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(rows.filter((x) => x.status === 'error')).toHaveLength(0);
    expect(rows.filter((x) => x.phase === 'train')).toHaveLength(40); // 2 epochs × 20 questions, the failed epoch run again
  });
});

describe('--resume continues the run it names, with that run\'s settings', () => {
  let dir: string;

  beforeAll(async () => {
    const r = await memrl(['run', 'hle', '--train', HLE, '--limit', '4', '--epochs', '1', '--output-dir', 'resume']);
    expect(r.code).toBe(0);
    dir = runDirOf(r);
  });

  it('--resume alone is enough (the data file, limit and method come from run.json), and more epochs extend it', async () => {
    const r = await memrl(['run', 'hle', '--resume', dir, '--epochs', '2']);
    expect(r.stderr).toContain('done: 2/2 epoch(s)');
    expect(r.stderr).toMatch(/4 train \/ \d+ valid tasks/);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'metrics.json'), 'utf8')).train.tasks).toBe(4);
  });

  it('a flag that contradicts the run is refused in one line, and nothing is rewritten', async () => {
    const before = ['metrics.json', 'summary.json', 'outcomes.jsonl', 'run.json'].map((f) => readFileSync(join(dir, f), 'utf8'));
    oneLine(await memrl(['run', 'hle', '--resume', dir, '--limit', '2']), 2, /--limit gives memrl\.limit 2 but the run used 4; a resumed run keeps its own settings/);
    oneLine(await memrl(['run', 'hle', '--resume', dir, '--method', 'rag']), 2, /--method gives memrl\.method "rag" but the run used null/);
    oneLine(await memrl(['run', 'hle', '--resume', dir, '--epochs', '1']), 2, /the run has completed 2 epoch\(s\); --epochs 1 would undo them/);
    oneLine(await memrl(['run', 'bcb', '--resume', dir]), 2, /that is a hle run; resume it with: memrl run hle --resume/);
    const after = ['metrics.json', 'summary.json', 'outcomes.jsonl', 'run.json'].map((f) => readFileSync(join(dir, f), 'utf8'));
    expect(after).toEqual(before);
  });

  it('one process per run folder: a live holder is named; a dead one\'s lock is broken', async () => {
    writeFileSync(join(dir, '.lock'), JSON.stringify({ pid: process.pid, host: hostname(), since: '2026-01-01T00:00:00Z', what: 'memrl run, test' }));
    oneLine(await memrl(['run', 'hle', '--resume', dir, '--epochs', '3']), 2, new RegExp(`run folder .* is in use by pid ${process.pid} on ${hostname()} \\(memrl run, test`));
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(join(dir, '.lock'), JSON.stringify({ pid: gone, host: hostname(), since: '2026-01-01T00:00:00Z', what: 'memrl run, killed' }));
    const r = await memrl(['run', 'hle', '--resume', dir, '--epochs', '3']);
    expect(r.stderr).toContain('done: 3/3 epoch(s)');
    expect(readdirSync(dir)).not.toContain('.lock');
  });
});

describe('a real model from the command line, no YAML', () => {
  it('--model, --base-url and --api-key-env reach the endpoint with the key from that variable', async () => {
    const seen: string[] = [];
    const server = await startOpenAIServer({
      chat: (req) => {
        seen.push(String(req.headers.authorization));
        const judge = JSON.stringify(req.body).includes('<reference_answer>');
        return judge ? JSON.stringify({ extracted_final_answer: 'A', reasoning: 'r', correct: 'no', confidence: 50 }) : 'Answer: A';
      },
    });
    try {
      const r = await runMemrl(
        ['run', 'hle', '--train', HLE, '--limit', '2', '--epochs', '1', '--model', 'served-model', '--base-url', server.url, '--api-key-env', 'MY_SERVER_KEY', '--output-dir', 'nofile'],
        { cwd: work, env: { MY_SERVER_KEY: 'sk-from-my-var-123', OPENAI_API_KEY: '' } },
      );
      expect(r.stderr).toContain('done: 1/1 epoch(s)');
      expect(r.code).toBe(0);
      expect(seen.length).toBeGreaterThan(0);
      expect(new Set(seen)).toEqual(new Set(['Bearer sk-from-my-var-123']));
      expect(JSON.parse(readFileSync(join(runDirOf(r), 'run.json'), 'utf8'))).toMatchObject({ model: 'openai:served-model', simulated: false });
      expect(readFileSync(join(runDirOf(r), 'run.json'), 'utf8')).not.toContain('sk-from-my-var-123');
    } finally {
      await server.close();
    }
  });
});

describe('a damaged checkpoint', () => {
  it('falls back to the previous one and says so; with none, names the file', async () => {
    const first = await memrl(['run', 'hle', '--train', HLE, '--limit', '3', '--epochs', '2', '--output-dir', 'damaged']);
    const dir = runDirOf(first);
    writeFileSync(join(dir, 'checkpoint.json'), readFileSync(join(dir, 'checkpoint.json'), 'utf8').slice(0, 200));
    const r = await memrl(['run', 'hle', '--resume', dir, '--epochs', '3']);
    expect(r.stderr).toMatch(/note: .*checkpoint\.json is damaged \(.*\); resuming from checkpoint\.prev\.json \(epoch 1\): the epochs after it run again/);
    expect(r.stderr).toContain('done: 3/3 epoch(s)');
    writeFileSync(join(dir, 'checkpoint.json'), '{"version":');
    rmSync(join(dir, 'checkpoint.prev.json'));
    oneLine(await memrl(['run', 'hle', '--resume', dir, '--epochs', '4']), 2, /checkpoint\.json is damaged \(.*\) and there is no earlier checkpoint to fall back to/);
  });
});
