/**
 * The LLM's and the embedder's settings from the config: where each is reached and
 * with which key (a real provider without one is refused before anything runs), the
 * model, and the call limits. The offline providers (sim, local) need neither.
 */
import { UserError } from '../util/errors.js';
import { resolveEndpoint, type Endpoint } from './credentials.js';
import type { FlagValues } from './flags.js';
import type { Env } from './interpolate.js';
import type { MemrlConfig } from './schema.js';
import type { EmbeddingSettings, LlmSettings } from './types.js';
import type { KeyPath } from './yaml-source.js';

export interface ModelEndpoints {
  llm: Endpoint;
  embedding: Endpoint;
  /** The provider is openai: its endpoint and key are used. */
  llmReal: boolean;
  embeddingReal: boolean;
  /** What resolving the endpoints of the real providers noted (placeholders replaced, keys from the environment). */
  notes: string[];
}

/** What of the config's sources a missing key's message names. */
export interface KeySources {
  flags: FlagValues;
  where(path: KeyPath): string;
  setBy(path: KeyPath): string | undefined;
}

export function modelEndpoints(cfg: MemrlConfig, env: Env): ModelEndpoints {
  const llm = resolveEndpoint('llm', cfg.llm.api_key, cfg.llm.base_url, env);
  const embedding = resolveEndpoint('embedding', cfg.embedding.api_key, cfg.embedding.base_url, env);
  const llmReal = cfg.llm.provider === 'openai';
  const embeddingReal = cfg.embedding.provider === 'openai';
  const notes = [...(llmReal ? llm.notes : []), ...(embeddingReal ? embedding.notes : [])];
  return { llm, embedding, llmReal, embeddingReal, notes };
}

/** A real provider with no usable key: refused, saying where the key was to come from. */
export function refuseMissingKeys(endpoints: ModelEndpoints, ctx: KeySources): void {
  for (const [section, real, endpoint] of [
    ['llm', endpoints.llmReal, endpoints.llm],
    ['embedding', endpoints.embeddingReal, endpoints.embedding],
  ] as const) {
    if (real && endpoint.apiKey === null) {
      const keyVar = section === 'llm' && ctx.setBy([section, 'api_key']) === '--api-key-env' ? String(ctx.flags.apiKeyEnv) : undefined;
      if (keyVar !== undefined) {
        throw new UserError(`--api-key-env ${keyVar}: the environment variable ${keyVar} is set but empty; export ${keyVar}=<your API key>, or name the variable that holds it`, 'api_key_empty');
      }
      throw new UserError(
        `${ctx.where([section, 'api_key'])}: \`${section}.api_key\` is a placeholder and OPENAI_API_KEY is not set; export OPENAI_API_KEY, or write the key (or \${VAR}) in the config, or use provider ${section === 'llm' ? 'sim' : 'local'} to run offline`,
      );
    }
  }
}

export function llmSettings(cfg: MemrlConfig, endpoints: ModelEndpoints, seed: number): LlmSettings {
  return {
    provider: cfg.llm.provider,
    model: cfg.llm.provider === 'sim' ? 'sim' : cfg.llm.model,
    apiKey: endpoints.llmReal ? endpoints.llm.apiKey : null,
    baseUrl: endpoints.llm.baseUrl,
    apiVersion: cfg.llm.api_version,
    temperature: cfg.llm.temperature,
    maxTokens: cfg.llm.max_tokens,
    timeoutMs: cfg.memrl.llm.timeout_ms,
    maxRetries: cfg.memrl.llm.max_retries,
    stopAfterFailures: cfg.memrl.llm.stop_after_failures,
    rateLimit: cfg.memrl.llm.rate_limit,
    simSeed: cfg.memrl.sim.seed ?? seed,
  };
}

export function embeddingSettings(cfg: MemrlConfig, endpoints: ModelEndpoints): EmbeddingSettings {
  return {
    provider: cfg.embedding.provider,
    model: cfg.embedding.provider === 'local' ? 'local-ngram' : cfg.embedding.model,
    apiKey: endpoints.embeddingReal ? endpoints.embedding.apiKey : null,
    baseUrl: endpoints.embedding.baseUrl,
    apiVersion: cfg.embedding.api_version,
    maxTextLen: cfg.embedding.max_text_len,
    // The local embedder needs a size; OpenAI's default is the model's native one.
    dim: cfg.memrl.embedding.dim ?? (cfg.embedding.provider === 'local' ? 512 : null),
  };
}
