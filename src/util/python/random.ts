/**
 * Two Mersenne Twister streams of the reference, reproduced bit for bit so a run picks
 * and orders tasks as the reference does:
 * - Python's `random.seed(n); random.sample(population, k)` (CPython 3.x, an integer
 *   seed; memrl/run/llb_rl_runner.py:LLBRunner._split_dataset): MT19937 seeded by
 *   init_by_array over the seed's 32-bit words, _randbelow by rejection over
 *   getrandbits, and sample's two algorithms (a pool for small populations, a set of
 *   picked indices for large ones).
 * - numpy's legacy `RandomState(n).permutation(k)`, which pandas' `sample(n=…)` and
 *   `sample(frac=1)` use (memrl/run/hle_runner.py:HLERunner._load): MT19937 seeded by
 *   init_genrand, and a Fisher-Yates shuffle from the end whose bounded draws reject
 *   masked 32-bit words.
 */
const N = 624;
const M = 397;

class Mt19937 {
  private readonly mt = new Uint32Array(N);
  private mti = N + 1;

  initGenrand(s: number): void {
    this.mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = this.mt[i - 1] as number;
      const x = prev ^ (prev >>> 30);
      // 1812433253 * x + i, in 32 bits.
      this.mt[i] = (((((x & 0xffff0000) >>> 16) * 1812433253) << 16) + (x & 0x0000ffff) * 1812433253 + i) >>> 0;
    }
    this.mti = N;
  }

  initByArray(key: readonly number[]): void {
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    const mul = (a: number, b: number): number => (((((a & 0xffff0000) >>> 16) * b) << 16) + (a & 0x0000ffff) * b) >>> 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = this.mt[i - 1] as number;
      this.mt[i] = (((this.mt[i] as number) ^ mul(prev ^ (prev >>> 30), 1664525)) + (key[j] as number) + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        this.mt[0] = this.mt[N - 1] as number;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = this.mt[i - 1] as number;
      this.mt[i] = (((this.mt[i] as number) ^ mul(prev ^ (prev >>> 30), 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        this.mt[0] = this.mt[N - 1] as number;
        i = 1;
      }
    }
    this.mt[0] = 0x80000000;
  }

  genrandUint32(): number {
    const mag01 = [0, 0x9908b0df];
    if (this.mti >= N) {
      let kk = 0;
      for (; kk < N - M; kk++) {
        const y = ((this.mt[kk] as number) & 0x80000000) | ((this.mt[kk + 1] as number) & 0x7fffffff);
        this.mt[kk] = (this.mt[kk + M] as number) ^ (y >>> 1) ^ (mag01[y & 1] as number);
      }
      for (; kk < N - 1; kk++) {
        const y = ((this.mt[kk] as number) & 0x80000000) | ((this.mt[kk + 1] as number) & 0x7fffffff);
        this.mt[kk] = (this.mt[kk + (M - N)] as number) ^ (y >>> 1) ^ (mag01[y & 1] as number);
      }
      const y = ((this.mt[N - 1] as number) & 0x80000000) | ((this.mt[0] as number) & 0x7fffffff);
      this.mt[N - 1] = (this.mt[M - 1] as number) ^ (y >>> 1) ^ (mag01[y & 1] as number);
      this.mti = 0;
    }
    let y = this.mt[this.mti++] as number;
    y ^= y >>> 11;
    y = (y ^ ((y << 7) & 0x9d2c5680)) >>> 0;
    y = (y ^ ((y << 15) & 0xefc60000)) >>> 0;
    y ^= y >>> 18;
    return y >>> 0;
  }
}

export class PyRandom {
  private readonly mt = new Mt19937();

  /** random.seed(n) for an integer n (its absolute value, in 32-bit words, least significant first). */
  constructor(seed: number) {
    if (!Number.isSafeInteger(seed)) throw new RangeError(`PyRandom: seed must be a safe integer, got ${seed}`);
    let n = Math.abs(seed);
    const key: number[] = [];
    do {
      key.push(n % 0x100000000);
      n = Math.floor(n / 0x100000000);
    } while (n > 0);
    this.mt.initByArray(key);
  }

  /** getrandbits(k) for 0 < k <= 32. */
  private bits(k: number): number {
    return this.mt.genrandUint32() >>> (32 - k);
  }

  /** _randbelow(n) for 0 < n < 2^32. */
  randbelow(n: number): number {
    const k = 32 - Math.clz32(n); // n.bit_length()
    let r = this.bits(k);
    while (r >= n) r = this.bits(k);
    return r;
  }

  /** random.sample(population, k). */
  sample<T>(population: readonly T[], k: number): T[] {
    const n = population.length;
    if (!(k >= 0 && k <= n)) throw new RangeError('Sample larger than population or is negative');
    const result: T[] = new Array<T>(k);
    let setsize = 21;
    if (k > 5) setsize += 4 ** Math.ceil(Math.log(k * 3) / Math.log(4));
    if (n <= setsize) {
      const pool = [...population];
      for (let i = 0; i < k; i++) {
        const j = this.randbelow(n - i);
        result[i] = pool[j] as T;
        pool[j] = pool[n - i - 1] as T;
      }
    } else {
      const selected = new Set<number>();
      for (let i = 0; i < k; i++) {
        let j = this.randbelow(n);
        while (selected.has(j)) j = this.randbelow(n);
        selected.add(j);
        result[i] = population[j] as T;
      }
    }
    return result;
  }
}

/** numpy's legacy `np.random.RandomState(seed)` (an integer seed in [0, 2^32)), as far as pandas' `sample` uses it. */
export class NumpyRandomState {
  private readonly mt = new Mt19937();

  constructor(seed: number) {
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new RangeError(`NumpyRandomState: seed must be an integer in [0, 2**32 - 1], got ${seed}`);
    this.mt.initGenrand(seed);
  }

  /** random_interval(max) for max < 2^32: a 32-bit draw masked to max's bit length, redrawn while above max. */
  private interval(max: number): number {
    if (max === 0) return 0;
    let mask = max;
    mask |= mask >>> 1;
    mask |= mask >>> 2;
    mask |= mask >>> 4;
    mask |= mask >>> 8;
    mask |= mask >>> 16;
    let v: number;
    do v = (this.mt.genrandUint32() & mask) >>> 0;
    while (v > max);
    return v;
  }

  /** permutation(n): 0..n-1 shuffled in place from the last position down. */
  permutation(n: number): number[] {
    const out = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = this.interval(i);
      const t = out[i] as number;
      out[i] = out[j] as number;
      out[j] = t;
    }
    return out;
  }
}

/**
 * pandas' `rows.sample(n=k, random_state=seed)` (and `frac=1` for k = all rows): the
 * rows at the first k positions of a fresh RandomState(seed)'s permutation, in that order.
 */
export function pandasSample<T>(rows: readonly T[], k: number, seed: number): T[] {
  return new NumpyRandomState(seed)
    .permutation(rows.length)
    .slice(0, k)
    .map((i) => rows[i] as T);
}
