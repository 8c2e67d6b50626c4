/**
 * Python's `random.seed(n); random.sample(population, k)` (CPython 3.x, an integer
 * seed), reproduced bit for bit so a run picks the same tasks as the reference when
 * experiment.dataset_ratio < 1 (memrl/run/llb_rl_runner.py:LLBRunner._split_dataset).
 * MT19937 seeded by init_by_array over the seed's 32-bit words, _randbelow by
 * rejection over getrandbits, and sample's two algorithms (a pool for small
 * populations, a set of picked indices for large ones).
 */
const N = 624;
const M = 397;

class Mt19937 {
  private readonly mt = new Uint32Array(N);
  private mti = N + 1;

  private initGenrand(s: number): void {
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
