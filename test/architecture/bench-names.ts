/**
 * Where src/ names a built-in benchmark: the rule test/architecture/bench-knowledge.test.ts
 * checks (and the counting behind issue 40's figures).
 *
 * A file names benchmark B when its code, read by the TypeScript parser, has B's name
 * or display name (or its full name, for LLB and HLE) as a word in an identifier, a
 * property name, or the text of a string, template or regular-expression literal.
 * Case does not matter, and letters and digits bound a word: `bcb_mode`, `BCB_TAGS`,
 * 'memrl.bcb.subset', 'llb-db' and 'system-bcb' name BCB or LLB; `handle` does not
 * name HLE. Comments are not code, so they never count. Two kinds of text in literals
 * do not count either:
 *   - help examples: a line that is a command (it starts with `memrl `), and an
 *     `e.g.` clause (from `e.g.` to the next `;` or `)` or the end of the line);
 *   - the record of a fidelity switch (an object with `id` and `class`): its
 *     `reference`, `memrl` and `source` texts quote the reference code, whose runners
 *     and files are named after its benchmarks.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface BenchName {
  /** The benchmark's registry name. */
  benchmark: string;
  /** Every spelling that names it. */
  words: readonly string[];
}

export interface Mention {
  file: string;
  line: number;
  benchmark: string;
  text: string;
}

const LITERALS = new Set([ts.SyntaxKind.StringLiteral, ts.SyntaxKind.NoSubstitutionTemplateLiteral, ts.SyntaxKind.RegularExpressionLiteral]);
const NAMES = new Set([ts.SyntaxKind.Identifier, ts.SyntaxKind.PrivateIdentifier]);
const SWITCH_TEXTS = new Set(['reference', 'memrl', 'source']);

/** The literal's text without its help examples. */
export function withoutExamples(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/^\s*memrl\s/.test(line))
    .map((line) => line.replace(/\be\.g\.[^;)\n]*/g, ''))
    .join('\n');
}

/** A `reference` / `memrl` / `source` text of a fidelity-switch record. */
function isSwitchText(node: ts.Node): boolean {
  const prop = node.parent;
  if (!prop || !ts.isPropertyAssignment(prop) || prop.initializer !== node || !SWITCH_TEXTS.has(prop.name.getText())) return false;
  const keys = new Set(prop.parent.properties.map((p) => p.name?.getText()));
  return keys.has('id') && keys.has('class');
}

function wordPattern(words: readonly string[]): RegExp {
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`(?<![A-Za-z0-9])(?:${escaped.join('|')})(?![A-Za-z0-9])`, 'i');
}

/** Every mention of the benchmarks in one TypeScript source text. */
export function mentionsIn(file: string, source: string, names: readonly BenchName[]): Mention[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const patterns = names.map((n) => ({ benchmark: n.benchmark, re: wordPattern(n.words) }));
  const out: Mention[] = [];
  const check = (node: ts.Node, text: string): void => {
    for (const { benchmark, re } of patterns) {
      if (re.test(text)) out.push({ file, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, benchmark, text: text.length > 80 ? `${text.slice(0, 77)}...` : text });
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isTemplateExpression(node)) {
      // One text, its substitutions left out: an example may span the pieces.
      if (!isSwitchText(node)) check(node, withoutExamples(node.head.text + node.templateSpans.map((s) => `\${…}${s.literal.text}`).join('')));
      for (const span of node.templateSpans) visit(span.expression);
      return;
    }
    if (NAMES.has(node.kind)) check(node, (node as ts.Identifier).text);
    else if (LITERALS.has(node.kind) && !isSwitchText(node)) check(node, withoutExamples((node as ts.LiteralLikeNode).text));
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

/** Mentions in every .ts file under `src` outside the benchmark's own folder (paths relative to src). */
export function mentionsOutsideFolders(src: string, names: readonly BenchName[]): Mention[] {
  return sourceFiles(src).flatMap((path) => {
    const file = relative(src, path);
    return mentionsIn(file, readFileSync(path, 'utf8'), names).filter((m) => !file.startsWith(`bench/${m.benchmark}/`));
  });
}
