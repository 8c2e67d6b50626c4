/**
 * The OpenAI SDK's errors as ProviderErrors: one place that knows the SDK's error
 * classes, loaded only with the clients that call the SDK (openai.ts, embed/openai.ts).
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { ProviderError, type CallContext } from './errors.js';
import { netCause } from '../util/fs-errors.js';
import { redactSecrets } from './redact.js';

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
