/**
 * Knowing the cost before spending: `memrl run … --dry-run` and `memrl sweep … --dry-run`
 * print calls, tokens, dollars and hours from the prompts the runs would send, against a
 * logging OpenAI-compatible server that must see no request at all; the arithmetic of
 * one estimate by hand; and a sweep's --budget-usd stopping the whole sweep, resumably.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/app/config.js';
import { estimateRun } from '../../src/app/estimate/estimate-run.js';
import { findBenchmark, builtinRegistry } from '../../src/app/registry.js';
import { tokenCounter } from '../../src/app/estimate/tokens.js';
import { requireBcbPython } from '../env/require-sandbox.js';
import { assertBuilt, runMemrl } from '../helpers/cli.js';
import { startOpenAIServer, type OpenAITestServer } from '../helpers/openai-server.js';

const work = mkdtempSync(join(tmpdir(), 'memrl-dry-run-'));
let server: OpenAITestServer;
const sandbox = await requireBcbPython();

beforeAll(async () => {
  assertBuilt();
  server = await startOpenAIServer({ chat: () => '```python\ndef task_func():\n    return 0\n```' });
});
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

const env = () => ({ OPENAI_API_KEY: 'sk-dry-run', OPENAI_BASE_URL: server.url, XDG_CACHE_HOME: join(work, 'cache') });

describe('--dry-run makes no call', () => {
  it('memrl sweep configs/sweeps/paper.yaml --dry-run: calls, tokens, dollars and hours for each of the 120 cells and in total; no request, no folder', async () => {
    const r = await runMemrl(['sweep', resolve('configs/sweeps/paper.yaml'), '--dry-run'], { cwd: work, env: env(), timeoutMs: 240_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests).toHaveLength(0);
    expect(existsSync(join(work, 'sweeps'))).toBe(false);
    const lines = r.stdout.split('\n');
    const cellLines = lines.filter((l) => /^ {2}(hle|bcb|alfworld|llb-db|llb-os)-[a-z0-9]+-s\d /.test(l));
    expect(cellLines).toHaveLength(120);
    // Every cell has a price: a dollar figure and hours, never "$?" (gemini-3-pro is in the price table).
    for (const l of cellLines) expect(l).toMatch(/\$[\d,.]+ +\$[\d,.]+ +[\d.]+$/);
    expect(r.stdout).toMatch(/total: [\d,]+ model calls, [\d.]+[kMB] prompt \+ [\d.]+[kMB] completion tokens, \$[\d,]+ \(at most \$[\d,]+\), [\d.]+ h one cell at a time/);
    expect(r.stdout).toContain('gpt-4o-mini: o200k_base (js-tiktoken)');
    expect(r.stdout).toContain('gemini-3-pro: characters / 4');
    expect(r.stdout).toContain('no model was called.');
    // BCB under the paper's profile: 798 training and 342 held-out tasks, 10 epochs.
    expect(lines.find((l) => l.startsWith('  bcb-memrl-s1 '))).toMatch(/798\/342 +10 /);
  }, 300_000);

  it('memrl run bcb --dry-run: one line per role, the exact call count of the plan, no request', async () => {
    const r = await runMemrl(['run', 'bcb', '--config', resolve('configs/bcb.yaml'), '--method', 'none', '--dry-run'], { cwd: work, env: env(), timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests).toHaveLength(0);
    // 10 epochs of 798 training tasks and 10 validation passes of 342: one call each.
    expect(r.stdout).toMatch(/^ {2}agent +gpt-4o-mini +11,400 /m);
    expect(r.stdout).toMatch(/^ {2}total +11,400 /m);
    expect(r.stdout).toMatch(/time: about [\d.]+ h/);
    expect(existsSync(join(work, 'results'))).toBe(false);
  }, 120_000);
});

describe('the arithmetic of one estimate', () => {
  it('calls × tokens counted by the tokenizer × the price table', async () => {
    const registry = builtinRegistry();
    const cfg = loadConfig(undefined, { model: 'gpt-4o-mini', method: 'none', epochs: 2, noRunValidation: true, runValidation: false }, 'bcb', { registry, inspect: true, env: {} });
    const messages = [{ role: 'user' as const, content: 'Write a function that returns 1.' }];
    const est = await estimateRun(cfg, findBenchmark(registry, 'bcb'), {
      train: 10,
      valid: 0,
      tasksFrom: 'hand-made',
      agentPrompts: [messages],
      turns: { expected: 1, max: 1 },
      replyTokens: 100,
      memoryChars: 0,
      assumptions: [],
    });
    const counted = (await tokenCounter('gpt-4o-mini')).count(messages[0]!.content);
    const prompt = 20 * (3 + 4 + counted);
    expect(est.roles).toHaveLength(1);
    expect(est.roles[0]).toMatchObject({ role: 'agent', calls: 20, promptTokens: prompt, completionTokens: 2000 });
    expect(est.costUsd).toBeCloseTo((prompt * 0.15 + 2000 * 0.6) / 1e6, 12);
    // At most: every reply at max_tokens (12800 for BCB).
    expect(est.maxCostUsd).toBeCloseTo((prompt * 0.15 + 20 * 12800 * 0.6) / 1e6, 12);
  });
});

describe.skipIf(sandbox.skip)('memrl sweep --budget-usd', () => {
  it('prints the estimate first, stops the whole sweep at the limit (exit 3, the next cell never starts), and goes on with a larger one', async () => {
    writeFileSync(
      join(work, 'base.yaml'),
      ['llm:', '  provider: openai', '  api_key: ${OPENAI_API_KEY}', '  base_url: ${OPENAI_BASE_URL}', '  model: gpt-4o-mini', 'embedding:', '  provider: local', ''].join('\n'),
    );
    writeFileSync(join(work, 'tiny.yaml'), ['name: tiny', 'base: base.yaml', 'set:', '  memrl.limit: 1', '  experiment.num_sections: 1', '  memrl.run_validation: false', 'axes:', '  benchmark: [bcb]', '  method: [none]', '  seed: [1, 2]', ''].join('\n'));
    const sweep = (budget: string) => runMemrl(['sweep', 'tiny.yaml', '--max-runs', '1', '--budget-usd', budget], { cwd: work, env: env(), timeoutMs: 240_000 });

    // One call costs (10 · 0.15 + ~8 · 0.60) / 1e6 dollars: a millionth of a dollar is reached by the first.
    const first = await sweep('0.000001');
    expect(first.stderr).toMatch(/memrl sweep tiny: estimate for 2 cell\(s\) before any call/);
    expect(first.stderr.indexOf('estimate for 2 cell')).toBeLessThan(first.stderr.indexOf('[bcb-none-s1]'));
    expect(first.stderr).toMatch(/sweep budget reached: \$0\.00 of \$0\.000001/);
    expect(first.code).toBe(3);
    expect(server.chatRequests()).toHaveLength(1);
    expect(existsSync(join(work, 'sweeps', 'tiny', 'cells', 'bcb-none-s2', 'bcb'))).toBe(false);

    const second = await sweep('1');
    expect(second.code, second.stderr).toBe(0);
    expect(readdirSync(join(work, 'sweeps', 'tiny', 'cells', 'bcb-none-s2', 'bcb'))).toHaveLength(1);
  }, 300_000);
});
