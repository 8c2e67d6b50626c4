/**
 * Dot products of one query against every key, in WebAssembly SIMD (dot-kernel.wat),
 * over a copy of the keys rounded to bfloat16 kept in the kernel's own memory: half the
 * bytes of float32 to stream, so about 10× the scalar scan and on par with numpy's
 * float32 `K @ q` on two threads (bench:memory).
 *
 * Its values are close to, not equal to, the exact scan's (float32 keys, float64 sums).
 * KeyIndex uses them only to shortlist, with a margin larger than their worst-case
 * error (kernelErrorBound), and scores the shortlist exactly, so the results are the
 * exact scan's, bit for bit.
 */
import { DOT_KERNEL_WASM } from './dot-kernel-wasm.js';

// The few WebAssembly types used here (this project's TypeScript libs do not declare the global).
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
/** What the kernel module exports (kernels/dots.wat). */
interface WasmExports {
  memory: WasmMemory;
  dots: DotKernel['dotsFn'];
}
interface WasmInstance {
  readonly exports: WasmExports;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => WasmInstance;
}
const WASM = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

const PAGE = 65536;
/** wasm32's 4 GiB, less some room: beyond it the index stays on the scalar scan. */
const KERNEL_MAX_BYTES = 4 * 1024 ** 3 - 64 * PAGE;

let compiled: object | null | undefined;

/** The compiled module, or null where WebAssembly SIMD is missing or MEMRL_SIMD=0 turns it off. */
function kernelModule(): object | null {
  if (compiled !== undefined) return compiled;
  try {
    compiled = process.env.MEMRL_SIMD === '0' || !WASM ? null : new WASM.Module(Buffer.from(DOT_KERNEL_WASM, 'base64'));
  } catch {
    compiled = null;
  }
  return compiled;
}

/** One kernel instance: its memory holds [query | key rows in bfloat16 | scores]. */
export class DotKernel {
  private readonly memory: WasmMemory;
  private readonly dotsFn: (q: number, m: number, n: number, dim: number, out: number) => void;
  /** Byte offset of the key rows (after the float32 query, 16-byte aligned). */
  private readonly rowsOffset: number;
  private capacity = 0;
  private rows = new Uint16Array(0);

  private constructor(
    instance: WasmInstance,
    readonly dim: number,
  ) {
    const exports = instance.exports;
    this.memory = exports.memory;
    this.dotsFn = exports.dots;
    this.rowsOffset = align16(dim * 4);
  }

  static create(dim: number): DotKernel | null {
    const mod = kernelModule();
    return mod && WASM ? new DotKernel(new WASM.Instance(mod), dim) : null;
  }

  private scoresOffset(capacity: number): number {
    return this.rowsOffset + align16(capacity * this.dim * 2);
  }

  /** Make room for `rows` keys; rows already stored stay where they are. False: too big for wasm32. */
  reserve(rows: number): boolean {
    if (rows <= this.capacity) return true;
    const need = this.scoresOffset(rows) + rows * 4;
    if (need > KERNEL_MAX_BYTES) return false;
    const have = this.memory.buffer.byteLength;
    if (need > have) this.memory.grow(Math.ceil((need - have) / PAGE));
    // Growing detached the old view.
    this.rows = new Uint16Array(this.memory.buffer, this.rowsOffset, rows * this.dim);
    this.capacity = rows;
    return true;
  }

  /** Store key `i` (its float32 values from `matrix` at `off`), rounded to bfloat16. */
  setRow(i: number, matrix: Float32Array, off: number): void {
    const bits = new Uint32Array(matrix.buffer, matrix.byteOffset + off * 4, this.dim);
    const row = this.rows;
    const base = i * this.dim;
    for (let j = 0; j < this.dim; j++) row[base + j] = toBfloat16(bits[j] as number);
  }

  /** Dot of `query` with each of the first `n` rows, as float32. */
  dots(query: Float32Array, n: number): Float32Array {
    new Float32Array(this.memory.buffer, 0, this.dim).set(query);
    const out = this.scoresOffset(this.capacity);
    this.dotsFn(0, this.rowsOffset, n, this.dim, out);
    return new Float32Array(this.memory.buffer, out, n);
  }
}

/**
 * float32 bits → bfloat16 bits, rounded to nearest, ties to even: off by at most 2^-8 of
 * the value. NaN stays NaN, and a finite value that would round up to infinity is cut instead.
 */
export function toBfloat16(bits: number): number {
  const exp = (bits >>> 23) & 0xff;
  if (exp === 0xff) return (bits >>> 16) | ((bits & 0xffff) !== 0 && (bits & 0x7f0000) === 0 ? 0x40 : 0); // inf, or NaN kept a NaN
  const rounded = (bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16;
  return ((rounded >>> 7) & 0xff) === 0xff ? bits >>> 16 : rounded & 0xffff;
}

/**
 * A bound on |kernel cosine − exact cosine| for `dim`-long vectors. Rounding a key to
 * bfloat16 moves each product by at most 2^-8 of |a_i q_i|, and Σ|a_i q_i| ≤ |a||q|; the
 * float32 sums add at most (dim/16 + 16)·2^-24 of the same; the cosine divides by norms at
 * least |a| and |q|. With 1% and a floor to spare.
 */
export function kernelErrorBound(dim: number): number {
  return 1.01 * (2 ** -8 + 2 * (Math.ceil(dim / 16) + 16) * 2 ** -24) + 1e-12;
}

function align16(x: number): number {
  return Math.ceil(x / 16) * 16;
}
