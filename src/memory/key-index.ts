import { DotKernel, kernelErrorBound } from './dot-kernel.js';
import { NORM_FLOOR, norm } from './vectors.js';

/** Below this many floats a scan is quick anyway: the SIMD shortlist is not worth its set-up. */
const SIMD_MIN_FLOATS = 1 << 16;

/**
 * The intent index: insertion-ordered keys, each with one embedding and a bucket
 * of memory ids. Embeddings live in one contiguous row-major Float32Array (grown
 * by doubling) with precomputed floored norms, so Phase A is a single linear scan.
 * Where WebAssembly SIMD is available a DotKernel keeps a bfloat16 copy of the rows
 * and the scan shortlists with it first (see search).
 */
export class KeyIndex {
  private dim: number;
  private capacity = 0;
  private count = 0;
  private matrix = new Float32Array(0);
  private norms = new Float64Array(0);
  private readonly texts: string[] = [];
  private readonly buckets: string[][] = [];
  private readonly byText = new Map<string, number>();
  /** Undefined until the dimension is known; null when the SIMD kernel is unavailable or the index outgrew it. */
  private kernel: DotKernel | null | undefined;

  /**
   * `dim` 0 means "set by the first key". `capacity` pre-allocates rows (avoids copies when
   * the size is known). `simd: false` keeps the scalar scan only (tests compare the two).
   */
  constructor(opts: { dim?: number; capacity?: number; simd?: boolean } = {}) {
    this.dim = opts.dim ?? 0;
    if (opts.simd === false) this.kernel = null;
    if (opts.capacity && this.dim > 0) this.reserve(opts.capacity);
  }

  get size(): number {
    return this.count;
  }

  /** Embedding dimension (0 until the first key is added). */
  get dimension(): number {
    return this.dim;
  }

  indexOf(key: string): number {
    return this.byText.get(key) ?? -1;
  }

  keyAt(i: number): string {
    return this.texts[i] as string;
  }

  bucketAt(i: number): readonly string[] {
    return this.buckets[i] as string[];
  }

  /** A copy of key i's embedding. */
  embeddingAt(i: number): Float32Array {
    return this.matrix.slice(i * this.dim, (i + 1) * this.dim);
  }

  /** The used rows as one view (no copy): key i occupies [i*dim, (i+1)*dim). */
  rows(): Float32Array {
    return this.matrix.subarray(0, this.count * this.dim);
  }

  /** Make room for `rows` keys in total. Needs the dimension to be known. */
  reserve(rows: number): void {
    if (rows <= this.capacity) return;
    if (this.dim <= 0) throw new Error('KeyIndex.reserve: embedding dimension is not known yet');
    if (this.kernel === undefined) this.kernel = DotKernel.create(this.dim);
    // The kernel's bfloat16 copy grows alongside; past wasm32's size the index keeps the scalar scan.
    if (this.kernel && !this.kernel.reserve(rows)) this.kernel = null;
    const matrix = new Float32Array(rows * this.dim);
    matrix.set(this.matrix.subarray(0, this.count * this.dim));
    const norms = new Float64Array(rows);
    norms.set(this.norms.subarray(0, this.count));
    this.matrix = matrix;
    this.norms = norms;
    this.capacity = rows;
  }

  /** Add a new key (must not exist) with its first memory ids. Returns its index. */
  addKey(key: string, embedding: Float32Array, ids: string[] = []): number {
    if (this.byText.has(key)) throw new Error(`KeyIndex.addKey: key already present: ${preview(key)}`);
    if (embedding.length === 0) throw new Error('KeyIndex.addKey: empty embedding');
    if (this.dim === 0) this.dim = embedding.length;
    if (embedding.length !== this.dim) {
      throw new Error(`KeyIndex.addKey: embedding has ${embedding.length} dims, index has ${this.dim}`);
    }
    if (this.count === this.capacity) this.reserve(Math.max(16, this.capacity * 2));
    const i = this.count;
    this.matrix.set(embedding, i * this.dim);
    this.kernel?.setRow(i, this.matrix, i * this.dim);
    // Norm from the stored float32 values, so a restored index computes identical sims.
    this.norms[i] = Math.max(norm(this.matrix, i * this.dim, this.dim), NORM_FLOOR);
    this.texts.push(key);
    this.buckets.push(ids.slice());
    this.byText.set(key, i);
    this.count++;
    return i;
  }

  /** Append a memory id to key i's bucket (bucket order = insertion order). */
  append(i: number, id: string): void {
    const bucket = this.buckets[i];
    if (!bucket) throw new Error(`KeyIndex.append: no key at index ${i}`);
    bucket.push(id);
  }

  /** Replace key i's bucket by `ids`; returns the ids it held. */
  replaceBucket(i: number, ids: readonly string[]): string[] {
    const old = this.buckets[i];
    if (!old) throw new Error(`KeyIndex.replaceBucket: no key at index ${i}`);
    this.buckets[i] = ids.slice();
    return old;
  }

  /**
   * Phase A: cosine of `query` against every key, keep `sim >= threshold`
   * (inclusive), return the best `k` in descending sim order with ties kept in
   * index order — the same result as a stable full sort, via a bounded insertion
   * list instead of sorting every key.
   */
  search(query: Float32Array, threshold: number, k: number): { idx: number[]; sims: number[] } {
    const n = this.count;
    const limit = Math.min(k, n);
    if (limit <= 0) return { idx: [], sims: [] };
    const dim = this.dim;
    if (query.length !== dim) throw new Error(`query embedding has ${query.length} dims, index has ${dim}`);
    const qn = Math.max(norm(query), NORM_FLOOR);
    const shortlist = this.kernel && n * dim >= SIMD_MIN_FLOATS ? this.shortlist(query, qn, threshold, limit) : null;
    return this.exactTop(query, qn, threshold, limit, shortlist);
  }

  /**
   * The keys that can be in the exact top `limit`: every key whose kernel cosine is
   * within the error bound ε of qualifying. A key with exact cosine ≥ threshold has a
   * kernel cosine ≥ threshold − ε; and with T the limit-th best kernel cosine among
   * those, at least `limit` keys have exact cosines ≥ T − ε, so a key of the exact top
   * has a kernel cosine ≥ T − 2ε. Everything else is left out without changing the result.
   */
  private shortlist(query: Float32Array, qn: number, threshold: number, limit: number): number[] {
    const n = this.count;
    const dots = (this.kernel as DotKernel).dots(query, n);
    const norms = this.norms;
    const eps = kernelErrorBound(this.dim);
    const floor = threshold - eps;
    const approx = (i: number): number => (dots[i] as number) / (qn * (norms[i] as number));
    // The limit-th best kernel cosine among the keys that may pass the threshold (a small sorted list, ascending).
    const best = new Float64Array(limit).fill(-Infinity);
    for (let i = 0; i < n; i++) {
      const s = approx(i);
      if (!(s >= floor) || !(s > (best[0] as number))) continue;
      let j = 0;
      while (j + 1 < limit && (best[j + 1] as number) < s) {
        best[j] = best[j + 1] as number;
        j++;
      }
      best[j] = s;
    }
    const cut = Math.max(floor, (best[0] as number) - 2 * eps);
    // A second pass over the scores still in the kernel's memory: no per-query array of n.
    const picked: number[] = [];
    for (let i = 0; i < n; i++) if (approx(i) >= cut) picked.push(i);
    return picked;
  }

  /** The exact scan, over every key or over a shortlist of them (in index order). */
  private exactTop(query: Float32Array, qn: number, threshold: number, limit: number, only: readonly number[] | null): { idx: number[]; sims: number[] } {
    const dim = this.dim;
    const m = this.matrix;
    const norms = this.norms;
    const topIdx = new Int32Array(limit);
    const topSim = new Float64Array(limit);
    let filled = 0;
    const total = only ? only.length : this.count;
    for (let t = 0; t < total; t++) {
      const i = only ? (only[t] as number) : t;
      const sim = dotRow(m, i * dim, query, dim) / (qn * (norms[i] as number));
      // `!(a >= b)` also drops NaN.
      if (!(sim >= threshold)) continue;
      if (filled === limit && !(sim > (topSim[limit - 1] as number))) continue;
      // Shift strictly smaller entries down: an equal sim stays ahead (it has a lower index).
      let j = filled < limit ? filled : limit - 1;
      while (j > 0 && (topSim[j - 1] as number) < sim) {
        topSim[j] = topSim[j - 1] as number;
        topIdx[j] = topIdx[j - 1] as number;
        j--;
      }
      topSim[j] = sim;
      topIdx[j] = i;
      if (filled < limit) filled++;
    }
    return { idx: Array.from(topIdx.subarray(0, filled)), sims: Array.from(topSim.subarray(0, filled)) };
  }
}

/** Dot product of matrix row at `off` with `q`; four accumulators keep the FPU pipeline busy. */
export function dotRow(m: Float32Array, off: number, q: Float32Array, dim: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  const end4 = dim - (dim % 4);
  for (; j < end4; j += 4) {
    s0 += (m[off + j] as number) * (q[j] as number);
    s1 += (m[off + j + 1] as number) * (q[j + 1] as number);
    s2 += (m[off + j + 2] as number) * (q[j + 2] as number);
    s3 += (m[off + j + 3] as number) * (q[j + 3] as number);
  }
  for (; j < dim; j++) s0 += (m[off + j] as number) * (q[j] as number);
  return s0 + s1 + s2 + s3;
}

function preview(s: string): string {
  return JSON.stringify(s.length > 60 ? s.slice(0, 57) + '...' : s);
}
