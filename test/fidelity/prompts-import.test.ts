/**
 * `memrl prompts import`: reading prompt strings out of a MemRL-like Python tree with
 * the ast reader. The trees here are synthetic (our own text in the reference's
 * layout): one written by hand for every kind of locator, and one generated from
 * memrl's real location tables, so the tables are checked without the reference.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importReferencePrompts } from '../../src/app/prompts/import.js';
import { loadPack, promptNamespaces, type PromptNamespace } from '../../src/app/prompts/pack.js';
import { builtinRegistry } from '../../src/app/registry.js';
import type { ReferencePrompt } from '../../src/core/index.js';
import { UserError } from '../../src/util/errors.js';
import { syntheticCheckout } from '../helpers/reference-checkout.js';

const work = mkdtempSync(join(tmpdir(), 'memrl-prompt-import-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/** A namespace whose own templates use `vars`, mapped onto `reference`. */
function namespace(name: string, templates: Record<string, string>, reference: ReferencePrompt[]): PromptNamespace {
  const dir = join(work, `own-${name}-${Math.random().toString(36).slice(2)}`);
  writeTree(dir, templates);
  return { name, dir, reference };
}

const registry = builtinRegistry();

describe('the ast reader, on a hand-written tree', () => {
  const checkout = join(work, 'synthetic');
  writeTree(checkout, {
    'memrl/__init__.py': '',
    'memrl/agent/prompts.py': [
      'BASE = """',
      'Solve the household chore step by step.',
      '""".strip()',
      '',
      'SUFFIX = "Reply with one action."',
      '',
      'class Texts:',
      '    HEADER = ("Past notes " "you may use")',
      '',
      'def build(task_description, notes):',
      '    """Docstrings are not prompts."""',
      '    intro = f"Chore: {task_description}\\n" + SUFFIX',
      '    lines = [f"- {n}" for n in notes]',
      '    return intro, "literal two", lines',
    ].join('\n'),
    'memrl/run/judge.py': [
      'class Judge:',
      '    def __init__(self):',
      '        self.TEMPLATE = (',
      '            "Question: {question}\\n"',
      '            "Answer: {response}\\n"',
      '            "Format as {{\\"ok\\": true}}"',
      '        )',
    ].join('\n'),
  });
  const space = namespace(
    'toy',
    {
      'system.md': 'ours {{task}}\n',
      'header.md': 'ours\n',
      'judge.md': '{{question}} {{answer}}\n',
      'item.md': '{{note}}\n',
      'second.md': 'x\n',
    },
    [
      { slot: 'system.md', from: ['memrl/agent/prompts.py:BASE', 'memrl/agent/prompts.py:build:intro'], join: '\n\n', fields: { task_description: 'task' } },
      { slot: 'header.md', from: ['memrl/agent/prompts.py:Texts.HEADER'] },
      { slot: 'judge.md', from: ['memrl/run/judge.py:Judge.__init__:self.TEMPLATE'], format: true, fields: { question: 'question', response: 'answer' } },
      { slot: 'item.md', from: ['memrl/agent/prompts.py:build@2'], fields: { n: 'note' } },
      { slot: 'second.md', from: ['memrl/agent/prompts.py:build@3'] },
    ],
  );

  it('reads constants, .strip(), class attributes, f-strings, + and names, .format templates and the n-th literal', () => {
    const out = join(work, 'pack-a');
    const result = importReferencePrompts(checkout, out, registry, [space]);
    const read = (slot: string) => readFileSync(join(out, 'toy', slot), 'utf8');
    expect(read('system.md')).toBe('Solve the household chore step by step.\n\nChore: {{task}}\nReply with one action.');
    expect(read('header.md')).toBe('Past notes you may use');
    // A .format template: fields renamed, {{ }} escapes become single braces.
    expect(read('judge.md')).toBe('Question: {{question}}\nAnswer: {{answer}}\nFormat as {"ok": true}');
    expect(read('item.md')).toBe('- {{note}}');
    expect(read('second.md')).toBe('literal two');
    expect(result.imported.sort()).toEqual(['toy/header.md', 'toy/item.md', 'toy/judge.md', 'toy/second.md', 'toy/system.md']);
    expect(result.commit).toBeNull();
    expect(JSON.parse(readFileSync(join(out, 'pack.json'), 'utf8'))).toMatchObject({ name: 'memrl-reference' });
    expect(result.pack.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('records the checkout\'s git commit in the pack', () => {
    const git = (...args: string[]) => execFileSync('git', ['-C', checkout, ...args], { encoding: 'utf8' }).trim();
    git('init', '-q');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'add', '.');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'synthetic');
    const head = git('rev-parse', 'HEAD');
    const result = importReferencePrompts(checkout, join(work, 'pack-b'), registry, [space]);
    expect(result.commit).toBe(head);
    expect(result.pack.source).toContain(head);
  });

  it('names every string it cannot find, one line each, and writes nothing', () => {
    const broken = namespace('toy', { 'system.md': 'x\n', 'header.md': 'x\n', 'item.md': '{{note}}\n' }, [
      { slot: 'system.md', from: ['memrl/agent/prompts.py:GONE'] },
      { slot: 'header.md', from: ['memrl/agent/missing.py:X'] },
      { slot: 'item.md', from: ['memrl/agent/prompts.py:build@2'] },
    ]);
    const out = join(work, 'pack-c');
    let err: unknown;
    try {
      importReferencePrompts(checkout, out, registry, [broken]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserError);
    const lines = (err as Error).message.split('\n');
    expect(lines[0]).toMatch(/^cannot import 3 prompts from .*synthetic/);
    expect(lines.slice(1)).toEqual([
      "  toy/system.md ← memrl/agent/prompts.py:GONE: nothing assigned to 'GONE'",
      '  toy/header.md ← memrl/agent/missing.py:X: no file memrl/agent/missing.py',
      '  toy/item.md ← memrl/agent/prompts.py:build@2: field {n} has no memrl variable in the mapping',
    ]);
    expect(() => readFileSync(join(out, 'pack.json'))).toThrow();
  });

  it('refuses a folder that is not a MemRL checkout, and an output folder holding other files', () => {
    expect(() => importReferencePrompts(join(work, 'nothing-here'), join(work, 'o'), registry, [space])).toThrow(/no such folder/);
    const plain = join(work, 'plain');
    writeTree(plain, { 'README.md': 'x' });
    expect(() => importReferencePrompts(plain, join(work, 'o'), registry, [space])).toThrow(/not a MemRL checkout \(no memrl\/ package/);
    expect(() => importReferencePrompts(checkout, plain, registry, [space])).toThrow(/exists and is not a prompt pack/);
  });
});

describe('memrl\'s own location tables', () => {
  const spaces = promptNamespaces(registry);

  it('cover every prompt namespace (memory and each benchmark)', () => {
    for (const space of spaces) expect(space.reference.length, `no reference prompt locations for ${space.name}`).toBeGreaterThan(0);
  });

  it('name only template files memrl has, and import from a tree in the reference\'s layout into a valid pack', () => {
    const checkout = join(work, 'from-tables');
    writeTree(checkout, syntheticCheckout(spaces));
    const out = join(work, 'pack-tables');
    const result = importReferencePrompts(checkout, out, registry);
    const expected = spaces.flatMap((s) => s.reference.map((r) => `${s.name}/${r.slot}`));
    expect(result.imported.sort()).toEqual([...new Set(expected)].sort());
    // loadPack checks each file is one of memrl's templates and uses only placeholders memrl fills.
    expect(loadPack(out, registry).overrides.sort()).toEqual([...new Set(expected)].sort());
  });
});
