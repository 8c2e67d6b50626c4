/** A ChatModel wrapper that records every reply's usage in a ledger (by role) and in the JSON log. */
import type { Logger } from 'pino';
import { ReplayMissError } from './cache.js';
import { ProviderError } from './errors.js';
import type { UsageLedger } from './ledger.js';
import type { ChatModel, ChatRequest, ChatResponse } from './types.js';

/** HTTP statuses that no retry or later task will fix: bad key, no access, unknown model. */
const FATAL_STATUSES = new Set([401, 403, 404]);

export class MeteredChatModel implements ChatModel {
  readonly label: string;
  readonly simulated: boolean;
  /** Set when the endpoint refused in a way every later call would repeat; the runner stops on it. */
  fatal: ProviderError | undefined;
  /** A call has succeeded: later connection failures are passing trouble, not a wrong endpoint. */
  private answered = false;

  constructor(
    private readonly inner: ChatModel,
    private readonly ledger: UsageLedger,
    private readonly log?: Logger,
  ) {
    this.label = inner.label;
    this.simulated = inner.simulated;
  }

  async chat(req: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
    const t = req.tags;
    let res: ChatResponse;
    try {
      res = await this.inner.chat(req, signal);
    } catch (err) {
      if (err instanceof ProviderError && err.reason === 'api' && err.status !== undefined && FATAL_STATUSES.has(err.status)) {
        this.fatal ??= err;
      }
      // Never reached the endpoint at all (after the client's retries): every other call would fail the same way.
      if (err instanceof ProviderError && err.reason === 'connection' && !this.answered) this.fatal ??= err;
      // A replay that lacks a reply cannot produce the recorded run: stop rather than record an error row.
      if (err instanceof ReplayMissError) this.fatal ??= err;
      this.log?.warn({ event: 'chat_error', role: t.role, purpose: t.purpose, task: t.taskId, epoch: t.epoch, err: err instanceof Error ? err.message : String(err) }, 'model call failed');
      throw err;
    }
    this.answered = true;
    this.ledger.record(t, res.usage, { cached: res.cached === true, model: res.model, systemFingerprint: res.systemFingerprint });
    this.log?.info({ event: 'chat', role: t.role, purpose: t.purpose, task: t.taskId, epoch: t.epoch, phase: t.phase, usage: res.usage, ms: res.latencyMs }, 'model call');
    return res;
  }
}
