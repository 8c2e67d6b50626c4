/**
 * `--budget-tokens` / `--budget-usd` on real `memrl run bcb` commands: the run stops
 * cleanly with one line naming the budget and how to resume, the spend survives the
 * resume, and a resumed run with a larger budget ends where an unbudgeted one does.
 * Also: per-role cost from a user price table, cache hits cost nothing, and run.json
 * records the endpoint's system fingerprints and the tasks that could not be scored.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOutcomeRows } from '../../src/metrics/outcome-store.js';
import { checkBwrap } from '../../src/env/bwrap/check.js';
import { chatCompletion, errorReply, startOpenAIServer, type OpenAITestServer } from '../helpers/openai-server.js';
import { runMemrl } from '../helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'memrl-budget-'));
let server: OpenAITestServer;
/** Text of one task of the first hard-split tasks (BigCodeBench/108): its agent calls fail. */
const POISON = 'Decomposes a time series';
const WRONG = '```python\ndef task_func(*args, **kwargs):\n    return None\n```\n';

beforeAll(async () => {
  const bw = await checkBwrap();
  if (!bw.ok) throw new Error(`bubblewrap sandbox unavailable: ${bw.reason}`);
  server = await startOpenAIServer({
    chat: (req) => {
      const text = JSON.stringify(req.body);
      const isAgent = text.includes('senior Python engineer');
      if (isAgent && text.includes(POISON)) return errorReply(500, 'this task always breaks the server');
      const usage = { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 };
      return { body: chatCompletion(isAgent ? WRONG : 'Reflection: compute the value.', { model: 'test-coder-1-2026', systemFingerprint: 'fp_loop_1', usage }) };
    },
  });
});
afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

function runCli(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return runMemrl(args, { cwd: work, env: { LOOP_KEY: 'sk-budget-test-1' } });
}

const json = (dir: string, f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8'));
const onlyRun = (out: string) => join(work, out, 'bcb', readdirSync(join(work, out, 'bcb'))[0] as string);
const spentTokens = (dir: string) => json(dir, 'summary.json').usage.spend.tokens as number;

describe('--budget-tokens (offline sim run)', () => {
  it('stops with one line, refuses to go on with the same budget, and resumes to the result of an unbudgeted run', async () => {
    const base = ['run', 'bcb', '--epochs', '2', '--limit', '3'];
    const full = await runCli([...base, '--output-dir', 'ref']);
    expect(full.code).toBe(0);
    const ref = onlyRun('ref');
    const total = spentTokens(ref);
    expect(total).toBeGreaterThan(0);
    // Enough for the first epoch, not for the second.
    const budget = Math.ceil(total * 0.6);

    const first = await runCli([...base, '--output-dir', 'b', '--budget-tokens', String(budget)]);
    const dir = onlyRun('b');
    expect(first.code).toBe(3);
    const line = first.stderr.split('\n').find((l) => l.startsWith('memrl: budget reached'));
    expect(line).toMatch(new RegExp(`^memrl: budget reached: \\d+ of ${budget} tokens \\(--budget-tokens\\); .*--resume ${dir} --budget-tokens <more>$`));
    const summary = json(dir, 'summary.json');
    expect(summary.status).toBe('interrupted');
    expect(summary.usage.spend).toMatchObject({ limits: { tokens: budget, usd: null }, reached: { kind: 'tokens', limit: budget } });
    expect(summary.usage.spend.tokens).toBeGreaterThanOrEqual(budget);

    // Same budget: spent is read back from the run folder, nothing runs.
    const spendBefore = readFileSync(join(dir, 'spend.json'), 'utf8');
    const outcomesBefore = readFileSync(join(dir, 'outcomes.jsonl'), 'utf8');
    const again = await runCli([...base, '--resume', dir, '--budget-tokens', String(budget)]);
    expect(again.code).toBe(3);
    expect(again.stderr.trim().split('\n')).toHaveLength(1);
    expect(again.stderr).toMatch(/budget reached.*--budget-tokens/);
    expect(readFileSync(join(dir, 'spend.json'), 'utf8')).toBe(spendBefore);
    expect(readFileSync(join(dir, 'outcomes.jsonl'), 'utf8')).toBe(outcomesBefore);

    // A larger budget: the run finishes where the unbudgeted one did.
    const done = await runCli([...base, '--resume', dir, '--budget-tokens', String(total * 10)]);
    expect(done.stderr).toMatch(/done: 2\/2/);
    expect(done.code).toBe(0);
    expect(json(dir, 'metrics.json')).toEqual(json(ref, 'metrics.json'));
    expect(json(dir, 'summary.json').status).toBe('complete');
    // The spend kept counting across the attempts (and is what spend.json holds).
    expect(spentTokens(dir)).toBeGreaterThanOrEqual(summary.usage.spend.tokens);
    expect(json(dir, 'spend.json').byRole.agent.totalTokens).toBe(json(dir, 'summary.json').usage.spend.byRole.agent.totalTokens);
    // The simulator costs nothing.
    expect(json(dir, 'summary.json').usage.costUsd).toBe(0);
  }, 300_000);
});

describe('cost and --budget-usd against an OpenAI-compatible endpoint', () => {
  const yaml = (model: string) =>
    [
      'llm:',
      '  provider: openai',
      '  api_key: ${LOOP_KEY}',
      `  base_url: ${server.url}`,
      `  model: ${model}`,
      'embedding:',
      '  provider: local',
      'memrl:',
      '  concurrency: 2',
      '  llm:',
      '    max_retries: 0',
      '',
    ].join('\n');

  it('refuses a dollar budget for a model without a price, before starting', async () => {
    writeFileSync(join(work, 'unpriced.yaml'), yaml('test-coder-1'));
    const r = await runCli(['run', 'bcb', '--config', 'unpriced.yaml', '--limit', '2', '--epochs', '1', '--budget-usd', '1', '--output-dir', 'unpriced']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--budget-usd cannot be enforced: no price for model "test-coder-1".*--prices/);
    expect(existsSync(join(work, 'unpriced'))).toBe(false);
  });

  it('prices each role from a user table, stops at the dollar budget, records fingerprints and unscored tasks; a cached re-run costs 0', async () => {
    writeFileSync(join(work, 'priced.yaml'), yaml('test-coder-1'));
    // $2 per 1M prompt tokens, $4 per 1M completion tokens: each call (1000 + 500 tokens) costs $0.004.
    writeFileSync(join(work, 'prices.yaml'), 'models:\n  test-coder-1: { input: 2, output: 4 }\n');
    const args = ['run', 'bcb', '--config', 'priced.yaml', '--prices', 'prices.yaml', '--subset', 'hard', '--epochs', '1', '--limit', '4'];

    const capped = await runCli([...args, '--budget-usd', '0.01', '--output-dir', 'capped']);
    expect(capped.code).toBe(3);
    expect(capped.stderr).toMatch(/^memrl: budget reached: \$0\.0\d+ of \$0\.01 \(--budget-usd\); .*--resume .* --budget-usd <more>$/m);
    const cappedSpend = json(onlyRun('capped'), 'summary.json').usage.spend;
    expect(cappedSpend.costUsd).toBeGreaterThanOrEqual(0.01);
    // Stopped early: short of the 3 agent + 3 memory calls the epoch bills in full.
    expect(cappedSpend.byRole.agent.calls + cappedSpend.byRole.memory.calls).toBeLessThan(6);

    const live = await runCli([...args, '--output-dir', 'live', '--cache', 'shared']);
    expect(live.code).toBe(0);
    const dir = onlyRun('live');
    const usage = json(dir, 'summary.json').usage;
    const agentCalls = usage.byRole.agent.calls;
    expect(agentCalls).toBeGreaterThan(0);
    expect(usage.byRole.agent.costUsd).toBeCloseTo(agentCalls * 0.004, 10);
    expect(usage.byRole.memory.costUsd).toBeCloseTo(usage.byRole.memory.calls * 0.004, 10);
    expect(usage.byRole.embedding.costUsd).toBe(0);
    expect(usage.costUsd).toBeCloseTo((agentCalls + usage.byRole.memory.calls) * 0.004, 10);
    expect(usage.prices.agent).toMatchObject({ model: 'test-coder-1', source: resolve(work, 'prices.yaml') });

    const run = json(dir, 'run.json');
    expect(run.observed.provider.agent).toEqual({ models: ['test-coder-1-2026'], systemFingerprints: ['fp_loop_1'] });
    const rows = readOutcomeRows(join(dir, 'outcomes.jsonl')).rows;
    const poisoned = rows.find((r) => r.taskId === 'BigCodeBench/108');
    expect(poisoned?.status).toBe('error');
    expect(run.observed.unscoredTasks).toEqual([{ taskId: 'BigCodeBench/108', phase: 'train', status: 'error', epochs: [1], reason: poisoned?.error }]);
    expect(poisoned?.error).toMatch(/500/);

    // Same command again on the shared cache: every reply is a hit, nothing is billed.
    const cached = await runCli([...args, '--output-dir', 'cached', '--cache', 'shared']);
    expect(cached.code).toBe(0);
    const again = json(onlyRun('cached'), 'summary.json').usage;
    expect(again.byRole.agent.cachedCalls).toBe(agentCalls);
    expect(again.total.calls).toBe(0); // the poisoned task's call fails again: failures are neither billed nor cached
    expect(again.costUsd).toBe(0);
    expect(again.spend.tokens).toBe(0);
  }, 300_000);
});
