/**
 * Fidelity profiles and switches through the config: what `reference` and `fixed` set,
 * per-switch overrides from the YAML and the command line, and one clear line for an
 * unknown switch. A toy method declares its own switches, so these tests do not depend
 * on which switches the built-in modules declare.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/app/config.js';
import { builtinRegistry, withPlugins } from '../../src/app/registry.js';
import type { MethodModule } from '../../src/core/index.js';
import { Command } from 'commander';
import { addRunOptions, runFlagsFromOptions } from '../../src/cli/run-flags.js';
import { errorOf, tempYaml } from '../config/helpers.js';

const toy: MethodModule = {
  kind: 'method',
  name: 'toy',
  displayName: 'Toy',
  description: 'declares two fidelity switches',
  fidelitySwitches: [
    { id: 'toy.parse-bug', class: 'bug', reference: 'drops the last line', memrl: 'keeps it', source: 'memrl/x.py:parse' },
    { id: 'toy.style', class: 'choice', reference: 'terse', memrl: 'verbose', source: 'memrl/x.py:style' },
  ],
  create: () => {
    throw new Error('not run');
  },
};
/** `memrl run bcb <args>` parsed into flag values, as the CLI does. */
function parseRunFlags(args: string[]): Record<string, unknown> {
  let flags: Record<string, unknown> = {};
  const cmd = addRunOptions(new Command('bcb').exitOverride().configureOutput({ writeErr: () => {} }), 'bcb', registry);
  cmd.action((opts: Record<string, unknown>) => {
    flags = runFlagsFromOptions(opts, 'bcb', registry);
  });
  cmd.parse(args, { from: 'user' });
  return flags;
}

const registry = withPlugins(builtinRegistry(), [{ origin: 'toy.ts', benchmarks: [], methods: [toy] }]);

function load(yaml: string, flags: Record<string, unknown> = {}) {
  const { dir } = tempYaml(yaml, 'c.yaml');
  return loadConfig('c.yaml', flags, 'bcb', { registry, env: { OPENAI_API_KEY: 'sk-x' }, cwd: dir });
}

describe('fidelity profiles', () => {
  it('reference (the default) keeps every switch at the reference', () => {
    const { fidelity } = load('');
    expect(fidelity.profile).toBe('reference');
    expect(fidelity.memrl('toy.parse-bug')).toBe(false);
    expect(fidelity.memrl('toy.style')).toBe(false);
  });

  it('fixed corrects the bugs and keeps the choices', () => {
    const { fidelity } = load('memrl:\n  fidelity: fixed\n');
    expect(fidelity.settings).toMatchObject({ 'toy.parse-bug': 'memrl', 'toy.style': 'reference' });
  });

  it('single switches override the profile, from the YAML and from --fidelity-switch', () => {
    const fromYaml = load('memrl:\n  fidelity: fixed\n  fidelity_switches:\n    toy.parse-bug: reference\n    toy.style: memrl\n').fidelity;
    expect(fromYaml.settings).toMatchObject({ 'toy.parse-bug': 'reference', 'toy.style': 'memrl' });
    const flags = parseRunFlags(['--fidelity', 'fixed', '--fidelity-switch', 'toy.style=memrl']);
    expect(load('', flags).fidelity.settings).toMatchObject({ 'toy.parse-bug': 'memrl', 'toy.style': 'memrl' });
  });

  it('an unknown switch in the file is one line naming the file, the key and the closest switch', () => {
    const message = errorOf(() => load('memrl:\n  fidelity_switches:\n    toy.parse-bg: memrl\n'));
    expect(message).toMatch(/c\.yaml:3.*unknown fidelity switch 'toy\.parse-bg' \(did you mean 'toy\.parse-bug'\?\)/);
    expect(message.split('\n')).toHaveLength(1);
  });

  it('a setting other than reference or memrl, or a profile other than reference or fixed, is refused', () => {
    expect(errorOf(() => load('memrl:\n  fidelity_switches:\n    toy.style: on\n'))).toMatch(/c\.yaml:3.*toy\.style/);
    expect(errorOf(() => load('memrl:\n  fidelity: exact\n'))).toMatch(/c\.yaml:2.*fidelity/);
    expect(errorOf(() => parseRunFlags(['--fidelity-switch', 'toy.style']))).toMatch(/Expected <switch-id>=reference or <switch-id>=memrl/);
  });

  it('a switch id no module declared is a programming error, not a silent reference setting', () => {
    expect(() => load('').fidelity.memrl('toy.nonexistent')).toThrow(/not declared/);
  });
});
