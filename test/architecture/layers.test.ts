/**
 * The layer order of src/ (declared in src/layers.ts): every import goes down, none
 * sideways between folders of one layer, and neither the folders nor the files form a
 * cycle. A failure names the importing file, the imported one and the rule.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAYERS } from '../../src/layers.js';

const SRC = resolve(__dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

/** Relative imports of a file, static and dynamic, resolved to .ts paths under src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const patterns = [
    /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]/gm, // import x from '…', import type …, export … from '…'
    /(?:^|[\s;])import\s*['"](\.[^'"]+)['"]/gm, // import '…' (for its effects)
    /import\(\s*['"](\.[^'"]+)['"]\s*\)/g, // import('…')
  ];
  const specs = patterns.flatMap((re) => [...text.matchAll(re)].map((m) => m[1]!));
  return specs.map((s) => resolve(dirname(file), s).replace(/\.js$/, '.ts'));
}

/** The top folder of a src/ path ('' for files directly in src/). */
function folderOf(path: string): string {
  const rel = relative(SRC, path).split('/');
  return rel.length > 1 ? rel[0]! : '';
}

const rank = new Map<string, number>();
LAYERS.forEach((layer, i) => layer.forEach((folder) => rank.set(folder, LAYERS.length - i)));
rank.set('', LAYERS.length + 1);

/** One cycle per back edge a depth-first walk meets, each as the path round it (first node repeated at the end). */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (node: string, path: string[]): void => {
    if (state.get(node) === 'done') return;
    if (state.get(node) === 'open') {
      cycles.push([...path.slice(path.indexOf(node)), node]);
      return;
    }
    state.set(node, 'open');
    for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
    state.set(node, 'done');
  };
  for (const node of graph.keys()) visit(node, []);
  return cycles;
}

const files = sourceFiles(SRC);
const edges = files.flatMap((from) => importsOf(from).filter((to) => to.startsWith(SRC)).map((to) => ({ from, to })));

describe('architecture: the layer order of src/', () => {
  it('every folder of src/ is in a layer', () => {
    const folders = new Set(files.map(folderOf).filter((f) => f !== ''));
    expect([...folders].filter((f) => !rank.has(f)).map((f) => `src/${f}/ is in no layer of src/layers.ts`)).toEqual([]);
  });

  it('imports only go down (or stay in their folder)', () => {
    const bad = edges.flatMap(({ from, to }) => {
      const a = folderOf(from);
      const b = folderOf(to);
      if (a === b) return [];
      const ra = rank.get(a) ?? 0;
      const rb = rank.get(b) ?? 0;
      if (rb < ra) return [];
      const why = rb === ra ? `sideways: ${a}/ and ${b}/ are one layer` : `up: ${b}/ is above ${a}/`;
      return [`${relative(SRC, from)} imports ${relative(SRC, to)} (${why})`];
    });
    expect(bad).toEqual([]);
  });

  it('the folders form no import cycle', () => {
    const graph = new Map<string, string[]>();
    for (const { from, to } of edges) {
      const a = folderOf(from);
      const b = folderOf(to);
      if (a !== b && !graph.get(a)?.includes(b)) graph.set(a, [...(graph.get(a) ?? []), b]);
    }
    expect(cyclesOf(graph).map((c) => c.join(' -> '))).toEqual([]);
  });

  it('the files form no import cycle (type-only and dynamic imports count)', () => {
    // A cycle of types alone still ties the files together: neither can be read, moved or split without the other.
    const graph = new Map<string, string[]>();
    for (const { from, to } of edges) if (from !== to) graph.set(from, [...(graph.get(from) ?? []), to]);
    expect(cyclesOf(graph).map((c) => c.map((f) => relative(SRC, f)).join(' -> '))).toEqual([]);
  });

  it('finds a file cycle when there is one (a check of the cycle finder)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c', 'd']],
      ['c', ['a']],
      ['d', []],
    ]);
    expect(cyclesOf(graph)).toEqual([['a', 'b', 'c', 'a']]);
  });

  it('reads the imports this test relies on (a smoke check of the parser)', () => {
    const cli = importsOf(join(SRC, 'cli', 'main.ts')).map((p) => relative(SRC, p));
    expect(cli).toEqual(expect.arrayContaining(['util/errors.ts', 'cli/commands/run.ts', 'app/registry.ts']));
  });
});
