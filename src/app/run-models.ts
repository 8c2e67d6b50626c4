/**
 * The models of a run, composed from resolved settings: the agent (and a judge, for
 * benchmarks that have one) behind the response cache, and the embedder behind its
 * caches. Offline replay swaps the live clients for ones that can only miss.
 */
import type { EmbeddingSettings, LlmSettings } from '../config/types.js';
import { CachedEmbedder } from '../embed/cached.js';
import { DiskCachedEmbedder } from '../embed/cached-disk.js';
import { createEmbedder, createUncachedEmbedder, type EmbedderConfig } from '../embed/factory.js';
import type { Embedder } from '../embed/types.js';
import { CachedChatModel, OfflineChatModel, ReplayMissError, type CacheLayers, type ChatCacheIdentity } from '../llm/cache.js';
import { createChatModel } from '../llm/factory.js';
import { localRateGates, rateLimited, type RateGateFactory } from '../llm/rate-gate.js';
import { redactUrlCredentials } from '../llm/redact.js';
import { SlowCallNotice } from '../llm/slow-notice.js';
import type { UsageLedger } from '../llm/ledger.js';
import type { SimPlayer } from '../llm/sim/model.js';
import { ZERO_USAGE, type ChatModel } from '../llm/types.js';

/** 'sim' or 'openai:<model>': how every output names a model. */
export function modelLabelOf(llm: Pick<LlmSettings, 'provider' | 'model'>): string {
  return llm.provider === 'sim' ? 'sim' : `openai:${llm.model}`;
}

/** What, besides the request, keys a model's cached replies. */
export function chatCacheIdentity(llm: LlmSettings): ChatCacheIdentity {
  const sim = llm.provider === 'sim';
  return {
    provider: llm.provider,
    baseUrl: sim ? '' : llm.baseUrl,
    apiVersion: llm.apiVersion ?? undefined,
    model: sim ? 'sim' : llm.model,
    defaultTemperature: llm.temperature,
    defaultMaxTokens: llm.maxTokens ?? undefined,
    simSeed: sim ? llm.simSeed : undefined,
  };
}

/**
 * A live client for `llm`; the simulator answers with the benchmark's player. An
 * endpoint's calls pass its rate gate, if it has a limit; `notice` gets one line when a
 * call outlasts its first attempt's timeout (a hung server).
 */
export function liveChatModel(llm: LlmSettings, benchmark: string, player: SimPlayer, gates: RateGateFactory = localRateGates, notice?: (line: string) => void): ChatModel {
  const created = createChatModel({
    provider: llm.provider,
    model: llm.model,
    apiKey: llm.apiKey,
    baseURL: llm.baseUrl,
    apiVersion: llm.apiVersion,
    temperature: llm.temperature,
    maxTokens: llm.maxTokens ?? undefined,
    timeoutMs: llm.timeoutMs,
    maxRetries: llm.maxRetries,
    seed: llm.simSeed,
    simPlayers: { [benchmark]: player },
  });
  const client = notice && llm.provider === 'openai' ? new SlowCallNotice(created, { endpoint: redactUrlCredentials(llm.baseUrl), timeoutMs: llm.timeoutMs, maxRetries: llm.maxRetries, notice }) : created;
  // The simulator has no endpoint to protect.
  return llm.rateLimit && llm.provider === 'openai' ? rateLimited(client, gates(`${llm.baseUrl}|${llm.model}`, llm.rateLimit)) : client;
}

/** `llm` behind the run's response cache; offline (replay), a miss stops the run instead of calling out. */
export function cachedChatModel(llm: LlmSettings, benchmark: string, player: SimPlayer, layers: CacheLayers, gates?: RateGateFactory, notice?: (line: string) => void): ChatModel {
  const inner = layers.offline ? new OfflineChatModel(modelLabelOf(llm), llm.provider === 'sim') : liveChatModel(llm, benchmark, player, gates, notice);
  return new CachedChatModel(inner, chatCacheIdentity(llm), layers);
}

/** The run's embedder: API embeddings go through the disk cache (and the ledger); the local one needs neither. */
export function runEmbedder(emb: EmbeddingSettings, layers: CacheLayers, ledger: UsageLedger): Embedder {
  const cfg: EmbedderConfig = {
    provider: emb.provider,
    model: emb.model,
    apiKey: emb.apiKey,
    baseURL: emb.baseUrl,
    apiVersion: emb.apiVersion,
    maxTextLen: emb.maxTextLen,
    dim: emb.dim ?? undefined,
    dimensions: emb.provider === 'openai' ? (emb.dim ?? undefined) : undefined,
  };
  // The local embedder is offline and deterministic: only API embeddings go through the disk cache.
  if (emb.provider !== 'openai') return createEmbedder(cfg, { onUsage: (u) => ledger.recordEmbedding(u) });
  return new CachedEmbedder(
    new DiskCachedEmbedder(
      layers.offline ? offlineEmbedder(`openai:${emb.model}`) : createUncachedEmbedder(cfg, { onUsage: (u) => ledger.recordEmbedding(u) }),
      {
        provider: 'openai',
        baseUrl: emb.baseUrl,
        apiVersion: emb.apiVersion ?? undefined,
        model: emb.model,
        dimensions: cfg.dimensions,
        maxTextLen: emb.maxTextLen,
      },
      layers,
      () => ledger.recordEmbedding(ZERO_USAGE, { cached: true }),
    ),
  );
}

/** The inner embedder of a replay: the disk cache answers or fails first, so this is never reached. */
function offlineEmbedder(label: string): Embedder {
  return {
    label,
    embed: async () => {
      throw new ReplayMissError(`replay: ${label} embeddings would need a live call`, label);
    },
  };
}
