import cliProgress from 'cli-progress';
import type { OutcomeRow } from '../../core/outcome.js';
import type { Reporter } from '../../core/reporter.js';

/** A progress bar on a TTY (tasks, pass rate so far, ETA); quiet otherwise, where logs tell the story. */
export class ProgressReporter implements Reporter {
  private bar: cliProgress.SingleBar | undefined;
  private passed = 0;
  private done = 0;

  constructor(private readonly enabled: boolean) {}

  onPhaseStart({ label, total }: { label: string; total: number }): void {
    this.passed = 0;
    this.done = 0;
    if (!this.enabled) return;
    this.bar = new cliProgress.SingleBar(
      {
        format: `${label.padEnd(14)} |{bar}| {value}/{total} tasks | pass {rate} | ETA {eta_formatted}`,
        stream: process.stderr,
        hideCursor: true,
        clearOnComplete: false,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    this.bar.start(total, 0, { rate: '-' });
  }

  onEpisode(row: OutcomeRow): void {
    this.done += 1;
    if (row.success) this.passed += 1;
    this.bar?.increment(1, { rate: `${((100 * this.passed) / this.done).toFixed(1)}%` });
  }

  onPhaseEnd(): void {
    this.bar?.stop();
    this.bar = undefined;
  }

  close(): void {
    this.onPhaseEnd();
  }
}
