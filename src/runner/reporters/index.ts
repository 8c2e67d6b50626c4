/**
 * The reporters every run has: its files. The app adds the terminal ones (progress
 * bar, banner and epoch lines) and the response recording; a programmatic caller may
 * drop, replace or add entries in the map.
 */
import type { Reporter, ReporterMap } from '../../core/reporter.js';
import { ArrowReporter, MetricsJsonReporter, TensorBoardReporter } from './epoch-files.js';
import { OutcomesReporter } from './outcomes.js';
import { QHistoryReporter } from './q-history.js';
import { MemoriesReporter, SummaryReporter } from './run-end-files.js';
import { TracesReporter } from './traces.js';
import { TranscriptsReporter } from './transcripts.js';

export { ProgressReporter } from './progress.js';
export { OutcomesReporter, TracesReporter, TranscriptsReporter, QHistoryReporter, MetricsJsonReporter, ArrowReporter, TensorBoardReporter, SummaryReporter, MemoriesReporter };

export function fileReporters(runDir: string): ReporterMap {
  return new Map<string, Reporter>([
    ['outcomes', new OutcomesReporter(runDir)],
    ['traces', new TracesReporter(runDir)],
    ['transcripts', new TranscriptsReporter(runDir)],
    ['metrics', new MetricsJsonReporter(runDir)],
    ['arrow', new ArrowReporter(runDir)],
    // before tensorboard: its Q histograms read this file
    ['q-history', new QHistoryReporter(runDir)],
    ['tensorboard', new TensorBoardReporter(runDir)],
    ['summary', new SummaryReporter(runDir)],
    ['memories', new MemoriesReporter(runDir)],
  ]);
}
