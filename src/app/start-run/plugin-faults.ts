/**
 * A plug-in's faults during a run, here or on a worker: its crashes keep their stacks
 * in the run's log (and on the console with --verbose); the first contract violation
 * stops the run (exit 2), not just the episode it happened in.
 */
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { Benchmark } from '../../core/benchmark.js';
import type { EpisodeResult } from '../../runner/remote-episodes.js';
import type { MemrlError } from '../../util/errors.js';
import { ContractViolation, observePlugin } from '../plugin-guard/index.js';

export interface PluginFaultsOptions {
  log: Logger;
  /** The plug-in module as the user named it (none for a built-in benchmark). */
  origin: string | undefined;
  cwd: string;
  verbose: boolean;
  err(text: string): void;
  /** Stops the run. */
  stop(): void;
}

export class PluginFaults {
  /** The first violation; the run ends by it. */
  violated: MemrlError | undefined;

  constructor(private readonly o: PluginFaultsOptions) {}

  /** Watch what the benchmark instance returns in this process. */
  observe(created: Benchmark): void {
    observePlugin(created, {
      log: this.o.log,
      violation: (err) => this.violation(err),
      ...(this.o.verbose ? { crashed: (err: unknown, where: string) => this.o.err(`plug-in ${where} threw: ${err instanceof Error ? err.stack : String(err)}\n`) } : {}),
    });
  }

  /** What a worker reported of an episode it played. */
  fromWorker(res: EpisodeResult): void {
    const { log, origin, cwd, verbose, err } = this.o;
    for (const c of res.crashes ?? []) {
      log.error({ event: 'plugin_crashed', plugin: origin, where: c.where, stack: c.stack, worker: res.worker }, 'plug-in threw');
      if (verbose) err(`plug-in ${c.where} threw on ${res.worker}: ${c.stack}\n`);
    }
    // The worker names the module by the absolute path it loaded; here it is named as given.
    if (res.violation) this.violation(new ContractViolation(origin ? res.violation.replace(`plugin ${resolve(cwd, origin)}: `, `plugin ${origin}: `) : res.violation));
  }

  private violation(err: MemrlError): void {
    if (this.violated) return;
    this.violated = err;
    this.o.stop();
  }
}
