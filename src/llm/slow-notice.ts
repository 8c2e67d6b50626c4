/**
 * A hung endpoint says so early. The client retries a timed-out attempt on its own, so
 * without this a call against a server that accepts connections and never answers is
 * silent for (max_retries + 1) × timeout_ms. A call still pending when its first attempt
 * has timed out gives one line (once per model and run) naming the endpoint, the
 * settings and what to do; the run goes on (the retries may still succeed).
 */
import type { ChatModel, ChatRequest, ChatResponse } from './types.js';

export interface SlowNoticeOptions {
  /** The endpoint as shown (credentials redacted). */
  endpoint: string;
  timeoutMs: number;
  maxRetries: number;
  /** Where the line goes (the console). */
  notice: (line: string) => void;
}

export function slowCallLine(label: string, o: Omit<SlowNoticeOptions, 'notice'>): string {
  const s = Math.round(o.timeoutMs / 1000);
  const more = o.maxRetries > 0 ? `; retrying (up to ${o.maxRetries} more attempt${o.maxRetries === 1 ? '' : 's'}, memrl.llm.max_retries)` : '';
  return `memrl: ${label} at ${o.endpoint} has not answered a call within ${s} s (memrl.llm.timeout_ms ${o.timeoutMs})${more}; is the server hung or overloaded? Check it, or raise memrl.llm.timeout_ms for a slow model\n`;
}

export class SlowCallNotice implements ChatModel {
  readonly label: string;
  readonly simulated: boolean;
  private said = false;

  constructor(
    private readonly inner: ChatModel,
    private readonly opts: SlowNoticeOptions,
  ) {
    this.label = inner.label;
    this.simulated = inner.simulated;
  }

  async chat(req: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
    if (this.said) return this.inner.chat(req, signal);
    const timer = setTimeout(() => {
      if (this.said) return;
      this.said = true;
      this.opts.notice(slowCallLine(this.label, this.opts));
    }, this.opts.timeoutMs);
    // A wait on a hung server must not keep the process alive by itself.
    timer.unref();
    try {
      return await this.inner.chat(req, signal);
    } finally {
      clearTimeout(timer);
    }
  }
}
