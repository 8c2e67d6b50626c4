/** A download's progress bar on a terminal (bytes, total, rate); elsewhere one line per file when it is done. */
import cliProgress from 'cli-progress';

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

export interface Progress {
  update(done: number, total: number | null): void;
  stop(): void;
}

/** A bar for one file; `tty` false gives a silent one (the caller prints the summary line). */
export function progressBar(label: string, tty: boolean): Progress {
  if (!tty) return { update: () => undefined, stop: () => undefined };
  // The rate counts this session's bytes only: a resumed download did not fetch its first part now.
  let firstAt = 0;
  let first = 0;
  let shown = false;
  const bar = new cliProgress.SingleBar(
    {
      format: `${label} |{bar}| {got} / {size} | {speed}`,
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  return {
    update(done, total) {
      if (!shown) {
        firstAt = Date.now();
        first = done;
      }
      const secs = Math.max((Date.now() - firstAt) / 1000, 0.001);
      const payload = { got: formatBytes(done), size: total === null ? '?' : formatBytes(total), speed: `${formatBytes(Math.round((done - first) / secs))}/s` };
      if (!shown) {
        bar.start(total ?? 0, done, payload);
        shown = true;
      } else {
        if (total !== null) bar.setTotal(total);
        bar.update(done, payload);
      }
    },
    stop() {
      if (shown) bar.stop();
    },
  };
}
