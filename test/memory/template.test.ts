import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTemplate, placeholders, render } from '../../src/util/template.js';
import { tempDir } from '../helpers/temp.js';

describe('render', () => {
  it('fills placeholders, tolerating spaces inside the braces', () => {
    expect(render('Task: {{task}} / {{ n }}', { task: 'sort', n: 3 })).toBe('Task: sort / 3');
  });

  it('inserts values verbatim, without expanding braces inside them', () => {
    expect(render('{{a}}', { a: 'x {{b}} y', b: 'NO' })).toBe('x {{b}} y');
  });

  it('names an unknown placeholder and the source', () => {
    expect(() => render('Hi {{nmae}}', { name: 'x' }, 'greeting.md')).toThrow(/\{\{nmae\}\} in greeting\.md/);
  });

  it('lists placeholders in first-use order', () => {
    expect(placeholders('{{b}} {{a}} {{b}}')).toEqual(['b', 'a']);
  });
});

describe('loadTemplate', () => {
  it('prefers a file in the override dir and falls back per file', () => {
    const dir = tempDir('memrl-tpl-');
    writeFileSync(join(dir, 'script.md'), 'mine {{task}}');
    const own = loadTemplate('src/memory/prompts', 'script.md', dir);
    expect(own).toEqual({ text: 'mine {{task}}', path: join(dir, 'script.md') });
    const shipped = loadTemplate('src/memory/prompts', 'reflection.md', dir);
    expect(shipped.path).toMatch(/src[\\/]memory[\\/]prompts[\\/]reflection\.md$/);
    expect(placeholders(shipped.text).sort()).toEqual(['task', 'trajectory']);
  });

  it('reports a missing template with its path', () => {
    expect(() => loadTemplate('src/memory/prompts', 'nope.md')).toThrow(/nope\.md/);
  });
});
