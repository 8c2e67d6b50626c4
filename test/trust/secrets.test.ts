/**
 * API keys never reach a file or a terminal: real `memrl run` commands (BCB and
 * HLE) against a loopback OpenAI-compatible server, with distinctive fake keys
 * given through the environment and through the config, in runs that succeed,
 * runs full of errors whose messages echo the key (whole or masked, as providers
 * do), generated code that dumps its environment, and rejected keys. Then every
 * byte under the working directory (run folders, logs, the shared cache) and all
 * of stdout/stderr is searched for the keys and their distinctive pieces.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOutcomeRows } from '../../src/metrics/outcome-store.js';
import { checkBwrap } from '../../src/env/bwrap/check.js';
import { errorReply, startOpenAIServer, type OpenAITestServer, type ReceivedRequest } from '../helpers/openai-server.js';
import { runMemrl } from '../helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'memrl-secrets-'));
/** Agent and embeddings key, OpenAI-shaped. */
const KEY = 'sk-proj-CANARYq7Zt9Lw2Xv5Rb8mN4';
/** HLE judge key, not shaped like an OpenAI key (so only exact-match redaction can catch it). */
const JUDGE_KEY = 'azJUDGEcanary4k9PmQ2wX7hT';
/** Pieces that must not appear either (a masked echo shows a prefix or a tail). */
const NEEDLES = [KEY, JUDGE_KEY, 'CANARYq7', 'Zt9Lw2Xv', 'Xv5Rb8mN4', 'JUDGEcanary', 'PmQ2wX7hT', '4k9PmQ2w'];
/** Everything every command printed. */
const printed: string[] = [];
let server: OpenAITestServer;

/** The key back to the client the way providers and proxies do it. */
const echoFull = (key: string) => `upstream refused: Authorization: Bearer ${key} (api_key=${key})`;
const echoMasked = (key: string) => `Incorrect API key provided: ${key.slice(0, 8)}****************${key.slice(-9)}. You can find your API key at https://platform.openai.com/account/api-keys.`;
/** Generated code that prints its environment and then fails with it in the error. */
const ENV_DUMP = '```python\nimport os\ndef task_func(*args, **kwargs):\n    print(dict(os.environ))\n    raise RuntimeError("env: " + repr(dict(os.environ)))\n```\n';

const body = (req: ReceivedRequest) => JSON.stringify(req.body);
const isBcbAgent = (req: ReceivedRequest) => body(req).includes('senior Python engineer');
const isHleSolver = (req: ReceivedRequest) => body(req).includes('expert-level exam question');
const isHleJudge = (req: ReceivedRequest) => body(req).includes('<reference_answer>');
const bearer = (req: ReceivedRequest) => String(req.headers.authorization ?? '').replace(/^Bearer /, '');

type Mode = 'errors' | 'reject' | 'hle' | 'hle-reject-judge';
let mode: Mode = 'errors';
let counts = { agent: 0, memory: 0, judge: 0 };

beforeAll(async () => {
  const bw = await checkBwrap();
  if (!bw.ok) throw new Error(`bubblewrap sandbox unavailable: ${bw.reason}`);
  server = await startOpenAIServer({
    chat: (req) => {
      const key = bearer(req);
      if (mode === 'reject') return errorReply(401, echoMasked(key));
      if (isHleJudge(req)) {
        counts.judge++;
        // Whole, and masked with a few characters kept on each side (as gateways print it).
        if (mode === 'hle-reject-judge') return errorReply(401, `Incorrect API key provided: ${key}; key ${key.slice(0, 6)}...${key.slice(-9)} is not valid`);
        if (counts.judge === 1) return errorReply(500, echoFull(key));
        if (counts.judge === 2) return 'I cannot grade this.';
        return JSON.stringify({ extracted_final_answer: 'B', reasoning: 'compared', correct: 'no', confidence: 50 });
      }
      if (isHleSolver(req)) return 'Explanation: thought.\nAnswer: B\nConfidence: 50%';
      if (isBcbAgent(req)) {
        counts.agent++;
        // Every third agent call fails with the key echoed whole: an error row.
        return counts.agent % 3 === 1 ? errorReply(500, echoFull(key)) : ENV_DUMP;
      }
      // Memory writing: every other call fails with a masked echo (the writer falls back and notes the error).
      counts.memory++;
      return counts.memory % 2 === 1 ? errorReply(400, echoMasked(key)) : 'Reflection: do not raise; compute the value.';
    },
    embeddings: (inputs, req) => {
      if (mode === 'reject') return errorReply(401, echoFull(bearer(req)));
      return inputs.map((t, i) => [t.length % 7, (i % 5) + 1, 1, 0.5]);
    },
  });
});
afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

async function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // The keys come from variables; nothing else of ours is inherited that could carry them.
  const r = await runMemrl(args, { cwd: work, env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.url, CANARY_KEY: KEY, JUDGE_CANARY: JUDGE_KEY, ...env } });
  printed.push(r.stdout, r.stderr);
  return r;
}

function config(name: string, lines: string[]): string {
  writeFileSync(join(work, name), `${lines.join('\n')}\n`);
  return name;
}

function onlyRun(out: string, bench: string): string {
  const root = join(work, out, bench);
  return join(root, readdirSync(root)[0] as string);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Byte search (latin1 keeps every byte), so binary files (TensorBoard, Arrow) are searched too. */
function leaks(text: string): string[] {
  return NEEDLES.filter((n) => text.includes(n));
}

// Agent key written in the config as ${CANARY_KEY}; embeddings key from OPENAI_API_KEY (placeholder + BASEURL).
const BCB_LINES = [
  'llm:',
  '  provider: openai',
  '  api_key: ${CANARY_KEY}',
  '  base_url: BASEURL',
  '  model: test-coder-1',
  '  temperature: 0',
  'embedding:',
  '  provider: openai',
  '  api_key: sk-REPLACE_ME',
  '  base_url: BASEURL',
  '  model: test-embed-1',
  'memrl:',
  '  concurrency: 2',
  '  llm:',
  '    max_retries: 0',
];

describe('API keys stay out of every file and message', () => {
  it('BCB with errors that echo the key: error rows and memories say why, without the key', async () => {
    mode = 'errors';
    counts = { agent: 0, memory: 0, judge: 0 };
    const cfg = config('bcb.yaml', BCB_LINES);
    const r = await runCli(['run', 'bcb', '--config', cfg, '--epochs', '2', '--limit', '3', '--output-dir', 'out-errors', '--cache', 'shared-cache']);
    expect(r.stderr).toMatch(/done: 2\/2/);
    expect(r.code).toBe(0);
    // The keys really were sent, and really were echoed back.
    expect(server.chatRequests().some((q) => bearer(q) === KEY)).toBe(true);
    expect(server.embeddingRequests().some((q) => bearer(q) === KEY)).toBe(true);

    const dir = onlyRun('out-errors', 'bcb');
    const rows = readOutcomeRows(join(dir, 'outcomes.jsonl')).rows;
    const errors = rows.filter((x) => x.status === 'error');
    expect(errors.length).toBeGreaterThan(0);
    for (const row of errors) expect(row.error).toMatch(/500/);
    // The env-dumping code ran and failed with its environment in the error line.
    expect(rows.some((x) => !x.success && /RuntimeError: env: \{'PATH'/.test(x.error ?? ''))).toBe(true);
    // A memory written after a failed writer call records the (redacted) reason.
    expect(readFileSync(join(dir, 'memories.jsonl'), 'utf8')).toMatch(/writerError/);
  }, 300_000);

  it('BCB with a rejected key (chat, then embeddings) stops with one line and no key', async () => {
    mode = 'reject';
    const chatOnly = config('bcb-local-embed.yaml', [...BCB_LINES.slice(0, 6), 'embedding:', '  provider: local', ...BCB_LINES.slice(11)]);
    const a = await runCli(['run', 'bcb', '--config', chatOnly, '--epochs', '1', '--limit', '2', '--output-dir', 'out-reject-chat']);
    expect(a.code).not.toBe(0);
    expect(a.stderr.trim().split('\n').at(-1)).toMatch(/401.*--resume/);

    const b = await runCli(['run', 'bcb', '--config', 'bcb.yaml', '--epochs', '1', '--limit', '2', '--output-dir', 'out-reject-embed']);
    expect(b.code).not.toBe(0);
    expect(b.stderr.trim().split('\n').at(-1)).toMatch(/401/);
  }, 120_000);

  it('HLE: solver key from OPENAI_API_KEY, judge key from the config; judge errors and a rejected judge key', async () => {
    mode = 'hle';
    counts = { agent: 0, memory: 0, judge: 0 };
    const cfg = config('hle.yaml', [
      'llm:',
      '  provider: openai',
      '  api_key: sk-REPLACE_ME',
      '  base_url: BASEURL',
      '  model: solver-1',
      'embedding:',
      '  provider: local',
      'experiment:',
      '  train_valid_split: 1.0',
      'memrl:',
      '  concurrency: 2',
      '  llm:',
      '    max_retries: 0',
      '  hle:',
      '    judge:',
      '      api_key: ${JUDGE_CANARY}',
    ]);
    const fixture = resolve('test/fixtures/hle/hle_snappy.parquet');
    // memrl's strict judge (hle.judge-verdict=memrl) records a failed judge call as an error row; the reference counts it as "no".
    const r = await runCli(['run', 'hle', '--config', cfg, '--train', fixture, '--categories', 'Physics,Chemistry', '--epochs', '1', '--fidelity-switch', 'hle.judge-verdict=memrl', '--output-dir', 'out-hle']);
    expect(r.stderr).toMatch(/done: 1\/1/);
    expect(server.chatRequests().some((q) => isHleJudge(q) && bearer(q) === JUDGE_KEY)).toBe(true);
    const rows = readOutcomeRows(join(onlyRun('out-hle', 'hle'), 'outcomes.jsonl')).rows;
    expect(rows.filter((x) => x.status === 'error').length).toBeGreaterThanOrEqual(2);

    // What `memrl config` prints is redacted too.
    const shown = await runCli(['config', cfg, '--benchmark', 'hle', '--derived']);
    expect(shown.stdout.length + shown.stderr.length).toBeGreaterThan(0);

    mode = 'hle-reject-judge';
    const j = await runCli(['run', 'hle', '--config', cfg, '--train', fixture, '--categories', 'Physics', '--epochs', '1', '--output-dir', 'out-hle-401']);
    expect(j.code).not.toBe(0);
    expect(j.stderr.trim().split('\n').at(-1)).toMatch(/401.*--resume/);
  }, 300_000);

  it('no file under the working directory and nothing printed holds a key or a piece of one', () => {
    const files = filesUnder(work).filter((f) => !f.endsWith('.yaml'));
    // Run folders (with their logs) and the shared cache are all there.
    expect(files.some((f) => f.endsWith('/log.jsonl'))).toBe(true); // logs live in the run folders
    expect(files.some((f) => f.includes('/shared-cache/'))).toBe(true);
    expect(files.some((f) => f.endsWith('/tb') || f.includes('/tb/'))).toBe(true);
    const found: string[] = [];
    for (const f of files) for (const n of leaks(readFileSync(f).toString('latin1'))) found.push(`${f.slice(work.length)}: ${n}`);
    printed.forEach((p, i) => leaks(p).forEach((n) => found.push(`output #${i}: ${n}`)));
    expect(found).toEqual([]);
    // The config files name variables, not keys.
    for (const f of filesUnder(work).filter((x) => x.endsWith('.yaml'))) expect(leaks(readFileSync(f, 'utf8'))).toEqual([]);
  });
});
