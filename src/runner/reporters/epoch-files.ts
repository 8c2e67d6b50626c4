/**
 * The files derived from the outcome rows, rewritten whole at every epoch end (so a
 * resumed run rewrites them consistently): metrics.json, outcomes.arrow, TensorBoard.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { EpochEndEvent, Reporter } from '../../core/reporter.js';
import { writeOutcomesArrow } from '../../metrics/outcome-arrow.js';
import { METRICS_FILE, Q_HISTORY_FILE, readQHistory, type MetricsJson } from '../../core/run-files/index.js';
import { Q_HISTOGRAM_TAGS, TensorBoardWriter, writeEpochScalars } from '../../metrics/tensorboard/index.js';
import { writeJsonAtomic } from '../../util/fs.js';

export class MetricsJsonReporter implements Reporter {
  constructor(private readonly dir: string) {}

  onEpochEnd(ev: EpochEndEvent): void {
    const metrics: MetricsJson = ev.metrics;
    writeJsonAtomic(join(this.dir, METRICS_FILE), metrics);
  }
}

export class ArrowReporter implements Reporter {
  constructor(private readonly dir: string) {}

  onEpochEnd(ev: EpochEndEvent): void {
    writeOutcomesArrow(join(this.dir, 'outcomes.arrow'), ev.rows);
  }
}

/**
 * TensorBoard scalars, the reference's tag names plus memrl's own, and histograms of the
 * memory's Q per epoch (from q-history.jsonl, written just before). Derived data:
 * rewriting the whole file from the metrics each epoch keeps it consistent after a
 * resume (no duplicate or missing steps).
 */
export class TensorBoardReporter implements Reporter {
  constructor(private readonly dir: string) {}

  onEpochEnd(ev: EpochEndEvent): void {
    const dir = join(this.dir, 'tb');
    if (existsSync(dir)) for (const f of readdirSync(dir)) if (f.startsWith('events.out.tfevents')) rmSync(join(dir, f));
    const tb = new TensorBoardWriter(dir);
    const family = ev.info.tagFamily;
    const { train, valid } = ev.metrics;
    for (const e of train.epochs) writeEpochScalars(tb, family, train, { epoch: e.epoch });
    if (valid) {
      const set = ev.info.validSetLabel;
      for (const e of valid.epochs) writeEpochScalars(tb, family, valid, { epoch: e.epoch, ...(set ? { evalSet: set } : {}) });
    }
    for (const snap of readQHistory(join(this.dir, Q_HISTORY_FILE))) {
      tb.histogram(Q_HISTOGRAM_TAGS.all, snap.q, snap.epoch);
      tb.histogram(Q_HISTOGRAM_TAGS.success, snap.q.filter((_, i) => snap.success[i] === true), snap.epoch);
      tb.histogram(Q_HISTOGRAM_TAGS.failure, snap.q.filter((_, i) => snap.success[i] === false), snap.epoch);
    }
    tb.close();
  }
}
