/**
 * The reporters a run writes and prints through: the run folder's files, the log, the
 * progress bar and the console (banner, notes, epoch lines), then the caller's changes;
 * and a watch for the first episode (a new run that fails before it keeps no folder).
 */
import type { ReporterMap } from '../../core/reporter.js';
import { fileReporters, ProgressReporter } from '../../runner/reporters/index.js';
import { ConsoleReporter } from '../console-reporter.js';
import type { FallbackLines } from '../fallback-lines.js';
import type { RunLog } from '../run-log.js';
import type { ResolvedRun, RunIo, RunOptions } from './types.js';

export interface ConsoleFacts {
  runLog: RunLog;
  logFile: string;
  embedderLabel: string;
  /** Where workers play the episodes (--queue). */
  queueLabel: string | undefined;
  /** The data's release lines, filled once the benchmark has loaded. */
  dataLines: string[];
  fallbacks: FallbackLines;
}

export function runReporters({ bench, cfg, modelLabel, runDir }: ResolvedRun, io: RunIo, facts: ConsoleFacts, custom: RunOptions['reporters']): { reporters: ReporterMap; episodesBegan: () => boolean } {
  const defaults: ReporterMap = fileReporters(runDir);
  defaults.set('log', facts.runLog);
  defaults.set('progress', new ProgressReporter(io.tty));
  defaults.set(
    'console',
    new ConsoleReporter((t) => io.err(t), {
      benchmark: bench.name,
      method: cfg.method,
      model: modelLabel,
      simulated: cfg.llm.provider === 'sim',
      embedder: facts.embedderLabel,
      epochs: cfg.run.epochs,
      runDir,
      logFile: facts.logFile,
      notes: facts.queueLabel ? [...cfg.notes, `episodes are played by workers on ${facts.queueLabel}; memory and results stay here`] : cfg.notes,
      data: facts.dataLines,
      validation: cfg.run.runValidation,
      fallbacks: facts.fallbacks,
    }),
  );
  const reporters = custom ? custom(defaults) : defaults;
  let began = false;
  reporters.set('start-watch', { onPhaseStart: () => void (began = true) });
  return { reporters, episodesBegan: () => began };
}
