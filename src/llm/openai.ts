/**
 * Chat over any OpenAI-compatible endpoint (OpenAI, Azure OpenAI, vLLM, Ollama,
 * llama.cpp) through the `openai` package, which owns retries and timeouts.
 */
import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { createOpenAIClient, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, requestSignal, type ClientLogger } from './client.js';
import { notAnApiReply, ProviderError, type CallContext } from './errors.js';
import { toProviderError } from './provider-errors.js';
import type { ChatModel, ChatRequest, ChatResponse, TokenUsage } from './types.js';
import { redactUrlCredentials } from './redact.js';

/**
 * Which request field carries the output limit. Most OpenAI-compatible servers
 * know `max_tokens`; OpenAI's newer (reasoning) models accept only `max_completion_tokens`.
 */
export type MaxTokensParam = 'max_tokens' | 'max_completion_tokens';

export interface OpenAIChatOptions {
  apiKey: string;
  baseURL?: string;
  model: string;
  /** Azure OpenAI api-version; when set the Azure client (api-key header, deployment paths) is used. */
  apiVersion?: string;
  /** Per attempt. */
  timeoutMs?: number;
  /** Retries after the first attempt, done by the client (429 honours Retry-After; 408/409/5xx/connection errors). */
  maxRetries?: number;
  defaultTemperature?: number;
  defaultMaxTokens?: number;
  maxTokensParam?: MaxTokensParam;
  logger?: ClientLogger;
}

export class OpenAIChatModel implements ChatModel {
  readonly label: string;
  readonly simulated = false;
  private readonly client: OpenAI;
  private readonly ctx: CallContext;

  constructor(private readonly opts: OpenAIChatOptions) {
    this.label = `openai:${opts.model}`;
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxRetries = opts.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.client = createOpenAIClient({
      apiKey: opts.apiKey,
      baseURL: opts.baseURL,
      apiVersion: opts.apiVersion,
      timeoutMs,
      maxRetries,
      logger: opts.logger,
    });
    this.ctx = { provider: this.label, operation: 'chat', apiKey: opts.apiKey, timeoutMs, maxRetries, endpoint: redactUrlCredentials(opts.baseURL ?? 'https://api.openai.com/v1') };
  }

  /** The request body sent for a ChatRequest (exported for tests and cache keys). */
  buildBody(req: ChatRequest): ChatCompletionCreateParamsNonStreaming {
    const body: ChatCompletionCreateParamsNonStreaming = {
      model: this.opts.model,
      // Our message and content-part shapes are the wire shapes.
      messages: req.messages as ChatCompletionCreateParamsNonStreaming['messages'],
    };
    const temperature = req.temperature ?? this.opts.defaultTemperature;
    if (temperature !== undefined) body.temperature = temperature;
    if (req.topP !== undefined) body.top_p = req.topP;
    const maxTokens = req.maxTokens ?? this.opts.defaultMaxTokens;
    if (maxTokens !== undefined) {
      if ((this.opts.maxTokensParam ?? 'max_tokens') === 'max_completion_tokens') body.max_completion_tokens = maxTokens;
      else body.max_tokens = maxTokens;
    }
    if (req.jsonMode) body.response_format = { type: 'json_object' };
    return body;
  }

  async chat(req: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
    const started = performance.now();
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    const scoped = requestSignal(signal);
    try {
      completion = await this.client.chat.completions.create(this.buildBody(req), scoped.options);
    } catch (err) {
      throw toProviderError(err, this.ctx);
    } finally {
      scoped.release();
    }
    const latencyMs = Math.round(performance.now() - started);
    const foreign = notAnApiReply(completion, 'choices', this.ctx);
    if (foreign) throw foreign;
    const choice = completion.choices[0];
    const text = choice?.message?.content;
    const empty = typeof text !== 'string' || text.trim() === '';
    // A caller that scores empty replies (as the reference does: `content or ""`) gets one whenever a message came back.
    if (empty && !(req.acceptEmpty && choice?.message)) {
      // Otherwise an empty reply must never be scored as an answer: make the caller decide.
      const why = choice?.message?.refusal
        ? `refusal: ${choice.message.refusal.slice(0, 200)}`
        : `finish_reason=${choice?.finish_reason ?? 'none'}`;
      throw new ProviderError(
        `${this.label} chat returned no content (${why}) for task ${req.tags.taskId}`,
        this.label,
        'empty',
      );
    }
    return {
      text: text ?? '',
      usage: mapUsage(completion.usage),
      model: completion.model || this.opts.model,
      systemFingerprint: completion.system_fingerprint ?? undefined,
      latencyMs,
    };
  }
}

function mapUsage(u: OpenAI.Completions.CompletionUsage | undefined | null): TokenUsage {
  const promptTokens = num(u?.prompt_tokens);
  const completionTokens = num(u?.completion_tokens);
  const total = num(u?.total_tokens);
  return { promptTokens, completionTokens, totalTokens: total || promptTokens + completionTokens };
}

function num(x: unknown): number {
  return typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : 0;
}
