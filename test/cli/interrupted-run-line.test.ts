/**
 * The last line of a run stopped with Ctrl-C mid-epoch. Its accuracy counts the tasks
 * the epoch did not reach as unsolved (one definition for every run), so the line says
 * the epoch is unfinished and how far it got: the number is not the epoch's result.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOutcomeRows } from '../../src/metrics/outcome-store.js';
import { assertBuilt, MEMRL_BIN, runMemrlAsync } from '../helpers/cli.js';
import { startOpenAIServer, type OpenAITestServer } from '../helpers/openai-server.js';

const work = mkdtempSync(join(tmpdir(), 'memrl-interrupted-'));
const PLUGIN = resolve('examples/plugins/arithmetic/index.ts');
let server: OpenAITestServer;

beforeAll(async () => {
  assertBuilt();
  server = await startOpenAIServer({ chat: async () => (await new Promise((r) => setTimeout(r, 50)), 'ANSWER: 4') });
  writeFileSync(join(work, 'live.yaml'), `llm: {provider: openai, base_url: "${server.url}", model: loop-model, api_key: sk-loop, temperature: 0}\nembedding: {provider: local}\nmemrl:\n  arithmetic: {train: 24, valid: 0}\n`);
});
afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

describe('a run stopped mid-epoch', () => {
  it('says its epoch is unfinished and how many tasks ran; the resumed run does not', async () => {
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

    const resumed = await runMemrlAsync(['run', 'arithmetic', '--plugin', PLUGIN, '--resume', dir], { cwd: work });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(/done: 1\/1 epoch\(s\); last acc [0-9.]+, CSR/);
    expect(resumed.stderr).not.toMatch(/unfinished/);
  }, 120_000);
});
