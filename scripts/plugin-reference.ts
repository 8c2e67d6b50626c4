/**
 * docs/plugin-reference.md, written from the contract schemas (src/core/contracts.ts):
 * every field, its type, whether it is required and what memrl does with it (the
 * schema's `.describe()` text). `npm run docs` writes it; `--check` exits 1 when the
 * file differs, and test/architecture/plugin-reference.test.ts fails then too.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { CONTRACT_GROUPS } from '../src/core/contracts.js';
import { metaOf } from '../src/util/contract-schema.js';
import { nameOf, optionalField, typeText, unwrapField } from '../src/util/contract-text.js';
import { packageRoot } from '../src/util/paths.js';

export const REFERENCE_PAGE = 'docs/plugin-reference.md';

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n+/g, ' ');
const anchor = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]+/g, '-');

/** The contracts a schema's fields mention by name, for the "see" line under its table. */
type Any = z.ZodTypeAny;

function mentioned(schema: Any, own: string, into = new Set<string>(), depth = 0): Set<string> {
  if (depth > 6) return into;
  const meta = metaOf(schema);
  const name = nameOf(schema);
  if (name && name !== own && depth > 0) {
    into.add(name);
    return into;
  }
  if (meta.params && meta.returns) {
    for (const [, p] of meta.params) mentioned(p, own, into, depth + 1);
    mentioned(meta.returns, own, into, depth + 1);
    return into;
  }
  const def = schema._def as Record<string, unknown>;
  for (const key of ['innerType', 'schema', 'type', 'valueType', 'left', 'right']) if (def[key] instanceof z.ZodType) mentioned(def[key] as Any, own, into, depth + 1);
  if (Array.isArray(def.options)) for (const o of def.options as Any[]) mentioned(o, own, into, depth + 1);
  if (schema instanceof z.ZodObject) for (const v of Object.values(schema.shape as Record<string, Any>)) mentioned(v, own, into, depth + 1);
  return into;
}

function section(schema: Any): string {
  const name = nameOf(schema)!;
  const object = unwrapField(schema);
  if (!(object instanceof z.ZodObject)) throw new Error(`contract ${name} is not an object schema`);
  const lines = [`### ${name}`, '', schema.description ?? object.description ?? '', '', '| field | type | required | what memrl does with it |', '|---|---|---|---|'];
  for (const [key, field] of Object.entries(object.shape as Record<string, Any>)) {
    const inner = unwrapField(field);
    const meta = metaOf(inner);
    const label = meta.params && meta.returns ? `${key}(${meta.params.map(([n]) => n).join(', ')})` : key;
    lines.push(`| \`${label}\` | \`${cell(typeText(inner))}\` | ${optionalField(field) ? 'optional' : '**required**'} | ${cell(field.description ?? inner.description ?? '')} |`);
  }
  const catchall = object._def.catchall as Any;
  if (!(catchall instanceof z.ZodNever)) lines.push('| *any other key* | `unknown` | optional | Kept as it is (plain JSON). |');
  const see = [...mentioned(object, name)].sort();
  if (see.length) lines.push('', `See: ${see.map((n) => `[${n}](#${anchor(n)})`).join(', ')}.`);
  return lines.join('\n');
}

export function renderPluginReference(): string {
  const toc = CONTRACT_GROUPS.map((g) => `- **${g.title}**: ${g.schemas.map((s) => `[${nameOf(s)!}](#${anchor(nameOf(s)!)})`).join(', ')}`);
  const parts = [
    '# Plug-in reference',
    '',
    '<!-- Generated from the contract schemas in src/ by `npm run docs` (scripts/plugin-reference.ts). Do not edit: test/architecture/plugin-reference.test.ts fails when this page and the schemas differ. -->',
    '',
    "Every contract a plug-in meets, field by field: its type, whether it is required, and what memrl does with it. memrl checks a plug-in against these same schemas where it is loaded (what it exports) and as it runs (what its functions return): a violation stops the command with one line naming the plug-in, the function and the field, exit 2. How to write one step by step: [plugins.md](plugins.md).",
    '',
    'Types are written as in TypeScript; `S` is a benchmark\'s own settings type (what its `resolve` returns) and `C` a method\'s. Import the types from `memrl` (`BenchmarkModule`, `MethodModule`, `TaskBase`, `Outcome`, ...).',
    '',
    ...toc,
    '',
  ];
  for (const g of CONTRACT_GROUPS) {
    parts.push(`## ${g.title}`, '', g.intro, '');
    for (const s of g.schemas) parts.push(section(s), '');
  }
  return `${parts.join('\n').trimEnd()}\n`;
}

function main(argv: readonly string[]): void {
  const path = join(packageRoot(), REFERENCE_PAGE);
  const page = renderPluginReference();
  if (argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(path, 'utf8');
    } catch {
      /* missing: stale */
    }
    if (current !== page) {
      process.stderr.write(`${REFERENCE_PAGE} is stale: run npm run docs\n`);
      process.exitCode = 1;
    }
    return;
  }
  writeFileSync(path, page);
  process.stdout.write(`wrote ${REFERENCE_PAGE}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));
