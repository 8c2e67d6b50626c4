/**
 * Every command's --help ends with examples a user can copy (through the built CLI), and
 * the examples of `memory`, `check-gold` and `prompts` name commands and flags that exist.
 */
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/main.js';
import { assertBuilt, runMemrl } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const work = tempDir('memrl-help-');
const help = (args: string[]) => runMemrl([...args, '--help'], { cwd: work });

/** The command lines of the "Examples:" block of a --help text. */
function examplesOf(help: string): string[] {
  const block = help.split('\nExamples:\n')[1] ?? '';
  return block
    .split('\n')
    .filter((l) => l.startsWith('  memrl '))
    .map((l) => l.replace(/#.*$/, '').trim());
}

describe('--help examples', () => {
  it.each(COMMANDS.map((c) => c.name))('memrl %s --help shows examples of it', async (name) => {
    assertBuilt();
    const r = await help([name]);
    expect(r.code).toBe(0);
    const lines = examplesOf(r.stdout);
    expect(lines.filter((l) => l.startsWith(`memrl ${name}`)).length, r.stdout).toBeGreaterThan(0);
  });

  it.each(['memory', 'check-gold', 'prompts'])('the examples of memrl %s name real commands and flags', async (name) => {
    const lines = examplesOf((await help([name])).stdout);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) {
      const words = line.split(/\s+/).slice(1);
      // The command path: the leading words that are command names (a file or a flag ends it).
      const end = words.findIndex((w) => !/^[a-z][a-z-]*$/.test(w));
      const path = end < 0 ? words : words.slice(0, end);
      const r = await help(path);
      expect(r.code, line).toBe(0);
      expect(r.stdout, line).toMatch(new RegExp(`^Usage: memrl ${path.join(' ')} `));
      for (const flag of words.filter((w) => w.startsWith('--'))) expect(r.stdout, `${line}: ${flag}`).toContain(flag);
    }
  });
});
