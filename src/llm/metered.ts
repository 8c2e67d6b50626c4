/** A ChatModel wrapper that records every reply's usage in a ledger (by role) and in the JSON log. */
import type { Logger } from 'pino';
import { ReplayMissError } from './cache.js';
import { EndpointHealth } from './endpoint-health.js';
import { ProviderError } from './errors.js';
import type { UsageLedger } from './ledger.js';
import type { ChatModel, ChatRequest, ChatResponse } from './types.js';

/** HTTP statuses that no retry or later task will fix: bad key, no access, unknown model. */
const FATAL_STATUSES = new Set([401, 403, 404]);

export class MeteredChatModel implements ChatModel {
  readonly label: string;
  readonly simulated: boolean;
  /** A refusal every later call would repeat (bad key, unknown model, a replay without the reply). */
  private refused: ProviderError | undefined;

  constructor(
    private readonly inner: ChatModel,
    private readonly ledger: UsageLedger,
    private readonly log?: Logger,
    /** The endpoint's health over the whole run (shared when several of these call it); by default this object's calls only, never stopping on a streak. */
    private readonly health: EndpointHealth = new EndpointHealth(0),
  ) {
    this.label = inner.label;
    this.simulated = inner.simulated;
  }

  /** Set when every later call would fail the same way (a refusal, or the endpoint gone); the runner stops on it. */
  get fatal(): ProviderError | undefined {
    return this.refused ?? this.health.down;
  }

  async chat(req: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
    const t = req.tags;
    // The run stops at the end of the batch: calls made meanwhile fail at once instead of waiting on a dead endpoint.
    const fatal = this.fatal;
    if (fatal) throw fatal;
    let res: ChatResponse;
    try {
      res = await this.inner.chat(req, signal);
    } catch (err) {
      if (err instanceof ProviderError && err.reason === 'api' && err.status !== undefined && FATAL_STATUSES.has(err.status)) {
        this.refused ??= err;
      }
      // A replay that lacks a reply cannot produce the recorded run: stop rather than record an error row.
      if (err instanceof ReplayMissError) this.refused ??= err;
      else if (err instanceof ProviderError) this.health.failed(err);
      this.log?.warn({ event: 'chat_error', role: t.role, purpose: t.purpose, task: t.taskId, epoch: t.epoch, err: err instanceof Error ? err.message : String(err) }, 'model call failed');
      throw err;
    }
    this.health.succeeded();
    this.ledger.record(t, res.usage, { cached: res.cached === true, model: res.model, systemFingerprint: res.systemFingerprint });
    this.log?.info({ event: 'chat', role: t.role, purpose: t.purpose, task: t.taskId, epoch: t.epoch, phase: t.phase, usage: res.usage, ms: res.latencyMs }, 'model call');
    return res;
  }
}
