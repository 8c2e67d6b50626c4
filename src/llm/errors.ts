/**
 * Provider failures as one error type with a message that is safe to log:
 * it names the provider and what went wrong, and never carries the API key.
 * The OpenAI SDK's errors become one in provider-errors.ts, so that code which only
 * recognises a ProviderError (the memory writer, the runner) never loads the SDK.
 */
import { MemrlError } from '../util/errors.js';
import { isJsonObject } from '../util/json.js';

/** not_api: the URL answered, but not as an OpenAI-compatible API (an HTML page, plain text): every call would. */
export type ProviderErrorReason = 'api' | 'timeout' | 'connection' | 'aborted' | 'empty' | 'bad_response' | 'not_api';

/** A model endpoint failed (fault kind `model`); `reason` says how, `code` is `provider_<reason>`. */
export class ProviderError extends MemrlError {
  constructor(
    message: string,
    readonly provider: string,
    readonly reason: ProviderErrorReason,
    /** HTTP status when the server answered with an error. */
    readonly status?: number,
  ) {
    super('model', `provider_${reason}`, message);
    this.name = 'ProviderError';
  }
}

export interface CallContext {
  /** e.g. 'openai:gpt-4o-mini' */
  provider: string;
  /** e.g. 'chat' or 'embeddings' */
  operation: string;
  apiKey: string;
  timeoutMs: number;
  maxRetries: number;
  /** The base URL called, named when it cannot be reached. */
  endpoint?: string;
}

/**
 * A reply that is no OpenAI API response (the body of an HTML page, plain text, JSON of
 * another shape), or undefined when `body` has `field` as it should. The base URL then
 * points at something else: a web server, a proxy's login page, a path without /v1.
 */
export function notAnApiReply(body: unknown, field: string, ctx: Pick<CallContext, 'provider' | 'operation' | 'endpoint'>): ProviderError | undefined {
  if (isJsonObject(body) && Array.isArray(body[field])) return undefined;
  const what =
    typeof body === 'string'
      ? /^\s*</.test(body)
        ? 'an HTML page'
        : `text (${JSON.stringify(body.trim().slice(0, 40))})`
      : `JSON without \`${field}\``;
  const url = ctx.endpoint ?? 'the base URL';
  return new ProviderError(
    `${url} answered ${ctx.operation} with ${what}, not an OpenAI-compatible API; check the base URL (an OpenAI-compatible server's usually ends in /v1)`,
    ctx.provider,
    'not_api',
  );
}
