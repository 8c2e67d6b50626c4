/**
 * A method that could not do what it was asked and did something plainer instead
 * (Self-RAG's reply unparseable → plain top-k; Mem0's extraction unparseable → nothing
 * stored) says so: each time one line in log.jsonl (event `method_fallback`, with the
 * task and the reason), on the console once per epoch with the counts (the run's
 * console reporter reads these events), and in summary.json as `memory.fallbacks` (the
 * counts by kind over the run, from the method's stats).
 */
import type { Logger } from 'pino';

export const FALLBACK_EVENT = 'method_fallback';

/** Where a fallback happened. */
export interface FallbackAt {
  epoch: number;
  phase: string;
  task: string;
}

export class FallbackTally {
  private readonly counts: Record<string, number>;

  /** `restored`: the counts a checkpoint kept (a resume goes on counting from them). */
  constructor(
    private readonly log: Logger,
    private readonly method: string,
    restored?: Readonly<Record<string, number>>,
  ) {
    this.counts = { ...(restored ?? {}) };
  }

  /**
   * One fallback of `kind`; `what` says it in words for the console ("Self-RAG reply
   * unparseable: the candidates injected"). `quiet`: counted, not logged (a restore replaying
   * what was logged before).
   */
  note(kind: string, what: string, at: FallbackAt, detail: Readonly<Record<string, string | undefined>> = {}, quiet = false): void {
    this.counts[kind] = (this.counts[kind] ?? 0) + 1;
    if (!quiet) this.log.warn({ event: FALLBACK_EVENT, method: this.method, kind, what, epoch: at.epoch, phase: at.phase, task: at.task, ...detail }, what);
  }

  /** Counts by kind (empty when nothing fell back). */
  snapshot(): Record<string, number> {
    return { ...this.counts };
  }
}
