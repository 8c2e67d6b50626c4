/**
 * Retrieval benchmark: MemoryEngine Phase A + B against a plain Float32Array
 * dot-product scan over the same bytes (the engine's own embedding matrix), and, when
 * python3 has numpy, numpy's float32 `K @ q` + argpartition on the same shapes.
 *
 *   npm run bench:memory                       # 1k, 10k, 100k keys × 3072 dims
 *   node dist/scripts/bench-memory.js --sizes 1000,10000 --dim 768 --queries 30
 *
 * Goal: engine ≤ 1.5× numpy at 10k and 100k × 3072, with exact results.
 */
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { MemoryEngine } from '../src/memory/engine.js';
import { defaultMemoryParams } from '../src/memory/params.js';
import { Rng } from '../src/util/rng.js';

interface Args {
  sizes: number[];
  dim: number;
  queries: number;
  warmup: number;
  seed: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { sizes: [1_000, 10_000, 100_000], dim: 3072, queries: 50, warmup: 5, seed: 1 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined) throw new Error(`missing value for ${flag}`);
    if (flag === '--sizes') args.sizes = value.split(',').map((s) => Number(s.trim()));
    else if (flag === '--dim') args.dim = Number(value);
    else if (flag === '--queries') args.queries = Number(value);
    else if (flag === '--warmup') args.warmup = Number(value);
    else if (flag === '--seed') args.seed = Number(value);
    else throw new Error(`unknown flag ${flag} (use --sizes, --dim, --queries, --warmup, --seed)`);
    i++;
  }
  return args;
}

/** Fill `out` with a random unit vector. */
function randomUnit(rng: Rng, out: Float32Array): void {
  let s = 0;
  for (let j = 0; j < out.length; j++) {
    const x = rng.next() * 2 - 1;
    out[j] = x;
    s += x * x;
  }
  const inv = 1 / Math.sqrt(s);
  for (let j = 0; j < out.length; j++) out[j] = (out[j] as number) * inv;
}

/** The baseline: one dot per row, keep the max. Nothing else. */
function plainScan(rows: Float32Array, n: number, dim: number, q: Float32Array): number {
  let best = -Infinity;
  for (let i = 0, off = 0; i < n; i++, off += dim) {
    let s = 0;
    for (let j = 0; j < dim; j++) s += (rows[off + j] as number) * (q[j] as number);
    if (s > best) best = s;
  }
  return best;
}

/** The same baseline with four accumulators (the kernel style the engine uses). */
function plainScan4(rows: Float32Array, n: number, dim: number, q: Float32Array): number {
  let best = -Infinity;
  const end4 = dim - (dim % 4);
  for (let i = 0, off = 0; i < n; i++, off += dim) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let j = 0;
    for (; j < end4; j += 4) {
      s0 += (rows[off + j] as number) * (q[j] as number);
      s1 += (rows[off + j + 1] as number) * (q[j + 1] as number);
      s2 += (rows[off + j + 2] as number) * (q[j + 2] as number);
      s3 += (rows[off + j + 3] as number) * (q[j + 3] as number);
    }
    for (; j < dim; j++) s0 += (rows[off + j] as number) * (q[j] as number);
    const s = s0 + s1 + s2 + s3;
    if (s > best) best = s;
  }
  return best;
}

/** numpy's p50 in ms for `K @ q` + argpartition at n × dim (float32), or null without python3 + numpy. */
function numpyP50(n: number, dim: number, queries: number): number | null {
  const code = [
    'import sys, time',
    'import numpy as np',
    'n, dim, reps = map(int, sys.argv[1:4])',
    'rng = np.random.default_rng(1)',
    'K = rng.standard_normal((n, dim), dtype=np.float32)',
    'ts = []',
    'for _ in range(reps + 5):',
    '    q = rng.standard_normal(dim, dtype=np.float32)',
    '    t = time.perf_counter(); s = K @ q; top = np.argpartition(-s, 5)[:5]; ts.append(time.perf_counter() - t)',
    'ts = sorted(ts[5:]); print(ts[len(ts) // 2] * 1000)',
  ].join('\n');
  const r = spawnSync('python3', ['-c', code, String(n), String(dim), String(queries)], { encoding: 'utf8' });
  return r.status === 0 ? Number(r.stdout.trim()) : null;
}

function percentile(sorted: number[], p: number): number {
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[idx] as number;
}

function fmt(ms: number): string {
  return ms < 10 ? ms.toFixed(3) : ms.toFixed(1);
}

function benchSize(n: number, args: Args): string[] {
  const { dim } = args;
  const rng = new Rng(args.seed * 1_000_003 + n);
  // Threshold 0 lets about half of all keys through Phase A's filter: more top-k work than a real run.
  const params = defaultMemoryParams({ method: 'memrl', simThreshold: 0, k1: 5, k2: 5, epsilon: 0.1 });
  const t0 = performance.now();
  const engine = new MemoryEngine(params, { dim, capacity: n });
  const scratch = new Float32Array(dim);
  for (let i = 0; i < n; i++) {
    randomUnit(rng, scratch);
    engine.insertDirect({ id: `m${i}`, key: `k${i}`, embedding: scratch, q: rng.next() * 2 - 1 });
  }
  const buildMs = performance.now() - t0;
  const rows = engine.embeddingRows();

  // Queries: a stored key plus noise, so Phase A finds a close neighbour like a real task would.
  const total = args.warmup + args.queries;
  const queries: Float32Array[] = [];
  const noise = new Float32Array(dim);
  for (let t = 0; t < total; t++) {
    const base = rng.int(n);
    randomUnit(rng, noise);
    const q = new Float32Array(dim);
    for (let j = 0; j < dim; j++) q[j] = (rows[base * dim + j] as number) + 0.5 * (noise[j] as number);
    queries.push(q);
  }

  const retrieveRng = new Rng(args.seed);
  const eng: number[] = [];
  const scan: number[] = [];
  const scan4: number[] = [];
  let sink = 0;
  let pool = 0;
  // Interleave the three so drift in machine load hits them alike.
  for (let t = 0; t < total; t++) {
    const q = queries[t] as Float32Array;
    let s = performance.now();
    const sel = engine.retrieve(q, retrieveRng);
    const e = performance.now() - s;
    s = performance.now();
    sink += plainScan(rows, n, dim, q);
    const p1 = performance.now() - s;
    s = performance.now();
    sink += plainScan4(rows, n, dim, q);
    const p4 = performance.now() - s;
    if (t >= args.warmup) {
      eng.push(e);
      scan.push(p1);
      scan4.push(p4);
      pool += sel.pool;
    }
  }
  if (Number.isNaN(sink)) console.log('');
  for (const a of [eng, scan, scan4]) a.sort((x, y) => x - y);
  const e50 = percentile(eng, 0.5);
  const s50 = percentile(scan, 0.5);
  const f50 = percentile(scan4, 0.5);
  const best = Math.min(s50, f50);
  const np50 = numpyP50(n, dim, args.queries);
  return [
    String(n),
    fmt(e50),
    fmt(percentile(eng, 0.95)),
    fmt(s50),
    fmt(percentile(scan, 0.95)),
    fmt(f50),
    fmt(percentile(scan4, 0.95)),
    (e50 / s50).toFixed(2),
    (e50 / best).toFixed(2),
    np50 === null ? 'n/a' : fmt(np50),
    np50 === null ? 'n/a' : (e50 / np50).toFixed(2),
    (pool / args.queries).toFixed(1),
    (buildMs / 1000).toFixed(1),
  ];
}

function main(): void {
  const args = parseArgs(process.argv.slice(2));
  const header = [
    'keys',
    'engine p50',
    'engine p95',
    'scan p50',
    'scan p95',
    'scan4 p50',
    'scan4 p95',
    'ratio vs scan',
    'ratio vs best',
    'numpy p50',
    'vs numpy',
    'avg pool',
    'build s',
  ];
  console.log(
    `memrl bench:memory — dim ${args.dim}, ${args.queries} timed queries after ${args.warmup} warm-up, times in ms (node ${process.version})`,
  );
  console.log('engine = retrieve() Phase A + B (memrl, k1 5, k2 5, eps 0.1, threshold 0); scan = plain dot + max over the same Float32Array; scan4 = same with 4 accumulators; numpy = float32 K @ q + argpartition, same shapes (python3 with numpy)');
  const rowsOut: string[][] = [header];
  for (const n of args.sizes) {
    rowsOut.push(benchSize(n, args));
    if (global.gc) global.gc();
  }
  const widths = header.map((_, c) => Math.max(...rowsOut.map((r) => (r[c] as string).length)));
  for (const [i, r] of rowsOut.entries()) {
    console.log('| ' + r.map((cell, c) => cell.padStart(widths[c] as number)).join(' | ') + ' |');
    if (i === 0) console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  }
  console.log(`peak rss ${(process.resourceUsage().maxRSS / 2 ** 20).toFixed(2)} GiB`);
}

main();
