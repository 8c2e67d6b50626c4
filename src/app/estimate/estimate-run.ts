/**
 * The cost of one run before it runs: its model calls, tokens, dollars and hours, from
 * the benchmark's dry-run facts (task counts, the first prompts its own code builds,
 * turns and reply lengths), the method's calls, the price table and the run's
 * concurrency and rate limit. No model, sandbox or network is touched.
 *
 * Two numbers per run: the expected cost (the facts' typical turns and replies) and
 * an upper bound (every episode at its turn limit, every reply at max_tokens). What
 * either assumes is listed with it.
 */
import type { ResolvedConfig } from '../../config/types.js';
import { sectionOf } from '../../config/schema.js';
import type { BenchmarkModule } from '../../core/benchmark.js';
import type { DryRunFacts } from '../../core/dry-run.js';
import { roleCost, type LedgerRole, type RolePrice } from '../../llm/cost.js';
import { loadPriceTable, priceOf } from '../../llm/prices.js';
import { messageText, promptTokens, tokenCounter, type TokenCounter } from './tokens.js';

export interface RoleEstimate {
  role: LedgerRole;
  model: string;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** null: the model has no price. */
  costUsd: number | null;
  /** Every episode at its turn limit and every reply at max_tokens. */
  maxCostUsd: number | null;
}

export interface RunEstimate {
  benchmark: string;
  method: string;
  model: string;
  epochs: number;
  train: number;
  valid: number;
  /** Validation passes (before training, then every validInterval epochs). */
  validationPasses: number;
  tasksFrom: string;
  roles: RoleEstimate[];
  calls: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number | null;
  maxCostUsd: number | null;
  hours: number;
  /** How each model's tokens were counted. */
  counting: string[];
  assumptions: string[];
  /** Models with no price (their cost is unknown). */
  unpriced: string[];
}

/** Seconds of one model call: a second of overhead and 50 completion tokens a second. */
const callSeconds = (completionTokens: number): number => 1 + completionTokens / 50;
const TIMING = 'time: a call takes 1 s plus 50 completion tokens a second; batches run with the configured concurrency, one after another, and the rate limit caps calls a second';

/** What a method adds to the benchmark's own calls (reference behaviour, the built-in methods). */
interface MethodCalls {
  /** Memories injected into a prompt. */
  injected: number;
  /** Model calls that write a memory, per training episode. */
  writerCalls: number;
  /** Decision calls per episode (Self-RAG). */
  decisionCalls: number;
  /** Whether each training episode's memory is embedded. */
  embedsMemories: boolean;
  note?: string;
}

function methodCalls(cfg: ResolvedConfig): MethodCalls {
  const writes = cfg.memory.method !== 'none' && cfg.buildStrategy !== 'trajectory';
  switch (cfg.method) {
    case 'none':
      return { injected: 0, writerCalls: 0, decisionCalls: 0, embedsMemories: false };
    case 'passk':
      return { injected: 0, writerCalls: 0, decisionCalls: 0, embedsMemories: false, note: 'passk: at most; solved tasks are not played again, so the real count is lower' };
    case 'reflection':
      return { injected: 1, writerCalls: 0, decisionCalls: 0, embedsMemories: false, note: 'reflection: at most; solved tasks are not played again; the note on the previous attempt is made without a model call' };
    case 'selfrag': {
      const s = sectionOf<{ top_k: number | null; retrieval_mode: string }>(cfg.config, 'selfrag');
      return { injected: s.top_k ?? cfg.memory.k1, writerCalls: 0, decisionCalls: s.retrieval_mode === 'adaptive' ? 1 : 0, embedsMemories: true };
    }
    case 'mem0': {
      const s = sectionOf<{ limit: number | null; infer: boolean }>(cfg.config, 'mem0');
      return { injected: s.limit ?? cfg.memory.k1, writerCalls: s.infer ? 1 : 0, decisionCalls: 0, embedsMemories: true };
    }
    default:
      return { injected: cfg.memory.method === 'none' ? 0 : cfg.memory.k2, writerCalls: writes ? 1 : 0, decisionCalls: 0, embedsMemories: cfg.memory.method !== 'none' };
  }
}

/** Without a benchmark's own facts: its loaded tasks, one call each, the task's text as the prompt. */
async function genericFacts(bench: BenchmarkModule, cfg: ResolvedConfig): Promise<DryRunFacts> {
  const created = await bench.create(cfg.bench, cfg);
  try {
    const loaded = await created.load();
    return {
      train: loaded.train.length,
      valid: cfg.run.runValidation ? loaded.valid.length : 0,
      tasksFrom: `loaded here (${loaded.splitLabel})`,
      agentPrompts: loaded.train.slice(0, 24).map((t) => [{ role: 'user' as const, content: t.key }]),
      turns: { expected: 1, max: 1 },
      replyTokens: 500,
      memoryChars: 2000,
      assumptions: [`${bench.name}: no dry-run facts of its own: one call per episode, the task's text as the prompt, a 500-token reply`],
    };
  } finally {
    await created.close?.();
  }
}

export function factsFor(bench: BenchmarkModule, cfg: ResolvedConfig): Promise<DryRunFacts> {
  return bench.dryRun ? bench.dryRun(cfg.bench, cfg) : genericFacts(bench, cfg);
}

const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

function role(role: LedgerRole, price: RolePrice, calls: number, prompt: number, completion: number, maxPrompt: number, maxCompletion: number): RoleEstimate {
  const usage = (p: number, c: number) => ({ promptTokens: p, completionTokens: c, totalTokens: p + c });
  return {
    role,
    model: price.model,
    calls: Math.round(calls),
    promptTokens: Math.round(prompt),
    completionTokens: Math.round(completion),
    costUsd: roleCost(usage(prompt, completion), price),
    maxCostUsd: roleCost(usage(maxPrompt, maxCompletion), price),
  };
}

const measures = new Map<string, { first: number; perChar: number; userTokens: number }>();

/**
 * Tokens of the first call, what a character of this benchmark's text is worth in tokens,
 * and the task message's tokens; counted once per set of prompts and tokenizer (a sweep's
 * cells share them).
 */
function measured(facts: Pick<DryRunFacts, 'agentPrompts'>, counter: TokenCounter): { first: number; perChar: number; userTokens: number } {
  const key = `${counter.method}\u0000${JSON.stringify(facts.agentPrompts)}`;
  let m = measures.get(key);
  if (!m) {
    const first = mean(facts.agentPrompts.map((p) => promptTokens(counter, p)));
    const chars = mean(facts.agentPrompts.map((p) => p.reduce((n, x) => n + messageText(x).length, 0)));
    const userTokens = mean(facts.agentPrompts.map((p) => counter.count(messageText(p.at(-1) ?? { role: 'user', content: '' }))));
    m = { first, perChar: chars > 0 ? first / chars : 0.25, userTokens };
    measures.set(key, m);
  }
  return m;
}

/** The estimate of one run, from its resolved config and the benchmark's facts (`facts` given: a sweep shares them across cells). */
export async function estimateRun(cfg: ResolvedConfig, bench: BenchmarkModule, given?: DryRunFacts): Promise<RunEstimate> {
  const facts = given ?? (await factsFor(bench, cfg));
  const prices = loadPriceTable(cfg.run.pricesFile);
  const agentPrice = priceOf(prices, cfg.llm.provider, cfg.llm.model);
  const embedPrice = priceOf(prices, cfg.embedding.provider, cfg.embedding.model);
  const judgePrice = cfg.judge ? priceOf(prices, cfg.judge.provider, cfg.judge.model) : null;
  const agentCounter = await tokenCounter(cfg.llm.model);
  const counting = [`${cfg.llm.model}: ${agentCounter.method}`];

  const { first, perChar, userTokens } = measured(facts, agentCounter);

  const m = methodCalls(cfg);
  const injectedChars = Math.min(m.injected * facts.memoryChars, facts.memoryBudgetChars ?? Infinity);
  const memoryTokens = injectedChars * perChar;
  const observation = (facts.observationChars ?? 0) * perChar;
  const reply = Math.min(facts.replyTokens, cfg.llm.maxTokens ?? Infinity);
  const maxReply = cfg.llm.maxTokens ?? facts.replyTokens * 4;
  const promptOf = (turns: number, replyTokens: number) => turns * (first + memoryTokens) + ((turns * (turns - 1)) / 2) * (replyTokens + observation);

  // As the runner validates: before training if asked, then after every validInterval-th epoch (0: never after one).
  const every = cfg.run.validInterval;
  const validationPasses = facts.valid > 0 && cfg.run.runValidation ? (every > 0 ? Math.floor(cfg.run.epochs / every) : 0) + (cfg.run.valBeforeTrain ? 1 : 0) : 0;
  const trainEpisodes = facts.train * cfg.run.epochs;
  const validEpisodes = facts.valid * validationPasses;
  const episodes = trainEpisodes + validEpisodes;
  const { expected: turns, max: maxTurns } = facts.turns;

  const roles: RoleEstimate[] = [
    role('agent', agentPrice, episodes * turns, episodes * promptOf(turns, reply), episodes * turns * reply, episodes * promptOf(maxTurns, maxReply), episodes * maxTurns * maxReply),
  ];
  const assumptions = [...facts.assumptions, ...(m.note ? [m.note] : [])];
  if (judgePrice && cfg.judge && facts.judgePrompts?.length) {
    const judgeCounter = await tokenCounter(cfg.judge.model);
    if (judgeCounter.method !== agentCounter.method) counting.push(`${cfg.judge.model}: ${judgeCounter.method}`);
    const prompt = measured({ ...facts, agentPrompts: facts.judgePrompts }, judgeCounter).first;
    const judgeReply = Math.min(facts.judgeReplyTokens ?? 200, cfg.judge.maxTokens ?? Infinity);
    roles.push(role('judge', judgePrice, episodes, episodes * prompt, episodes * judgeReply, episodes * prompt, episodes * (cfg.judge.maxTokens ?? judgeReply * 4)));
  }
  // The memory role: the writer's script or reflection per training episode; Self-RAG's decision per episode.
  const writerPrompt = facts.memoryChars * perChar + 200;
  const decisionPrompt = userTokens + m.injected * 400 * perChar + 300;
  const memoryCalls = trainEpisodes * m.writerCalls + episodes * m.decisionCalls;
  const memoryPrompt = trainEpisodes * m.writerCalls * writerPrompt + episodes * m.decisionCalls * decisionPrompt;
  const memoryCompletion = trainEpisodes * m.writerCalls * 300 + episodes * m.decisionCalls * 150;
  if (memoryCalls > 0) {
    roles.push(role('memory', agentPrice, memoryCalls, memoryPrompt, memoryCompletion, memoryPrompt, memoryCalls * maxReply));
    assumptions.push('memory calls: a script or reflection of ~300 tokens per training episode; a Self-RAG decision of ~150 tokens');
  }
  // Embeddings: every task's key once, then each stored memory's key.
  if (cfg.embedding.provider === 'openai') {
    const embedCounter = await tokenCounter(cfg.embedding.model);
    if (!counting.some((c) => c.endsWith(embedCounter.method))) counting.push(`${cfg.embedding.model}: ${embedCounter.method}`);
    const texts = facts.train + facts.valid + (m.embedsMemories ? trainEpisodes : 0);
    roles.push(role('embedding', embedPrice, texts, texts * userTokens, 0, texts * userTokens, 0));
  }

  const sum = (f: (r: RoleEstimate) => number) => roles.reduce((n, r) => n + f(r), 0);
  const cost = (f: (r: RoleEstimate) => number | null): number | null => (roles.some((r) => f(r) === null) ? null : sum((r) => f(r) ?? 0));
  const calls = sum((r) => (r.role === 'embedding' ? 0 : r.calls));

  // Wall time: batches one after another, `concurrency` episodes of a batch at once.
  const episodeSeconds = turns * callSeconds(reply) + (roles.some((r) => r.role === 'judge') ? callSeconds(facts.judgeReplyTokens ?? 200) : 0) + m.writerCalls * callSeconds(300) + m.decisionCalls * callSeconds(150) + (facts.envSeconds ?? 0);
  const waves = (n: number, batch: number) => (n === 0 ? 0 : Math.ceil(n / batch) * Math.ceil(Math.min(batch, n) / cfg.run.concurrency));
  let seconds = (cfg.run.epochs * waves(facts.train, cfg.run.batchSize) + validationPasses * waves(facts.valid, facts.valid)) * episodeSeconds;
  if (cfg.llm.rateLimit) seconds = Math.max(seconds, calls / cfg.llm.rateLimit);

  return {
    benchmark: bench.name,
    method: cfg.method,
    model: cfg.llm.model,
    epochs: cfg.run.epochs,
    train: facts.train,
    valid: facts.valid,
    validationPasses,
    tasksFrom: facts.tasksFrom,
    roles,
    calls,
    promptTokens: sum((r) => r.promptTokens),
    completionTokens: sum((r) => r.completionTokens),
    costUsd: cost((r) => r.costUsd),
    maxCostUsd: cost((r) => r.maxCostUsd),
    hours: seconds / 3600,
    counting,
    assumptions: [...assumptions, TIMING],
    unpriced: [...new Set([agentPrice, embedPrice, ...(judgePrice ? [judgePrice] : [])].filter((p) => !p.price && roles.some((r) => r.model === p.model)).map((p) => p.model))],
  };
}
