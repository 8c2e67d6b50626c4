/**
 * Cost ledger, price table and spend meter: what summary.json reports per role and
 * what --budget-usd / --budget-tokens act on.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { budgetStopLine, SpendMeter, unpricedForBudget, type BudgetHit } from '../../src/llm/budget.js';
import { spendFile } from '../../src/core/run-files/spend.js';
import { UsageLedger } from '../../src/llm/ledger.js';
import { MeteredChatModel } from '../../src/llm/metered.js';
import { OpenAIChatModel } from '../../src/llm/openai.js';
import { BUILTIN_PRICES_FILE, loadPriceTable, pricesForRun, priceOf } from '../../src/llm/prices.js';
import type { ChatTags } from '../../src/llm/types.js';
import { UserError } from '../../src/util/errors.js';
import { chatCompletion, startOpenAIServer } from '../helpers/openai-server.js';

const dir = mkdtempSync(join(tmpdir(), 'memrl-cost-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tags = (role: ChatTags['role']): ChatTags => ({ benchmark: 'bcb', taskId: 't', epoch: 1, phase: 'train', role });
const u = (p: number, c: number) => ({ promptTokens: p, completionTokens: c, totalTokens: p + c });

describe('price table', () => {
  it('ships with its source and date, prices the configs\' models, and never invents a price', () => {
    const text = readFileSync(BUILTIN_PRICES_FILE, 'utf8');
    expect(text).toMatch(/^as_of: '\d{4}-\d{2}-\d{2}'$/m);
    expect(text).toMatch(/^source: 'https:\/\//m);
    const table = loadPriceTable();
    // The models of configs/*.yaml and the HLE judge default.
    for (const m of ['gpt-4o-mini', 'gpt-5-mini', 'gpt-4.1-mini', 'gpt-4o-2024-08-06', 'text-embedding-3-large']) {
      expect(priceOf(table, 'openai', m).price, m).not.toBeNull();
    }
    expect(priceOf(table, 'openai', 'GPT-4o-mini').price).toEqual({ promptPerMTok: 0.15, completionPerMTok: 0.6 });
    const unknown = priceOf(table, 'openai', 'my-azure-deployment');
    expect(unknown.price).toBeNull();
    expect(unknown.note).toMatch(/no price for model "my-azure-deployment".*--prices/);
    // A dated variant that is not listed is not matched by prefix.
    expect(priceOf(table, 'openai', 'gpt-4o-mini-2099-01-01').price).toBeNull();
    expect(priceOf(table, 'sim', 'sim').price).toEqual({ promptPerMTok: 0, completionPerMTok: 0 });
    expect(priceOf(table, 'local', 'local-ngram').price).toEqual({ promptPerMTok: 0, completionPerMTok: 0 });
  });

  it('a user file adds and overrides models; the rest of the built-in table stays', () => {
    const file = join(dir, 'mine.yaml');
    writeFileSync(file, 'models:\n  my-azure-deployment: { input: 1, output: 2 }\n  gpt-4o-mini: { input: 9, output: 9 }\n');
    const table = loadPriceTable(file);
    expect(priceOf(table, 'openai', 'my-azure-deployment')).toMatchObject({ price: { promptPerMTok: 1, completionPerMTok: 2 }, source: file });
    expect(priceOf(table, 'openai', 'gpt-4o-mini').price).toEqual({ promptPerMTok: 9, completionPerMTok: 9 });
    expect(priceOf(table, 'openai', 'gpt-4.1').price).toEqual({ promptPerMTok: 2, completionPerMTok: 8 });
  });

  it('a malformed or missing price file is a one-line user error naming the file and the key', () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'models:\n  m1: { input: cheap }\n');
    expect(() => loadPriceTable(bad)).toThrow(UserError);
    expect(() => loadPriceTable(bad)).toThrow(/bad\.yaml: models\.m1\.input/);
    expect(() => loadPriceTable(join(dir, 'nope.yaml'))).toThrow(/nope\.yaml does not exist/);
  });
});

describe('cost per role in the ledger', () => {
  const table = loadPriceTable();
  const prices = pricesForRun(table, {
    agent: { provider: 'openai', model: 'gpt-4o-mini' },
    judge: { provider: 'openai', model: 'gpt-4o-2024-08-06' },
    embedding: { provider: 'openai', model: 'text-embedding-3-large' },
  });

  it('prices agent and memory writing at the chat model, the judge at its own, embeddings at theirs; cache hits cost nothing', () => {
    const ledger = new UsageLedger({ prices });
    ledger.record(tags('agent'), u(1_000_000, 1_000_000));
    ledger.record(tags('agent'), u(5_000_000, 5_000_000), { cached: true });
    ledger.record(tags('memory'), u(2_000_000, 0));
    ledger.record(tags('judge'), u(1_000_000, 100_000));
    ledger.recordEmbedding(u(1_000_000, 0));
    ledger.recordEmbedding(u(0, 0), { cached: true });
    const s = ledger.snapshot();
    expect(s.byRole.agent.costUsd).toBeCloseTo(0.15 + 0.6, 12);
    expect(s.byRole.memory.costUsd).toBeCloseTo(0.3, 12);
    expect(s.byRole.judge.costUsd).toBeCloseTo(2.5 + 1.0, 12);
    expect(s.byRole.embedding.costUsd).toBeCloseTo(0.13, 12);
    expect(s.costUsd).toBeCloseTo(0.75 + 0.3 + 3.5 + 0.13, 12);
    expect(s.total.costUsd).toBe(s.costUsd);
    expect(s.byRole.agent.cachedTokens).toBe(10_000_000);
    expect(s.prices?.judge).toMatchObject({ model: 'gpt-4o-2024-08-06', source: BUILTIN_PRICES_FILE });
  });

  it('an unpriced model gives cost null with the reason, never a number; unused roles cost 0', () => {
    const ledger = new UsageLedger({ prices: pricesForRun(table, { agent: { provider: 'openai', model: 'my-local-llama' }, embedding: { provider: 'local', model: 'local-ngram' } }) });
    ledger.record(tags('agent'), u(100, 10));
    const s = ledger.snapshot();
    expect(s.byRole.agent.costUsd).toBeNull();
    expect(s.byRole.embedding.costUsd).toBe(0);
    expect(s.costUsd).toBeNull();
    expect(s.notes?.[0]).toMatch(/my-local-llama/);
  });

  it('the sim model costs 0', () => {
    const ledger = new UsageLedger({ prices: pricesForRun(table, { agent: { provider: 'sim', model: 'sim' }, embedding: { provider: 'local', model: 'local-ngram' } }) });
    ledger.record(tags('agent'), u(12_345, 678));
    expect(ledger.snapshot().costUsd).toBe(0);
  });

  it('records the distinct model names and system fingerprints the endpoint returns, also across a resume', async () => {
    let n = 0;
    const srv = await startOpenAIServer({
      chat: () => ({ body: chatCompletion('ok', { model: 'gpt-4o-mini-2024-07-18', systemFingerprint: n++ % 2 ? 'fp_b' : 'fp_a' }) }),
    });
    try {
      const ledger = new UsageLedger({ prices });
      const model = new MeteredChatModel(new OpenAIChatModel({ apiKey: 'sk-test-fp', baseURL: srv.url, model: 'gpt-4o-mini', maxRetries: 0 }), ledger);
      for (let i = 0; i < 3; i++) await model.chat({ messages: [{ role: 'user', content: `q${i}` }], tags: tags('agent') });
      const snap = ledger.snapshot();
      expect(snap.reported?.agent).toEqual({ models: ['gpt-4o-mini-2024-07-18'], systemFingerprints: ['fp_a', 'fp_b'] });
      const resumed = new UsageLedger({ prices });
      resumed.restore(JSON.parse(JSON.stringify(snap)));
      expect(resumed.snapshot().reported?.agent?.systemFingerprints).toEqual(['fp_a', 'fp_b']);
      expect(resumed.snapshot().byRole.agent.calls).toBe(3);
    } finally {
      await srv.close();
    }
  });
});

describe('spend meter (budgets)', () => {
  const prices = pricesForRun(loadPriceTable(), { agent: { provider: 'openai', model: 'gpt-4.1' }, embedding: { provider: 'openai', model: 'text-embedding-3-small' } });

  it('stops once at the token limit, counts only billed calls, and reads the spend back from the run folder', () => {
    const run = join(dir, 'run-tokens');
    const hits: BudgetHit[] = [];
    const ledger = new UsageLedger({ prices, meter: new SpendMeter(spendFile(run), prices, { usd: null, tokens: 1000 }, (h) => hits.push(h)) });
    ledger.record(tags('agent'), u(400, 100));
    ledger.record(tags('agent'), u(4000, 1000), { cached: true });
    expect(hits).toEqual([]);
    ledger.record(tags('memory'), u(400, 100));
    ledger.record(tags('agent'), u(10, 10));
    expect(hits).toEqual([{ kind: 'tokens', flag: '--budget-tokens', spent: 1000, limit: 1000 }]);
    expect(ledger.snapshot().spend).toMatchObject({ tokens: 1020, reached: { kind: 'tokens' } });

    // A resume: the same limit is reached at once; a larger one is not, and counting continues.
    expect(new SpendMeter(spendFile(run), prices, { usd: null, tokens: 1000 }).reached()).toMatchObject({ spent: 1020 });
    const more = new SpendMeter(spendFile(run), prices, { usd: null, tokens: 5000 });
    expect(more.reached()).toBeNull();
    more.add('embedding', u(80, 0));
    expect(new SpendMeter(spendFile(run), prices, { usd: null, tokens: 5000 }).tokens()).toBe(1100);
  });

  it('stops at the dollar limit using the price table', () => {
    const hits: BudgetHit[] = [];
    const meter = new SpendMeter(spendFile(join(dir, 'run-usd')), prices, { usd: 0.01, tokens: null }, (h) => hits.push(h));
    meter.add('agent', u(1000, 500)); // $0.002 + $0.004
    expect(hits).toEqual([]);
    meter.add('agent', u(1000, 500));
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ kind: 'usd', flag: '--budget-usd', limit: 0.01 });
    expect(hits[0]!.spent).toBeCloseTo(0.012, 12);
    expect(budgetStopLine(hits[0]!, 'bcb', '/r/x')).toBe(
      'memrl: budget reached: $0.0120 of $0.01 (--budget-usd); stopping. Resume with a larger budget: memrl run bcb --resume /r/x --budget-usd <more>',
    );
  });

  it('refuses a dollar budget it could not check, and an unreadable spend file', () => {
    const unpriced = pricesForRun(loadPriceTable(), { agent: { provider: 'openai', model: 'mystery' }, embedding: { provider: 'local', model: 'l' } });
    expect(unpricedForBudget({ usd: 5, tokens: null }, unpriced)[0]).toMatch(/mystery/);
    expect(unpricedForBudget({ usd: null, tokens: 5 }, unpriced)).toEqual([]);
    const broken = join(dir, 'broken-spend');
    mkdirSync(broken, { recursive: true });
    writeFileSync(join(broken, 'spend.json'), '{"byRole": ');
    expect(() => new SpendMeter(spendFile(broken), prices, { usd: null, tokens: 1 })).toThrow(/unreadable/);
  });
});
