/**
 * Embeddings over an OpenAI-compatible endpoint. Long texts are cut into chunks
 * of at most `maxTextLen` characters and the text's vector is the element-wise
 * mean of its chunk vectors (the reference's rule). Chunks of many texts share
 * batched requests; results are matched back by the response's `index`.
 */
import type OpenAI from 'openai';
import { createOpenAIClient, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, requestSignal, type ClientLogger } from '../llm/client.js';
import { notAnApiReply, ProviderError, type CallContext } from '../llm/errors.js';
import { toProviderError } from '../llm/provider-errors.js';
import type { TokenUsage } from '../llm/types.js';
import type { Embedder } from './types.js';
import { redactUrlCredentials } from '../llm/redact.js';

export interface OpenAIEmbedderOptions {
  apiKey: string;
  baseURL?: string;
  model: string;
  apiVersion?: string;
  /** Characters per chunk; 0 = never chunk. */
  maxTextLen?: number;
  /** Inputs per request. */
  batchSize?: number;
  timeoutMs?: number;
  maxRetries?: number;
  /** Ask for shorter vectors (text-embedding-3 models only). */
  dimensions?: number;
  /** Called once per request with its usage (e.g. UsageLedger.recordEmbedding). */
  onUsage?: (usage: TokenUsage) => void;
  logger?: ClientLogger;
}

/**
 * Cuts a text into pieces of at most `max` characters (UTF-16 units), never
 * between the halves of a surrogate pair. `max` ≤ 0 means no cutting.
 */
export function chunkText(text: string, max: number): string[] {
  if (max <= 0 || text.length <= max) return [text];
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    let end = Math.min(i + max, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && end - i > 1 && last >= 0xd800 && last <= 0xdbff) end -= 1;
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}

/** Element-wise mean of equal-length vectors. */
export function meanVector(vectors: readonly ArrayLike<number>[]): Float32Array {
  const dim = vectors[0]?.length ?? 0;
  const acc = new Float64Array(dim);
  for (const v of vectors) for (let i = 0; i < dim; i++) acc[i]! += v[i]!;
  const out = new Float32Array(dim);
  for (let i = 0; i < dim; i++) out[i] = acc[i]! / vectors.length;
  return out;
}

export class OpenAIEmbedder implements Embedder {
  readonly label: string;
  private readonly client: OpenAI;
  private readonly ctx: CallContext;
  private readonly maxTextLen: number;
  private readonly batchSize: number;

  constructor(private readonly opts: OpenAIEmbedderOptions) {
    this.label = `openai:${opts.model}`;
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxRetries = opts.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.maxTextLen = opts.maxTextLen ?? 0;
    this.batchSize = Math.max(1, opts.batchSize ?? 64);
    this.client = createOpenAIClient({
      apiKey: opts.apiKey,
      baseURL: opts.baseURL,
      apiVersion: opts.apiVersion,
      timeoutMs,
      maxRetries,
      logger: opts.logger,
    });
    this.ctx = { provider: this.label, operation: 'embeddings', apiKey: opts.apiKey, timeoutMs, maxRetries, endpoint: redactUrlCredentials(opts.baseURL ?? 'https://api.openai.com/v1') };
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    // Endpoints reject empty input strings; a single space embeds "nothing" instead.
    const chunksPerText = texts.map((t) => chunkText(t === '' ? ' ' : t, this.maxTextLen));
    const flat = chunksPerText.flat();
    const vectors: number[][] = [];
    for (let start = 0; start < flat.length; start += this.batchSize) {
      const batch = flat.slice(start, start + this.batchSize);
      vectors.push(...(await this.request(batch, signal)));
    }
    const dim = vectors[0]?.length ?? 0;
    if (vectors.some((v) => v.length !== dim)) {
      throw new ProviderError(`${this.label} embeddings returned vectors of different lengths`, this.label, 'bad_response');
    }
    const out: Float32Array[] = [];
    let k = 0;
    for (const chunks of chunksPerText) {
      out.push(meanVector(vectors.slice(k, k + chunks.length)));
      k += chunks.length;
    }
    return out;
  }

  private async request(input: string[], signal?: AbortSignal): Promise<number[][]> {
    let res: OpenAI.Embeddings.CreateEmbeddingResponse;
    const scoped = requestSignal(signal);
    try {
      res = await this.client.embeddings.create(
        {
          model: this.opts.model,
          input,
          // Plain floats: base64 (the package default) is not supported by every compatible server.
          encoding_format: 'float',
          ...(this.opts.dimensions ? { dimensions: this.opts.dimensions } : {}),
        },
        scoped.options,
      );
    } catch (err) {
      throw toProviderError(err, this.ctx);
    } finally {
      scoped.release();
    }
    const foreign = notAnApiReply(res, 'data', this.ctx);
    if (foreign) throw foreign;
    const data = res.data;
    if (data.length !== input.length) {
      throw new ProviderError(
        `${this.label} embeddings returned ${data.length} vectors for ${input.length} inputs`,
        this.label,
        'bad_response',
      );
    }
    const byIndex: (number[] | undefined)[] = new Array(input.length);
    data.forEach((d, pos) => {
      // Servers may answer out of order; `index` says which input each vector is for.
      const i = typeof d.index === 'number' ? d.index : pos;
      if (i >= 0 && i < input.length && Array.isArray(d.embedding)) byIndex[i] = d.embedding;
    });
    if (byIndex.some((v) => v === undefined || v.length === 0)) {
      throw new ProviderError(`${this.label} embeddings response is missing vectors`, this.label, 'bad_response');
    }
    const u = res.usage;
    this.opts.onUsage?.({
      promptTokens: u?.prompt_tokens ?? 0,
      completionTokens: 0,
      totalTokens: u?.total_tokens ?? u?.prompt_tokens ?? 0,
    });
    return byIndex as number[][];
  }
}
