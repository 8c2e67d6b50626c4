/**
 * Builds the `openai` package client shared by the chat model and the embedder.
 * That client owns retries (with Retry-After) and timeouts; we configure it
 * explicitly and add no retry layer of our own, so `maxRetries` means exactly
 * `maxRetries + 1` attempts.
 */
import OpenAI, { AzureOpenAI } from 'openai';
import { httpFetch } from './http-fetch.js';
import { onAbort } from '../util/abort.js';

/** The logging shape the openai package accepts (pino loggers fit it). */
export interface ClientLogger {
  error: (message: string, ...rest: unknown[]) => void;
  warn: (message: string, ...rest: unknown[]) => void;
  info: (message: string, ...rest: unknown[]) => void;
  debug: (message: string, ...rest: unknown[]) => void;
}

export interface ClientOptions {
  apiKey: string;
  baseURL?: string;
  /** Set for Azure OpenAI: requests carry ?api-version=… and the api-key header. */
  apiVersion?: string;
  timeoutMs: number;
  maxRetries: number;
  /** Client diagnostics (retries, timeouts) go here; silent when absent. Headers are redacted by the package. */
  logger?: ClientLogger;
}

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_RETRIES = 2;

export function createOpenAIClient(opts: ClientOptions): OpenAI {
  const common = {
    apiKey: opts.apiKey,
    timeout: opts.timeoutMs,
    maxRetries: opts.maxRetries,
    logger: opts.logger,
    logLevel: opts.logger ? ('info' as const) : ('off' as const),
    fetch: httpFetch,
  };
  if (opts.apiVersion) {
    const base = opts.baseURL;
    // Like the reference's azure_endpoint, accept the bare resource URL; a URL that
    // already names the /openai path (or a deployment) is used as given.
    if (base && !/\/openai(\/|$)/.test(new URL(base).pathname)) {
      return new AzureOpenAI({ ...common, endpoint: base, apiVersion: opts.apiVersion });
    }
    return new AzureOpenAI({ ...common, baseURL: base, apiVersion: opts.apiVersion });
  }
  return new OpenAI({ ...common, baseURL: opts.baseURL });
}

/**
 * A signal for one request that follows `signal`. The openai package leaves an abort
 * listener on every signal it is given, so handing it the run's long-lived signal
 * would pile up one listener per call; this one is dropped with the request.
 */
export function requestSignal(signal: AbortSignal | undefined): { options: { signal: AbortSignal } | undefined; release(): void } {
  if (!signal) return { options: undefined, release: () => undefined };
  const ac = new AbortController();
  if (signal.aborted) ac.abort(signal.reason);
  const release = onAbort(signal, () => ac.abort(signal.reason));
  return { options: { signal: ac.signal }, release };
}
