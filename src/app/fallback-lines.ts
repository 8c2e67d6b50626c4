/**
 * The console's side of methods' fallbacks (methods/fallbacks.ts): the run log's
 * `method_fallback` lines, counted by epoch and by what happened, and said once per
 * epoch ("epoch 2: Self-RAG decision reply unparseable: the candidates injected ×7"),
 * not once per call.
 */
import { FALLBACK_EVENT } from '../methods/fallbacks.js';

export class FallbackLines {
  /** epoch → what → count, not yet said. */
  private readonly pending = new Map<number, Map<string, number>>();

  /** A line of the run log (JSON); only fallback events count. */
  see(line: string): void {
    if (!line.includes(FALLBACK_EVENT)) return;
    let entry: { event?: unknown; epoch?: unknown; what?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      return;
    }
    if (entry.event !== FALLBACK_EVENT || typeof entry.what !== 'string') return;
    const epoch = typeof entry.epoch === 'number' ? entry.epoch : 0;
    const byWhat = this.pending.get(epoch) ?? new Map<string, number>();
    byWhat.set(entry.what, (byWhat.get(entry.what) ?? 0) + 1);
    this.pending.set(epoch, byWhat);
  }

  /** The line for everything up to `epoch` not said yet (undefined when nothing fell back), with where to read more. */
  take(epoch: number, logFile: string): string | undefined {
    const counts = new Map<string, number>();
    for (const [e, byWhat] of [...this.pending]) {
      if (e > epoch) continue;
      for (const [what, n] of byWhat) counts.set(what, (counts.get(what) ?? 0) + n);
      this.pending.delete(e);
    }
    if (counts.size === 0) return undefined;
    const parts = [...counts].map(([what, n]) => `${what} ×${n}`);
    return `  fallbacks: ${parts.join('; ')} (each task in ${logFile}, event ${FALLBACK_EVENT})`;
  }
}
