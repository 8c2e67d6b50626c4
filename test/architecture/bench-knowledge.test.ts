/**
 * Benchmark knowledge lives in src/bench/<name>/ and the registries: no other file of
 * src/ names a built-in benchmark, so adding, renaming or removing one is its folder
 * and a line in src/bench/registry.ts. Everything else asks the benchmark's module
 * (what its episodes need from a worker, its TensorBoard tags, its display name, its
 * config keys and their help, its sweep variants). The rule and its two exceptions
 * (help examples, fidelity-switch records) are in bench-names.ts.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_BENCHMARKS } from '../../src/bench/registry.js';
import { mentionsIn, mentionsOutsideFolders, type BenchName } from './bench-names.js';

const SRC = resolve(__dirname, '../../src');
const REGISTRIES = ['bench/registry.ts', 'methods/registry.ts'];

/** Names a benchmark goes by besides its registry and display names. */
const FULL_NAMES: Readonly<Record<string, string>> = { llb: 'LifelongAgentBench', hle: "Humanity's Last Exam" };

const NAMES: BenchName[] = BUILTIN_BENCHMARKS.map((b) => ({ benchmark: b.name, words: [b.name, b.displayName, ...(FULL_NAMES[b.name] ? [FULL_NAMES[b.name]!] : [])] }));

describe('architecture: benchmark knowledge', () => {
  it('outside its folder and the registries, no file of src/ names a built-in benchmark', () => {
    const stray = mentionsOutsideFolders(SRC, NAMES).filter((m) => !REGISTRIES.includes(m.file));
    expect(stray.map((m) => `src/${m.file}:${m.line} names ${m.benchmark}: ${m.text}`)).toEqual([]);
  });

  it('counts what the rule says it counts (a check of the checker)', () => {
    const source = [
      '// bcb in a comment does not count',
      "/** nor hle in a doc comment */",
      "const handle = 'handles'; // hle inside a word does not count",
      "const BCB_TAGS = 1; // an identifier counts",
      "const key = 'memrl.llb.subset'; // a word inside a dotted key counts",
      "const help = 'e.g. --benchmark alfworld; but ALFWorld here counts';",
      "const examples = ['memrl run hle --limit 2'];",
      "const sw = { id: 'x.y', class: 'bug', reference: 'as the reference bcb runner does', memrl: 'llb', source: 'run/hle_runner.py' };",
      "const notASwitch = { reference: 'hle' };",
    ].join('\n');
    const found = mentionsIn('x.ts', source, NAMES).map((m) => `${m.line}:${m.benchmark}`);
    expect(found).toEqual(['4:bcb', '5:llb', '6:alfworld', '9:hle']);
  });
});
