/**
 * Whether a model endpoint is still there, judged from the calls a run makes to it.
 *
 * Each failure seen here has already been retried by the client. Three patterns mean
 * that every later call would fail too, so the run stops (resumably) instead of
 * recording error episodes that would count as unsolved:
 * - the very first calls cannot connect, or the URL answers with something that is no
 *   OpenAI-compatible API (an HTML page): a wrong URL, a server not started;
 * - no call has succeeded yet and `min(FIRST_CALLS, stopAfter)` have failed (a 5xx, a
 *   timeout, a 4xx, empty content: an endpoint, key or model that fails from the start);
 * - the endpoint answered before, then `stopAfter` calls in a row failed to connect,
 *   timed out or got a 5xx (a self-hosted server that crashed or hung mid-run). Any
 *   answer in between, even an error of the request's own (a 400, empty content),
 *   starts the count again.
 *
 * One object per endpoint and run, shared by every call to it (on a worker, by every
 * episode of the run it plays).
 */
import { ProviderError } from './errors.js';

/** The endpoint stopped answering mid-run. */
export class EndpointDownError extends ProviderError {
  constructor(message: string, provider: string, reason: ProviderError['reason'], status?: number) {
    super(message, provider, reason, status);
    this.name = 'EndpointDownError';
  }
}

/** Failed calls before any success that stop the run (at most stop_after_failures). */
export const FIRST_CALLS = 3;

export class EndpointHealth {
  private answered = false;
  private succeededOnce = false;
  private streak = 0;
  private failedFirst = 0;
  /** Set once the endpoint is judged gone: every later call fails with it at once. */
  down: ProviderError | undefined;

  /** `stopAfter`: failures in a row that stop the run (memrl.llm.stop_after_failures); 0 = never. */
  constructor(private readonly stopAfter: number) {}

  succeeded(): void {
    this.succeededOnce = true;
    this.reached();
  }

  private reached(): void {
    this.answered = true;
    this.streak = 0;
  }

  failed(err: ProviderError): void {
    // Not an API at all: every call gets the same page.
    if (err.reason === 'not_api') {
      this.down ??= err;
      return;
    }
    if (!this.succeededOnce && err.reason !== 'aborted') this.failedFromStart(err);
    const unreachable = err.reason === 'connection' || err.reason === 'timeout' || (err.reason === 'api' && err.status !== undefined && err.status >= 500);
    if (!unreachable) {
      // The server answered: it is there.
      if (err.reason === 'api' || err.reason === 'empty' || err.reason === 'bad_response') this.reached();
      return;
    }
    if (!this.answered) {
      // Never reached at all: a wrong URL or a server not started.
      if (err.reason === 'connection') this.down ??= err;
      return;
    }
    this.streak++;
    if (this.stopAfter > 0 && this.streak >= this.stopAfter) {
      this.down ??= new EndpointDownError(
        `${err.provider} stopped answering: ${this.streak} calls in a row failed after their retries (memrl.llm.stop_after_failures ${this.stopAfter}); the last: ${err.message}`,
        err.provider,
        err.reason,
        err.status,
      );
    }
  }

  /** Every call so far failed: after a few, the rest would too, and a whole epoch of them only says so slowly. */
  private failedFromStart(err: ProviderError): void {
    this.failedFirst++;
    const limit = Math.min(FIRST_CALLS, this.stopAfter);
    if (limit > 0 && this.failedFirst >= limit) {
      this.down ??= new EndpointDownError(
        `${err.provider} failed every call so far: its first ${this.failedFirst} calls failed after their retries, none succeeded (memrl.llm.stop_after_failures ${this.stopAfter}); the last: ${err.message}`,
        err.provider,
        err.reason,
        err.status,
      );
    }
  }
}
