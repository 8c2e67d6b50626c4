/**
 * Provider failures as one error type with a message that is safe to log:
 * it names the provider and what went wrong, and never carries the API key.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { MemrlError } from '../util/errors.js';
import { netCause } from '../util/fs-errors.js';
import { redactSecrets } from './redact.js';

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
 * Wraps whatever the client threw. The original error is not attached as `cause`:
 * its objects are not ours to audit for secrets, and the message keeps what matters.
 */
export function toProviderError(err: unknown, ctx: CallContext): ProviderError {
  if (err instanceof ProviderError) return err;
  const attempts = ctx.maxRetries + 1;
  const where = `${ctx.provider} ${ctx.operation}${ctx.endpoint ? ` at ${ctx.endpoint}` : ''}`;
  const clean = (s: string) => redactSecrets(s, [ctx.apiKey]);
  if (err instanceof APIUserAbortError) {
    return new ProviderError(`${where} was aborted`, ctx.provider, 'aborted');
  }
  if (err instanceof APIConnectionTimeoutError) {
    return new ProviderError(
      `${where} timed out after ${ctx.timeoutMs} ms per attempt (${attempts} attempt${attempts === 1 ? '' : 's'}): the server did not answer in time (raise memrl.llm.timeout_ms for a slow model)`,
      ctx.provider,
      'timeout',
    );
  }
  if (err instanceof APIConnectionError) {
    const cause = err.cause instanceof Error ? `: ${netCause(err.cause)}` : '';
    return new ProviderError(
      clean(`${ctx.provider} ${ctx.operation} could not reach ${ctx.endpoint ?? 'the server'} after ${attempts} attempt${attempts === 1 ? '' : 's'}${cause}`),
      ctx.provider,
      'connection',
    );
  }
  if (err instanceof APIError) {
    const status = typeof err.status === 'number' ? err.status : undefined;
    const hint =
      status === 401 || status === 403
        ? ' (check the API key: OPENAI_API_KEY or api_key in the config)'
        : status === 404
          ? ' (check base_url and the model name)'
          : status !== undefined && status >= 500
            ? ' (the server failed: check it, or try again later)'
            : '';
    return new ProviderError(clean(`${where} failed: ${err.message}${hint}`), ctx.provider, 'api', status);
  }
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof Error && err.name === 'AbortError') {
    return new ProviderError(`${where} was aborted`, ctx.provider, 'aborted');
  }
  return new ProviderError(clean(`${where} failed: ${message}`), ctx.provider, 'bad_response');
}

/**
 * A reply that is no OpenAI API response (the body of an HTML page, plain text, JSON of
 * another shape), or undefined when `body` has `field` as it should. The base URL then
 * points at something else: a web server, a proxy's login page, a path without /v1.
 */
export function notAnApiReply(body: unknown, field: string, ctx: Pick<CallContext, 'provider' | 'operation' | 'endpoint'>): ProviderError | undefined {
  if (body !== null && typeof body === 'object' && Array.isArray((body as Record<string, unknown>)[field])) return undefined;
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
