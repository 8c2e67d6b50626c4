/**
 * Whether a model endpoint is still there, judged from the calls a run makes to it.
 *
 * Each failure seen here has already been retried by the client. Two patterns mean
 * that every later call would fail too, so the run stops (resumably) instead of
 * recording error episodes that would count as unsolved:
 * - the very first calls cannot connect: a wrong URL, a server not started;
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

export class EndpointHealth {
  private answered = false;
  private streak = 0;
  /** Set once the endpoint is judged gone: every later call fails with it at once. */
  down: ProviderError | undefined;

  /** `stopAfter`: failures in a row that stop the run (memrl.llm.stop_after_failures); 0 = never. */
  constructor(private readonly stopAfter: number) {}

  succeeded(): void {
    this.answered = true;
    this.streak = 0;
  }

  failed(err: ProviderError): void {
    const unreachable = err.reason === 'connection' || err.reason === 'timeout' || (err.reason === 'api' && err.status !== undefined && err.status >= 500);
    if (!unreachable) {
      // The server answered: it is there.
      if (err.reason === 'api' || err.reason === 'empty' || err.reason === 'bad_response') this.succeeded();
      return;
    }
    if (!this.answered) {
      // Never reached at all: a wrong URL or a server not started. (One that answers only
      // errors, or hangs, from the first call is left to memrl.max_error_rate.)
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
}
