/**
 * The WebAssembly kernel memrl ships is its source assembled (the bytes embedded in
 * dot-kernel-wasm.ts cannot drift from dot-kernel.wat), and bfloat16 rounding keeps
 * the error the shortlist margin assumes.
 */
import { describe, expect, it } from 'vitest';
import { assembleDotKernel } from '../../scripts/build-wasm.js';
import { toBfloat16 } from '../../src/memory/dot-kernel.js';
import { DOT_KERNEL_WASM } from '../../src/memory/dot-kernel-wasm.js';
import { Rng } from '../../src/util/rng.js';

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const bitsOf = (x: number): number => ((f32[0] = x), u32[0] as number);
const fromBf16 = (h: number): number => ((u32[0] = h << 16), f32[0] as number);

describe('the SIMD dot kernel', () => {
  it('is dot-kernel.wat assembled (rebuild: node dist/scripts/build-wasm.js)', async () => {
    expect(Buffer.from(await assembleDotKernel()).toString('base64')).toBe(DOT_KERNEL_WASM);
  });

  it('rounds to bfloat16 within 2^-8 of the value, ties to even, keeping NaN and infinities', () => {
    const rng = new Rng(3);
    for (let i = 0; i < 100_000; i++) {
      const x = Math.fround((rng.next() * 2 - 1) * 10 ** (rng.int(20) - 10));
      const y = fromBf16(toBfloat16(bitsOf(x)));
      expect(Math.abs(y - x)).toBeLessThanOrEqual(2 ** -8 * Math.abs(x));
    }
    // 1 + 2^-8 is halfway between two bfloat16 values: to the even one (1); 1 + 3·2^-8 rounds up.
    expect(fromBf16(toBfloat16(bitsOf(1 + 2 ** -8)))).toBe(1);
    expect(fromBf16(toBfloat16(bitsOf(1 + 3 * 2 ** -8)))).toBe(1 + 2 ** -6);
    expect(Number.isNaN(fromBf16(toBfloat16(0x7f800001)))).toBe(true);
    expect(fromBf16(toBfloat16(bitsOf(Infinity)))).toBe(Infinity);
    // The largest float32 is not rounded up to infinity.
    expect(Number.isFinite(fromBf16(toBfloat16(0x7f7fffff)))).toBe(true);
  });
});
