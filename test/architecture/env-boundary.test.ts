/**
 * The boundary of src/env/ (docs/environments.md): it never knows a benchmark's name
 * (benchmarks name their containers, database prefixes and labels when they open a
 * backend), its substrates (bwrap/, container/) serve every kind and import none,
 * and the kinds do not import each other. The layer test keeps bench/ out of env/.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_BENCHMARKS } from '../../src/bench/registry.js';
import { ENV_KINDS, envBackends } from '../../src/env/registry.js';

const ENV = resolve(__dirname, '../../src/env');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

/** The folder of src/env/ a file is in ('' for files directly in env/). */
function partOf(path: string): string {
  const rel = relative(ENV, path).split('/');
  return rel.length > 1 ? rel[0]! : '';
}

const SUBSTRATES = ['bwrap', 'container'];

describe('architecture: src/env/', () => {
  it('never names a benchmark', () => {
    const names = [...BUILTIN_BENCHMARKS.flatMap((b) => [b.name, b.displayName]), 'LifelongAgentBench', "Humanity's Last Exam"];
    const pattern = new RegExp(`\\b(${names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})\\b`, 'i');
    const hits = files(ENV).flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((line, i) => (pattern.test(line) ? [`src/env/${relative(ENV, f)}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(hits).toEqual([]);
  });

  it('keeps its substrates below the kinds and the kinds apart', () => {
    const bad = files(ENV)
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) => {
        const text = readFileSync(f, 'utf8');
        const specs = [...text.matchAll(/(?:from|import\()\s*['"](\.[^'"]+)['"]/g)].map((m) => resolve(dirname(f), m[1]!));
        const from = partOf(f);
        return specs
          .filter((to) => to.startsWith(ENV))
          .flatMap((to) => {
            const target = partOf(to);
            if (from === '' || target === from || target === '' || SUBSTRATES.includes(target)) return [];
            return [`src/env/${relative(ENV, f)} imports src/env/${relative(ENV, to)} (${SUBSTRATES.includes(from) ? 'a substrate imports a kind' : 'one kind imports another'})`];
          });
      });
    expect(bad).toEqual([]);
  });

  it('registers a local and a docker backend for every kind', () => {
    expect(ENV_KINDS.sort()).toEqual(['bridge', 'python-tests', 'shell', 'sql']);
    for (const kind of ENV_KINDS) expect(envBackends(kind), kind).toEqual(['local', 'docker']);
  });
});
