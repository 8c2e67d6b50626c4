/**
 * Provider failures as one error type with a message that is safe to log:
 * it names the provider and what went wrong, and never carries the API key.
 * The OpenAI SDK's errors become one in provider-errors.ts, so that code which only
 * recognises a ProviderError (the memory writer, the runner) never loads the SDK.
 */
import { MemrlError } from '../util/errors.js';

export type ProviderErrorReason = 'api' | 'timeout' | 'connection' | 'aborted' | 'empty' | 'bad_response';

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
