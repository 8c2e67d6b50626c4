/**
 * When a run stops before its end: Ctrl-C or a budget (the signal), or an endpoint that
 * will refuse every later call the same way (bad key, unknown model, the endpoint gone,
 * a replay without the reply), here or on a worker. Then it stops resumable instead of
 * recording errors.
 */
import { ReplayMissError } from '../llm/cache.js';
import { EndpointDownError } from '../llm/endpoint-health.js';
import type { MeteredChatModel } from '../llm/metered.js';
import { MemrlError, UserError } from '../util/errors.js';

/** A fatal provider refusal (bad key, unknown model): every later call would fail the same way. */
export class FatalModelError extends MemrlError {
  constructor(message: string) {
    super('model', 'provider_fatal', message);
    this.name = 'FatalModelError';
  }
}

export interface Fatal {
  /** What the run stops with. */
  error: Error;
  /**
   * The batch's journaled episodes may hold the failures (a memory the writer could not
   * write): the resume plays the whole batch again, its answered calls from the recording.
   */
  replayBatch: boolean;
}

export class RunStops {
  constructor(
    private readonly signal: AbortSignal | undefined,
    /** The run's own metered models (agent, judge). */
    private readonly models: readonly (MeteredChatModel | undefined)[],
    /** A refusal a worker reported. */
    private readonly remote: () => string | undefined,
    private readonly runDir: string,
  ) {}

  aborted(): boolean {
    return this.signal?.aborted ?? false;
  }

  /** Stopping: what finishes now is not journaled, and runs again on resume. */
  stopping(): boolean {
    return this.aborted() || Boolean(this.local() ?? this.remote());
  }

  /** Why every later call would fail, if that is so. */
  fatal(): Fatal | undefined {
    const local = this.local();
    const remote = this.remote();
    if (!local && !remote) return undefined;
    const replayBatch = local instanceof EndpointDownError || Boolean(remote);
    const resume = `rerun with --resume ${this.runDir}`;
    if (!local) return { replayBatch, error: new FatalModelError(`${remote}; fix the key, endpoint or model name there and ${resume}`) };
    if (local instanceof ReplayMissError) return { replayBatch, error: new UserError(local.message, 'replay_miss') };
    if (local instanceof EndpointDownError) return { replayBatch, error: new FatalModelError(`${local.message}; once it answers again, ${resume}`) };
    return { replayBatch, error: new FatalModelError(`${local.message}; fix the key, endpoint or model name and ${resume}`) };
  }

  private local(): Error | undefined {
    for (const m of this.models) if (m?.fatal) return m.fatal;
    return undefined;
  }
}
