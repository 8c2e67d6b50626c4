import { describe, expect, it } from 'vitest';
import { LocalNgramEmbedder } from '../../src/embed/local.js';
import { hash32 } from '../../src/util/rng.js';

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (a: Float32Array) => Math.sqrt(cos(a, a));

// Real-ish task texts: pairs of paraphrases from three benchmarks, plus unrelated ones.
const PAIRS: [string, string][] = [
  [
    'Calculate the average of the sums of absolute differences between each pair of consecutive numbers for all permutations of a given list.',
    'Calculate the mean of the sums of absolute differences between consecutive numbers over all permutations of a list of integers.',
  ],
  [
    'Find the names of all employees whose salary is above 5000 in the employees table.',
    'List all employees in the employees table whose salary is greater than 6000 and return their names.',
  ],
  [
    'Create a user named alice and add her to the group developers, then set her home directory permissions to 700.',
    'Add a new user called bob to the developers group and make his home directory permissions 700.',
  ],
];

/**
 * The embedder's definition, written the plain way: hash32 of every code-point n-gram of
 * the padded, lower-cased text. Runs recorded before must keep their vectors (a resume
 * compares retrievals), so the fast form has to agree with this bit for bit.
 */
function definition(text: string, dim = 512, ns = [3, 4, 5]): Float32Array {
  const v = new Float64Array(dim);
  const chars = Array.from(` ${text.toLowerCase().replace(/\s+/g, ' ').trim()} `);
  for (const n of ns) {
    for (let i = 0; i + n <= chars.length; i++) {
      const h = hash32(chars.slice(i, i + n).join(''));
      v[h % dim]! += h >>> 31 ? -1 : 1;
    }
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  const out = new Float32Array(dim);
  if (norm > 0) for (let i = 0; i < dim; i++) out[i] = v[i]! / norm;
  return out;
}

describe('LocalNgramEmbedder', () => {
  const e = new LocalNgramEmbedder();

  it('is deterministic, unit-length and of fixed dimension', async () => {
    const texts = PAIRS.flat();
    const a = await e.embed(texts);
    const b = await new LocalNgramEmbedder().embed(texts);
    expect(e.label).toBe('local-ngram-512');
    for (let i = 0; i < texts.length; i++) {
      expect(a[i]!.length).toBe(512);
      expect(norm(a[i]!)).toBeCloseTo(1, 5);
      expect(Array.from(a[i]!)).toEqual(Array.from(b[i]!));
    }
    const small = new LocalNgramEmbedder({ dim: 64 });
    expect((await small.embed(['x y z']))[0]!.length).toBe(64);
    expect(small.label).toBe('local-ngram-64');
  });

  it('ignores case and whitespace differences', async () => {
    const [a, b] = await e.embed(['Sort  the List\nof numbers', 'sort the list of numbers']);
    expect(cos(a!, b!)).toBeCloseTo(1, 5);
  });

  it('scores paraphrases well above unrelated tasks', async () => {
    const vecs = await Promise.all(PAIRS.map((p) => e.embed(p)));
    for (let i = 0; i < PAIRS.length; i++) {
      const similar = cos(vecs[i]![0]!, vecs[i]![1]!);
      expect(similar).toBeGreaterThan(0.5);
      for (let j = 0; j < PAIRS.length; j++) {
        if (j === i) continue;
        const unrelated = cos(vecs[i]![0]!, vecs[j]![0]!);
        expect(unrelated).toBeLessThan(0.3);
        expect(similar - unrelated).toBeGreaterThan(0.3);
      }
    }
  });

  it('gives exactly the vectors of its definition, for any text', async () => {
    const texts = [
      ...PAIRS.flat(),
      'ab',
      'Größe über 5 — naïve café',
      'emoji 😀 in 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 text 🎉🎉',
      'lone \ud800 high and \udc00 low surrogates, and a pair split at the end \ud83d',
      'x'.repeat(3000),
    ];
    for (const [dim, ns] of [[512, [3, 4, 5]], [64, [1, 2]], [97, [6]]] as const) {
      const fast = await new LocalNgramEmbedder({ dim, n: [...ns] }).embed(texts);
      for (const [i, t] of texts.entries()) expect(Array.from(fast[i]!), t.slice(0, 40)).toEqual(Array.from(definition(t, dim, [...ns])));
    }
  });

  it('maps empty text to a zero vector rather than NaN', async () => {
    const [v] = await e.embed(['']);
    expect(v!.every((x) => x === 0)).toBe(true);
  });
});
