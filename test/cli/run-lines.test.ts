/**
 * What a run's lines say beyond the numbers, where the numbers alone would mislead:
 * - the last line of a run stopped with Ctrl-C mid-epoch. Its accuracy counts the tasks
 *   the epoch did not reach as unsolved (one definition for every run), so the line says
 *   the epoch is unfinished and how far it got: the number is not the epoch's result;
 * - an epoch's line when some episodes could not be played (the endpoint failed them):
 *   they too count as unsolved, so the line says how many;
 * - a run whose endpoint stops answering mid-run: it stops, resumable, before the
 *   episodes the endpoint failed count as unsolved or keep the memories it could not write.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOutcomeRows } from '../../src/metrics/outcome-store.js';
import { assertBuilt, MEMRL_BIN, runMemrl } from '../helpers/cli.js';
import { chatCompletion, errorReply, startOpenAIServer, type OpenAITestServer } from '../helpers/openai-server.js';

const work = mkdtempSync(join(tmpdir(), 'memrl-run-lines-'));
const PLUGIN = resolve('examples/plugins/arithmetic/index.ts');
let server: OpenAITestServer;
/** Chat requests made before the flaky run started. */
let flakyFrom = -1;
/** From this many chat requests on, the dying endpoint answers 503 only. */
let dyingFrom = Infinity;

beforeAll(async () => {
  assertBuilt();
  // Three endpoints on one server: under /flaky/ one request gets no content (that episode
  // cannot be played); under /dying/ every request from dyingFrom on gets a 503; the
  // plain one answers after 50 ms, so a run is still going when it is stopped.
  server = await startOpenAIServer({
    chat: async (req, n) => {
      if (req.path.startsWith('/flaky/')) return n === flakyFrom ? { body: chatCompletion(null) } : 'ANSWER: 4';
      if (req.path.startsWith('/dying/')) return n >= dyingFrom ? errorReply(503, 'the model server is gone') : 'ANSWER: 4';
      await new Promise((r) => setTimeout(r, 50));
      return 'ANSWER: 4';
    },
  });
  writeFileSync(join(work, 'live.yaml'), `llm: {provider: openai, base_url: "${server.url}", model: loop-model, api_key: sk-loop, temperature: 0}\nembedding: {provider: local}\nmemrl:\n  arithmetic: {train: 24, valid: 0}\n`);
});
afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the lines a run prints', () => {
  it('stopped mid-epoch: says its epoch is unfinished and how many tasks ran; the resumed run does not', async () => {
    const args = ['run', 'arithmetic', '--plugin', PLUGIN, '--config', 'live.yaml', '--epochs', '1', '--batch-size', '4', '--no-run-validation'];
    const child = spawn(process.execPath, [MEMRL_BIN, ...args, '--output-dir', 'out'], { cwd: work });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // Ctrl-C once two batches (agent and memory calls) have gone to the endpoint.
    const stopped = new Promise<number | null>((done) => child.on('close', done));
    while (server.chatRequests().length < 16) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGINT');
    expect(await stopped).toBe(130);

    const dir = join(work, 'out', 'arithmetic', readdirSync(join(work, 'out', 'arithmetic'))[0]!);
    const ran = readOutcomeRows(join(dir, 'outcomes.jsonl')).rows.length;
    expect(ran).toBeGreaterThan(0);
    expect(ran).toBeLessThan(24);
    expect(stderr).toMatch(new RegExp(`interrupted: 0/1 epoch\\(s\\); last acc [0-9.]+ \\(epoch 1 unfinished: ${ran} of 24 tasks ran, the rest count as unsolved\\)`));

    const resumed = await runMemrl(['run', 'arithmetic', '--plugin', PLUGIN, '--resume', dir], { cwd: work });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(/done: 1\/1 epoch\(s\); last acc [0-9.]+, CSR/);
    expect(resumed.stderr).not.toMatch(/unfinished/);
  }, 120_000);

  it('an epoch with episodes that ended in error: says how many, and only for that epoch', async () => {
    writeFileSync(join(work, 'flaky.yaml'), `llm: {provider: openai, base_url: "${server.url.replace(/\/v1$/, '/flaky/v1')}", model: loop-model, api_key: sk-loop, temperature: 0}\nembedding: {provider: local}\nmemrl:\n  arithmetic: {train: 6, valid: 0}\n`);
    flakyFrom = server.chatRequests().length;
    const r = await runMemrl(['run', 'arithmetic', '--plugin', PLUGIN, '--config', 'flaky.yaml', '--epochs', '2', '--concurrency', '1', '--no-run-validation', '--output-dir', 'flaky'], { cwd: work });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/epoch 1\/2: acc [0-9.]+ {2}CSR [0-9.]+ {2}memories 5 {2}errors 1 train \(counted as unsolved; the log says why\)\n/);
    expect(r.stderr).toMatch(/epoch 2\/2: acc [0-9.]+ {2}CSR [0-9.]+ {2}memories 11\n/);
  }, 120_000);

  it('an endpoint that stops answering mid-run: stops it in one line before its failures count, and the resumed run has no error rows', async () => {
    writeFileSync(
      join(work, 'dying.yaml'),
      `llm: {provider: openai, base_url: "${server.url.replace(/\/v1$/, '/dying/v1')}", model: loop-model, api_key: sk-loop, temperature: 0}\nembedding: {provider: local}\nmemrl:\n  arithmetic: {train: 24, valid: 0}\n  llm: {max_retries: 0, stop_after_failures: 3}\n`,
    );
    // One episode at a time, each an agent call then a memory call. Two batches of 4 are
    // answered, and the next episode's agent call; its memory call is the first to fail.
    dyingFrom = server.chatRequests().length + 17;
    const args = ['run', 'arithmetic', '--plugin', PLUGIN, '--config', 'dying.yaml', '--epochs', '1', '--batch-size', '4', '--concurrency', '1', '--no-run-validation', '--output-dir', 'dying'];
    const r = await runMemrl(args, { cwd: work });
    expect(r.code).toBe(2);
    const dir = join(work, 'dying', 'arithmetic', readdirSync(join(work, 'dying', 'arithmetic'))[0]!);
    const last = r.stderr.trim().split('\n').at(-1)!;
    expect(last).toBe(
      `memrl: openai:loop-model stopped answering: 3 calls in a row failed after their retries (memrl.llm.stop_after_failures 3); the last: openai:loop-model chat at ${server.url.replace(/\/v1$/, '/dying/v1')} failed: 503 the model server is gone (the server failed: check it, or try again later); once it answers again, rerun with --resume ${dir}`,
    );
    // The two answered batches are kept; nothing the endpoint failed is.
    const kept = readOutcomeRows(join(dir, 'outcomes.jsonl')).rows;
    expect(kept.map((x) => x.status).filter((s) => s === 'error')).toEqual([]);
    expect(kept).toHaveLength(8);
    // No calls wait on the dead endpoint once it is judged gone: the rest of the batch fails at once.
    expect(server.chatRequests().length - dyingFrom).toBeLessThanOrEqual(4);

    dyingFrom = Infinity;
    const resumed = await runMemrl(['run', 'arithmetic', '--plugin', PLUGIN, '--resume', dir], { cwd: work });
    expect(resumed.code).toBe(0);
    const rows = readOutcomeRows(join(dir, 'outcomes.jsonl')).rows;
    expect(rows).toHaveLength(24);
    expect(rows.filter((x) => x.status === 'error')).toEqual([]);
    // The episode whose memory the dead endpoint could not write was played again: no memory is the writer's stand-in text.
    const memories = readFileSync(join(dir, 'memories.jsonl'), 'utf8').split('\n').filter(Boolean);
    expect(memories).toHaveLength(24);
    const standIn = readFileSync(resolve('src/memory/prompts/fallback-reflection.md'), 'utf8').trim();
    expect(memories.filter((m) => (JSON.parse(m) as { content: string }).content.includes(standIn))).toEqual([]);
  }, 120_000);
});
