/** The terminal lines of a run: the banner once tasks are loaded, one line per finished epoch. */
import type { EpochEndEvent, Reporter, RunStartEvent } from '../core/reporter.js';
import type { FallbackLines } from './fallback-lines.js';

export interface Banner {
  benchmark: string;
  method: string;
  model: string;
  simulated: boolean;
  embedder: string;
  epochs: number;
  runDir: string;
  logFile: string;
  notes: readonly string[];
  /** Which copy of each data file the run read (filled once the tasks are loaded). */
  data?: readonly string[];
  /** Validation runs (else the banner does not count validation tasks). */
  validation: boolean;
  /** Methods' fallbacks, said once per epoch. */
  fallbacks?: FallbackLines;
}

function fmt(x: number | null | undefined): string {
  return typeof x === 'number' ? x.toFixed(3) : '-';
}

export class ConsoleReporter implements Reporter {
  constructor(
    private readonly write: (text: string) => void,
    private readonly banner: Banner,
  ) {}

  onTasksLoaded(info: { train: number; valid: number; split: string }): void {
    const b = this.banner;
    this.write(
      `memrl run ${b.benchmark}: method ${b.method}, model ${b.model}${b.simulated ? ' (offline simulator: pipeline check, not a result)' : ''}, ` +
        `embedder ${b.embedder}, ${b.epochs} epoch(s), ${info.train} train ${b.validation ? `/ ${info.valid} valid tasks` : 'tasks (no validation)'} (${info.split})\n` +
        `  run folder: ${b.runDir}\n  log: ${b.logFile}\n`,
    );
    for (const line of b.data ?? []) this.write(`  data: ${line}\n`);
    for (const note of b.notes) this.write(`  note: ${note}\n`);
  }

  onRunStart(ev: RunStartEvent): void {
    for (const n of ev.notices) this.write(`  note: ${n}\n`);
  }

  onEpochEnd(ev: EpochEndEvent): void {
    const tr = ev.metrics.train.epochs.at(-1);
    const va = ev.metrics.valid?.epochs.at(-1);
    // Episodes that could not be played (an endpoint or evaluator failing) lower acc silently otherwise.
    const errors = [tr?.errors ? `${tr.errors} train` : '', va?.errors ? `${va.errors} valid` : ''].filter(Boolean).join(', ');
    this.write(
      `epoch ${ev.epoch}/${ev.epochs}: acc ${fmt(tr?.acc)}  CSR ${fmt(tr?.csr)}${typeof va?.acc === 'number' ? `  valid acc ${fmt(va.acc)}` : ''}  memories ${ev.memories}` +
        `${errors ? `  errors ${errors} (counted as unsolved; the log says why)` : ''}\n`,
    );
    this.sayFallbacks(ev.epoch);
  }

  onRunEnd(): void {
    // An interrupted or failed epoch's fallbacks, not said at an epoch end.
    this.sayFallbacks(Number.MAX_SAFE_INTEGER);
  }

  private sayFallbacks(epoch: number): void {
    const line = this.banner.fallbacks?.take(epoch, this.banner.logFile);
    if (line) this.write(`${line}\n`);
  }
}

export { fmt as formatMetric };
