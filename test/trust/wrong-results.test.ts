/**
 * Paths that gave a wrong result, a leaked secret or wasted time without a word, each
 * through the built CLI as a user meets it:
 * - credentials in URLs and keys in flags, the environment and echoed headers reach no
 *   file a run writes (run.json, summary, metrics, logs, report, exports, transcripts,
 *   responses, TensorBoard, the shared cache) and nothing printed;
 * - a config given as a pipe, /dev/stdin or a FIFO is read once;
 * - an endpoint that fails every call from the first, or hangs, is said and stopped early;
 * - SIGTERM and SIGHUP stop a run as Ctrl-C does;
 * - a baseline that falls back says so (console, once per epoch; summary.json), without
 *   a library's stack traces on the terminal.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOutcomeRows } from '../../src/metrics/outcome-store.js';
import { assertBuilt, MEMRL_BIN, runAsync, runMemrl, type CliResult } from '../helpers/cli.js';
import { filesUnder } from '../helpers/digest.js';
import { chatCompletion, errorReply, startOpenAIServer, type OpenAITestServer, type ReceivedRequest } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp.js';

const HLE = resolve('test/fixtures/hle/hle_snappy.parquet');
const body = (req: ReceivedRequest): string => JSON.stringify(req.body);
const isJudge = (req: ReceivedRequest): boolean => body(req).includes('<reference_answer>');
const VERDICT = JSON.stringify({ extracted_final_answer: 'A', reasoning: 'compared', correct: 'yes', confidence: 90 });
const ANSWER = 'Explanation: thought.\nAnswer: A\nConfidence: 90%';

let work: string;
const runDirOf = (r: CliResult): string => /^results: (\S+)$/m.exec(r.stdout)![1]!;
const write = (name: string, text: string): string => {
  writeFileSync(join(work, name), text);
  return name;
};
const realConfig = (name: string, url: string, memrl = ''): string =>
  write(name, `llm:\n  provider: openai\n  api_key: sk-test-aaaa\n  base_url: ${url}\n  model: m\nembedding:\n  provider: local\nmemrl:\n${memrl.includes('concurrency:') ? '' : '  concurrency: 2\n'}${memrl}`);

beforeAll(() => {
  assertBuilt();
  work = tempDir('memrl-wrong-');
});

describe('secrets in keys, URLs and headers reach no file a run writes and nothing printed', () => {
  const KEY = 'sk-proj-LEAKq7Zt9Lw2Xv5Rb8mN4';
  const URL_USER = 'memrlUSERleak';
  const URL_PASS = 'URLPASS42leak';
  const NEEDLES = [KEY, 'LEAKq7Zt', 'Xv5Rb8mN4', URL_USER, URL_PASS];
  let server: OpenAITestServer;
  const printed: string[] = [];
  let calls = 0;

  beforeAll(async () => {
    server = await startOpenAIServer({
      chat: (req) => {
        if (isJudge(req)) return VERDICT;
        // Every third call fails with the request's own headers echoed, as some proxies do.
        if (++calls % 3 === 0) return errorReply(500, `upstream refused: authorization: ${String(req.headers.authorization)}; host ${String(req.headers.host)}`);
        return ANSWER;
      },
    });
  });
  afterAll(() => server.close());

  it('a run with --base-url http://user:PASSWORD@…, its key from --api-key-env, then report and exports', async () => {
    const url = server.url.replace('http://', `http://${URL_USER}:${URL_PASS}@`);
    const cfg = write('leak.yaml', 'embedding:\n  provider: local\nmemrl:\n  concurrency: 2\n  llm: {max_retries: 0}\n');
    const env = { LEAK_KEY: KEY };
    const r = await runMemrl(['run', 'hle', '--train', HLE, '--config', cfg, '--model', 'm', '--base-url', url, '--api-key-env', 'LEAK_KEY', '--epochs', '2', '--output-dir', 'leaks', '--cache', 'shared-cache'], { cwd: work, env });
    printed.push(r.stdout, r.stderr);
    expect(r.code, r.stderr).toBe(0);
    // The key and the URL's credentials really were used (and echoed back in errors).
    expect(server.chatRequests().some((q) => String(q.headers.authorization).includes(KEY))).toBe(true);
    const dir = runDirOf(r);
    expect(readOutcomeRows(join(dir, 'outcomes.jsonl')).rows.some((x) => x.status === 'error' && /upstream refused/.test(x.error ?? ''))).toBe(true);
    const manifest = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { command: string[] };
    expect(manifest.command).toContain(server.url.replace('http://', 'http://<redacted>@'));
    for (const args of [
      ['report', dir, '--out', 'report.html'],
      ['export', dir, '--format', 'csv', '--out', 'rows.csv', '--transcripts', 'transcripts.jsonl'],
      ['export', dir, '--format', 'parquet', '--out', 'rows.parquet'],
      ['analyze', dir],
    ]) {
      const out = await runMemrl(args, { cwd: work });
      printed.push(out.stdout, out.stderr);
      expect(out.code, out.stderr).toBe(0);
    }
  }, 240_000);

  it('every file under the working folder and everything printed is free of them', () => {
    const files = filesUnder(work).filter((f) => !f.endsWith('.yaml'));
    // What a run writes, all of it there to be searched.
    for (const name of ['run.json', 'summary.json', 'metrics.json', 'log.jsonl', 'outcomes.jsonl', 'outcomes.arrow', 'responses.jsonl', 'transcripts.jsonl.gz', 'analysis.json', 'report.html', 'rows.csv', 'rows.parquet', 'transcripts.jsonl']) {
      expect(files.some((f) => f.endsWith(`/${name}`)), name).toBe(true);
    }
    expect(files.some((f) => f.includes('/tb/'))).toBe(true);
    expect(files.some((f) => f.includes('/shared-cache/'))).toBe(true);
    const found: string[] = [];
    for (const f of files) for (const n of NEEDLES) if (readFileSync(f).toString('latin1').includes(n)) found.push(`${f.slice(work.length)}: ${n}`);
    printed.forEach((p, i) => NEEDLES.forEach((n) => p.includes(n) && found.push(`output #${i}: ${n}`)));
    expect(found).toEqual([]);
  });
});

describe('a config given as a pipe is read once (the plug-in scan does not drain it)', () => {
  const SIM = "llm:\n  provider: sim\nembedding:\n  provider: local\nmemrl:\n  limit: 2\n";
  const cases: [string, (args: string[]) => Promise<CliResult>][] = [
    [
      '/dev/stdin',
      (args) =>
        runAsync('sh', ['-c', `printf '%s' "$SIM" | exec "$@" --config /dev/stdin`, 'sh', process.execPath, MEMRL_BIN, ...args], { cwd: work, env: { ...process.env, SIM, OPENAI_API_KEY: 'sk-test-would-be-billed' }, timeoutMs: 120_000 }),
    ],
    [
      '<(…) in bash',
      (args) =>
        runAsync('bash', ['-c', `exec "$@" --config <(printf '%s' "$SIM")`, 'bash', process.execPath, MEMRL_BIN, ...args], { cwd: work, env: { ...process.env, SIM, OPENAI_API_KEY: 'sk-test-would-be-billed' }, timeoutMs: 120_000 }),
    ],
    [
      'a FIFO',
      (args) => {
        execFileSync('mkfifo', [join(work, 'cfg.fifo')]);
        const writer = spawn('sh', ['-c', 'printf "%s" "$SIM" > cfg.fifo'], { cwd: work, env: { ...process.env, SIM } });
        return runMemrl([...args, '--config', 'cfg.fifo'], { cwd: work, env: { OPENAI_API_KEY: 'sk-test-would-be-billed' } }).finally(() => writer.kill());
      },
    ],
  ];
  it.each(cases)('%s: the run uses the piped settings (offline), not the defaults with a paid endpoint', async (name, run) => {
    const out = `pipe-${name.replace(/\W+/g, '')}`;
    const r = await run(['run', 'hle', '--train', HLE, '--epochs', '1', '--output-dir', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/model sim/);
    const manifest = JSON.parse(readFileSync(join(runDirOf(r), 'run.json'), 'utf8')) as { config: { llm: { provider: string } }; dataset: { train: number } };
    expect(manifest.config.llm.provider).toBe('sim');
    expect(manifest.dataset.train).toBe(2);
  });
});

describe('time not wasted on an endpoint that cannot answer', () => {
  let server: OpenAITestServer;
  let mode: 'fail' | 'hang' | 'slow' = 'fail';
  beforeAll(async () => {
    server = await startOpenAIServer({
      chat: (req) => {
        if (mode === 'fail') return errorReply(500, 'upstream broke');
        if (mode === 'hang') return { body: 'never', delayMs: 30_000 };
        return isJudge(req) ? { body: chatCompletion(VERDICT), delayMs: 300 } : ANSWER;
      },
    });
  });
  afterAll(() => server.close());

  it('one that fails every call from the first is stopped after its first calls, in one line naming it', async () => {
    mode = 'fail';
    const from = server.chatRequests().length;
    const started = Date.now();
    // The defaults (max_retries 2, stop_after_failures 10), 20 tasks.
    const r = await runMemrl(['run', 'hle', '--train', HLE, '--config', realConfig('fail.yaml', server.url, '  llm: {}\n'), '--epochs', '1', '--output-dir', 'failing'], { cwd: work });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(/^memrl: openai:m failed every call so far: its first 3 calls failed after their retries, none succeeded \(memrl\.llm\.stop_after_failures 10\); the last: openai:m chat at http:\/\/127\.0\.0\.1:\d+\/v1 failed: 500 upstream broke .*rerun with --resume /);
    // At most the calls already in flight (concurrency 2) beyond the three, each with its 3 attempts.
    expect(server.chatRequests().length - from).toBeLessThanOrEqual((3 + 2) * 3);
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 120_000);

  it('one that hangs is said on the console after the first timed-out attempt, then stopped', async () => {
    mode = 'hang';
    const r = await runMemrl(['run', 'hle', '--train', HLE, '--config', realConfig('hang.yaml', server.url, '  llm: {timeout_ms: 1500, max_retries: 1}\n'), '--epochs', '1', '--output-dir', 'hanging'], { cwd: work });
    const lines = r.stderr.split('\n');
    expect(lines.filter((l) => /has not answered a call within/.test(l))).toEqual([
      expect.stringMatching(/^memrl: openai:m at http:\/\/127\.0\.0\.1:\d+\/v1 has not answered a call within 2 s \(memrl\.llm\.timeout_ms 1500\); retrying \(up to 1 more attempt, memrl\.llm\.max_retries\); is the server hung or overloaded\?/),
    ]);
    expect(r.code, r.stderr).toBe(2);
    expect(lines.filter(Boolean).at(-1)).toMatch(/failed every call so far: .*timed out after 1500 ms per attempt \(2 attempts\)/);
  }, 120_000);

  it('the defaults a user expects: a minute per attempt, 2 retries', async () => {
    const r = await runMemrl(['config', '--benchmark', 'hle', '--explain'], { cwd: work });
    expect(r.stdout).toMatch(/memrl\.llm\.timeout_ms {2}\(integer > 0; default 60000\)/);
    expect(r.stdout).toMatch(/memrl\.llm\.max_retries {2}\(integer >= 0; default 2\)/);
  });

  it.each(['SIGTERM', 'SIGHUP'] as const)('%s stops a run as Ctrl-C does: the interrupted line, the summary, the resume command, exit 130', async (signal) => {
    mode = 'slow';
    const child = spawn(process.execPath, [MEMRL_BIN, 'run', 'hle', '--train', HLE, '--config', realConfig(`sig-${signal}.yaml`, server.url, '  concurrency: 1\n'), '--epochs', '2', '--output-dir', `sig-${signal}`], {
      cwd: work,
      env: { ...process.env, OPENAI_API_KEY: '' },
    });
    let stderr = '';
    let stdout = '';
    let sent = false;
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      // Once, when the run folder exists and episodes are under way (a second signal quits at once).
      if (/run folder:/.test(stderr) && !sent) {
        sent = true;
        setTimeout(() => child.kill(signal), 1500);
      }
    });
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    expect(stderr).toContain(`memrl: interrupted (${signal}); stopping after the running episodes`);
    expect(stderr).toMatch(/^interrupted: 0\/2 epoch\(s\); last acc/m);
    expect(stderr).toMatch(/^resume with: memrl run hle --resume \S+/m);
    expect(code).toBe(130);
    const dir = /^results: (\S+)$/m.exec(stdout)![1]!;
    expect(JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'))).toMatchObject({ status: 'interrupted' });
  }, 120_000);
});

describe('a baseline that falls back says so: on the console once per epoch, in summary.json, no stack traces', () => {
  let server: OpenAITestServer;
  beforeAll(async () => {
    server = await startOpenAIServer({
      chat: (req) => {
        if (isJudge(req)) return VERDICT;
        // Every call asking for JSON (Self-RAG's decisions, Mem0's extraction) gets prose.
        if ((req.body as { response_format?: { type?: string } }).response_format?.type === 'json_object') return 'I would rather not say.';
        return ANSWER;
      },
    });
  });
  afterAll(() => server.close());

  it('Self-RAG whose decisions never parse: counted fallbacks to plain top-k', async () => {
    const r = await runMemrl(['run', 'hle', '--train', HLE, '--config', realConfig('selfrag.yaml', server.url, '  llm: {max_retries: 0}\n'), '--method', 'selfrag', '--epochs', '2', '--output-dir', 'selfrag'], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    const fallbackLines = r.stderr.split('\n').filter((l) => l.startsWith('  fallbacks:'));
    // Epoch 1 has no stored experience to decide about; epoch 2 decides for each of its 20 tasks.
    expect(fallbackLines).toEqual([expect.stringMatching(/^ {2}fallbacks: Self-RAG \w+ reply unparseable: the candidates injected ×20 \(each task in \S+log\.jsonl, event method_fallback\)$/)]);
    const summary = JSON.parse(readFileSync(join(runDirOf(r), 'summary.json'), 'utf8')) as { memory: { fallbacks: Record<string, number> } };
    expect(Object.values(summary.memory.fallbacks).reduce((a, b) => a + b, 0)).toBe(20);
  }, 120_000);

  it('Mem0 with infer: true against a model that does not answer in its JSON format: no stack trace, the count said, nothing stored', async () => {
    const cfg = realConfig('mem0.yaml', server.url, '  llm: {max_retries: 0}\n  mem0: {infer: true}\n');
    const r = await runMemrl(['run', 'hle', '--train', HLE, '--config', cfg, '--method', 'mem0', '--epochs', '1', '--output-dir', 'mem0'], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stderr).not.toMatch(/Error parsing extraction response/);
    expect(r.stderr).toMatch(/^ {2}fallbacks: Mem0 extraction reply not in its JSON format: nothing stored from the experience ×20 \(each task in /m);
    const dir = runDirOf(r);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { memory: { fallbacks: Record<string, number>; memories?: number } };
    expect(summary.memory.fallbacks).toEqual({ 'mem0-extraction-unparseable': 20 });
    // mem0ai's own lines are in the run's log.
    expect(readFileSync(join(dir, 'log.jsonl'), 'utf8')).toMatch(/"event":"mem0_output".*Error parsing extraction response/);
  }, 120_000);

  it('Mem0 records the score its threshold compared: every injected memory is at or above it', async () => {
    const cfg = realConfig('mem0-threshold.yaml', server.url, '  mem0: {threshold: 0.3}\n');
    const r = await runMemrl(['run', 'hle', '--train', HLE, '--config', cfg, '--method', 'mem0', '--epochs', '2', '--output-dir', 'mem0-threshold'], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    const sims = readOutcomeRows(join(runDirOf(r), 'outcomes.jsonl')).rows.flatMap((x) => x.retrievedSim ?? []);
    expect(sims.length).toBeGreaterThan(0);
    for (const s of sims) expect(s).toBeGreaterThanOrEqual(0.3);
  }, 120_000);
});
