/**
 * A small TensorBoard event-file writer (scalars and histograms), no dependency.
 *
 * Every record goes to the file with a synchronous write as soon as it is logged, so a
 * crash loses nothing already written; flush() additionally asks the OS to put it on disk.
 */
import { closeSync, existsSync, fdatasyncSync, mkdirSync, openSync } from 'node:fs';
import { hostname as osHostname } from 'node:os';
import { join } from 'node:path';
import { encodeEvent, type HistogramValue } from './event-proto.js';
import { frameRecord } from './tfrecord.js';
import { writeAllSync } from '../../util/fs.js';

export const FILE_VERSION = 'brain.Event:2';

export interface TensorBoardWriterOptions {
  /** Clock in milliseconds since the epoch (tests inject a fixed one). */
  now?: () => number;
  hostname?: string;
}

export class TensorBoardWriter {
  /** Full path of the event file this writer appends to. */
  readonly path: string;
  private fd: number | null;
  private readonly now: () => number;

  constructor(dir: string, opts: TensorBoardWriterOptions = {}) {
    this.now = opts.now ?? Date.now;
    mkdirSync(dir, { recursive: true });
    const base = `events.out.tfevents.${Math.floor(this.now() / 1000)}.${opts.hostname ?? osHostname()}`;
    // Two writers started in the same second must not share a file (two file_version headers).
    let path = join(dir, base);
    for (let n = 1; existsSync(path); n++) path = join(dir, `${base}.${n}`);
    this.path = path;
    this.fd = openSync(path, 'wx');
    this.write(encodeEvent({ wallTime: this.now() / 1000, fileVersion: FILE_VERSION }));
  }

  /** Log one scalar; `step` is the x axis (memrl uses the epoch). wallTime in seconds. */
  scalar(tag: string, value: number, step: number, wallTime?: number): void {
    if (tag.length === 0) throw new Error('TensorBoardWriter.scalar: empty tag');
    if (!Number.isInteger(step)) throw new Error(`TensorBoardWriter.scalar: step must be an integer, got ${step}`);
    this.write(encodeEvent({ wallTime: wallTime ?? this.now() / 1000, step, scalars: [{ tag, value }] }));
  }

  /**
   * Log the distribution of `values` as a histogram of `bins` equal-width buckets over
   * [min, max] (TensorBoard's Histograms and Distributions tabs). Nothing for no values.
   */
  histogram(tag: string, values: readonly number[], step: number, bins = 30, wallTime?: number): void {
    if (values.length === 0) return;
    if (!Number.isInteger(step)) throw new Error(`TensorBoardWriter.histogram: step must be an integer, got ${step}`);
    this.write(encodeEvent({ wallTime: wallTime ?? this.now() / 1000, step, histograms: [histogramOf(tag, values, bins)] }));
  }

  flush(): void {
    if (this.fd !== null) fdatasyncSync(this.fd);
  }

  close(): void {
    if (this.fd === null) return;
    this.flush();
    closeSync(this.fd);
    this.fd = null;
  }

  private write(event: Uint8Array): void {
    if (this.fd === null) throw new Error(`TensorBoardWriter: ${this.path} is closed`);
    writeAllSync(this.fd, frameRecord(event));
  }
}

export function histogramOf(tag: string, values: readonly number[], bins: number): HistogramValue {
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  let sumSquares = 0;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
    sumSquares += v * v;
  }
  // All equal: one bucket ending at that value holds them all.
  const n = max > min ? bins : 1;
  const width = (max - min) / n;
  const bucketLimits = Array.from({ length: n }, (_, i) => (i === n - 1 ? max : min + width * (i + 1)));
  const buckets = new Array<number>(n).fill(0);
  for (const v of values) {
    const i = width > 0 ? Math.min(n - 1, Math.max(0, Math.ceil((v - min) / width) - 1)) : 0;
    buckets[i]!++;
  }
  return { tag, min, max, num: values.length, sum, sumSquares, bucketLimits, buckets };
}
