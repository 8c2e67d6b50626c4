/**
 * The run's JSON log (pino) lives in its run folder, as log.jsonl: next to the results
 * it explains, not in a ./logs of wherever the command was started. The folder only
 * exists once the run starts (a bad start leaves nothing behind), so lines logged
 * before that wait in memory; with --log-dir the log goes there from the first line.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter, RunStartEvent } from '../core/reporter.js';
import { redactSecrets } from '../util/redact.js';

export const RUN_LOG_FILE = 'log.jsonl';

export class RunLog implements Reporter {
  private fd: number | null = null;
  private pending: string[] = [];
  /** Where the lines go (known at once with --log-dir, else when the run folder exists). */
  path: string | null;

  /** `onLine`: sees every line as written (redacted), e.g. to count events for the console. */
  constructor(
    logDir: string | null,
    fileName: string,
    private readonly onLine?: (line: string) => void,
  ) {
    this.path = logDir ? join(logDir, fileName) : null;
    if (this.path) this.open(this.path);
  }

  /** pino's destination: synchronous, so a crash loses no line already logged. Secrets never reach the file. */
  write(raw: string): void {
    const line = redactSecrets(raw);
    this.onLine?.(line);
    if (this.fd === null) this.pending.push(line);
    else writeSync(this.fd, line);
  }

  onRunStart(ev: RunStartEvent): void {
    if (this.fd === null) this.open(join(ev.info.runDir, RUN_LOG_FILE));
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private open(path: string): void {
    mkdirSync(join(path, '..'), { recursive: true });
    this.fd = openSync(path, 'a');
    this.path = path;
    for (const line of this.pending.splice(0)) writeSync(this.fd, line);
  }
}
