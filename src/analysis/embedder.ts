/**
 * The embedder a run used, made again to embed its task keys for the similarity
 * analysis. The local embedder is offline and deterministic; an API embedder needs its
 * key in the environment (run.json never holds secrets).
 */
import { createEmbedder } from '../embed/factory.js';
import type { Embedder } from '../embed/types.js';
import type { RunInput } from './run-input.js';

export function embedderFor(run: Pick<RunInput, 'embedding'>, env: NodeJS.ProcessEnv = process.env): Embedder | string {
  const e = run.embedding ?? {};
  const provider = e.provider === 'openai' ? 'openai' : e.provider === 'local' || e.provider === undefined ? 'local' : null;
  if (provider === null) return `embedding.provider ${String(e.provider)} is not one memrl can make again`;
  const dim = typeof e.dim === 'number' ? e.dim : undefined;
  if (provider === 'local') return createEmbedder({ provider: 'local', ...(dim ? { dim } : {}) });
  const model = typeof e.model === 'string' ? e.model : '';
  if (!env.OPENAI_API_KEY) return `the run embedded with ${model || 'an OpenAI-compatible model'}: set OPENAI_API_KEY (and the same base URL in the run's config) to embed its task keys again`;
  const baseURL = typeof e.base_url === 'string' ? e.base_url : null;
  const maxTextLen = typeof e.max_text_len === 'number' ? e.max_text_len : undefined;
  return createEmbedder({ provider: 'openai', model, apiKey: env.OPENAI_API_KEY, baseURL, ...(maxTextLen !== undefined ? { maxTextLen } : {}), ...(dim ? { dimensions: dim } : {}) }, { env });
}
