/**
 * The offline embedder: hashed character n-grams ("feature hashing"). Texts that
 * share many substrings get a high cosine; it needs no model and no network, and
 * the same text always gets the same vector on every machine.
 */
import { hash32 } from '../util/rng.js';
import type { Embedder } from './types.js';

export interface LocalNgramOptions {
  /** Vector length. */
  dim?: number;
  /** Character n-gram lengths. */
  n?: number[];
}

export class LocalNgramEmbedder implements Embedder {
  readonly label: string;
  readonly dim: number;
  private readonly ns: number[];

  constructor(opts: LocalNgramOptions = {}) {
    this.dim = opts.dim ?? 512;
    this.ns = opts.n ?? [3, 4, 5];
    if (!Number.isInteger(this.dim) || this.dim < 1) throw new Error(`local embedder: dim must be a positive integer, got ${this.dim}`);
    if (this.ns.length === 0 || this.ns.some((n) => !Number.isInteger(n) || n < 1)) {
      throw new Error(`local embedder: n must list positive integers, got [${this.ns.join(', ')}]`);
    }
    this.label = `local-ngram-${this.dim}`;
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    return texts.map((t) => this.embedOne(t));
  }

  /** Synchronous form, for callers outside a promise chain. */
  embedOne(text: string): Float32Array {
    const v = new Float64Array(this.dim);
    // Pad with spaces so word starts and ends become n-grams of their own.
    const s = ` ${text.toLowerCase().replace(/\s+/g, ' ').trim()} `;
    // N-grams are of code points (never splitting a surrogate pair), hashed as the
    // UTF-16 text they span. Start offsets of the code points, plus the end:
    const starts: number[] = [];
    for (let i = 0; i < s.length; i++) {
      starts.push(i);
      const c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) i++;
      }
    }
    starts.push(s.length);
    const points = starts.length - 1;
    for (const n of this.ns) {
      for (let i = 0; i + n <= points; i++) {
        // Read in place, no substring per n-gram: this runs for every task key and every
        // new memory, on the run's one thread.
        const h = hash32(s, starts[i]!, starts[i + n]!);
        // Low bits pick the bucket, the top bit the sign: collisions then cancel on average.
        v[h % this.dim]! += h >>> 31 ? -1 : 1;
      }
    }
    let norm = 0;
    for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
    norm = Math.sqrt(norm);
    const out = new Float32Array(this.dim);
    if (norm > 0) for (let i = 0; i < v.length; i++) out[i] = v[i]! / norm;
    return out;
  }
}
