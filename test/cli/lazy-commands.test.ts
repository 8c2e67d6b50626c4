/**
 * The CLI lists its commands without loading them (for a fast `memrl --help`): the
 * listing must say what each command, once loaded, says of itself.
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { builtinRegistry } from '../../src/app/registry.js';
import { buildProgram, COMMANDS, prescan } from '../../src/cli/main.js';

describe('lazily loaded commands', () => {
  it('each listed description is the loaded command\'s own', async () => {
    const listed = new Map(buildProgram().commands.map((c) => [c.name(), c.description()]));
    for (const entry of COMMANDS) {
      const program = new Command('memrl');
      await entry.register(program, builtinRegistry());
      const real = program.commands.find((c) => c.name() === entry.name);
      expect(real, entry.name).toBeDefined();
      expect(listed.get(entry.name), entry.name).toBe(real!.description());
    }
  });

  it('prescan finds the command and the plug-ins, however they are written', () => {
    expect(prescan(['run', 'bcb', '--epochs', '3'])).toEqual({ command: 'run', plugins: [] });
    expect(prescan(['--plugin', 'a.ts', 'run', 'x', '--plugin=b.js', '--', '--plugin', 'c'])).toEqual({ command: 'run', plugins: ['a.ts', 'b.js'] });
    expect(prescan(['help', 'config']).command).toBe('config');
    expect(prescan(['config', '--benchmark', 'llb', 'x.yaml']).command).toBe('config');
  });
});
