import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/app/config.js';
import { UserError } from '../../src/util/errors.js';
import { errorOf, tempYaml } from './helpers.js';

const ENV = { OPENAI_API_KEY: 'sk-test-0000' };

/** Loads YAML text from a temp file; returns the error message ('' if it loaded). */
function problem(text: string): string {
  const { dir } = tempYaml(text, 'x.yaml');
  return errorOf(() => loadConfig('x.yaml', {}, 'bcb', { env: ENV, cwd: dir }));
}

describe('config errors are one line naming file, line, key and fix', () => {
  it('unknown key: file, line, full path and a suggestion', () => {
    const message = problem('llm:\n  model: gpt-4o-mini\nmemory:\n  k_retreive: 5\n');
    expect(message).toBe('x.yaml:4: unknown key `memory.k_retreive` (did you mean `memory.k_retrieve`?)');
  });

  it('unknown section and keys put in the wrong section', () => {
    expect(problem('rl_confg:\n  topk: 3\n')).toBe('x.yaml:1: unknown key `rl_confg` (did you mean `rl_config`?)');
    expect(problem('memory:\n  topk: 3\n')).toBe('x.yaml:2: unknown key `memory.topk` (it belongs in `rl_config.topk`)');
    expect(problem('memrl:\n  bcb:\n    subsett: full\n')).toBe('x.yaml:3: unknown key `memrl.bcb.subsett` (did you mean `memrl.bcb.subset`?)');
  });

  it('wrong type names the key and the expected type', () => {
    expect(problem('memory:\n  k_retrieve: five\n')).toBe('x.yaml:2: `memory.k_retrieve` must be an integer, got "five"');
    expect(problem('memory:\n  k_retrieve: 2.5\n')).toMatch(/^x\.yaml:2: `memory\.k_retrieve` must be an integer/);
    expect(problem('rl_config:\n  epsilon: high\n')).toBe('x.yaml:2: `rl_config.epsilon` must be a number, got "high"');
    expect(problem('experiment:\n  save_memories: maybe\n')).toBe('x.yaml:2: `experiment.save_memories` must be true or false, got "maybe"');
    expect(problem('memory: 5\n')).toMatch(/^x\.yaml:1: `memory` must be a mapping/);
  });

  it('out-of-range and bad enum values', () => {
    expect(problem('llm:\n  temperature: 3\n')).toBe('x.yaml:2: `llm.temperature` must be <= 2, got 3');
    expect(problem('memory:\n  build_strategy: procedural\n')).toBe(
      'x.yaml:2: `memory.build_strategy` must be one of proceduralization, trajectory, script, got "procedural" (did you mean `proceduralization`?)',
    );
  });

  it('values the reference accepts but memrl cannot honour are rejected with the reason', () => {
    expect(problem('rl_config:\n  gamma: 0.9\n')).toMatch(/^x\.yaml:2: `rl_config\.gamma` is 0\.9: only 0 is supported/);
    expect(problem('memory:\n  retrieve_strategy: random\n')).toMatch(/^x\.yaml:2: `memory\.retrieve_strategy` is random: only `query`/);
    expect(problem('experiment:\n  algorithm: mdp\n')).toMatch(/`experiment\.algorithm` is mdp: only `rl` and `memp`/);
    expect(problem('memory:\n  load_from_checkpoint: true\n')).toMatch(/--resume/);
  });

  it('counts the other problems instead of hiding them', () => {
    expect(problem('memory:\n  k_retreive: 5\n  topk: 3\n')).toMatch(/\(and 1 more problem\)$/);
  });

  it('invalid YAML gives file, line and column', () => {
    expect(problem('llm:\n  model: [gpt\nmemory: {}\n')).toMatch(/^x\.yaml:3:\d+: invalid YAML: /);
    expect(problem('llm:\n  model: a\nllm:\n  model: b\n')).toMatch(/^x\.yaml:3:1: invalid YAML: .*unique/);
  });

  it('a file that is not a mapping, a missing file, an empty file', () => {
    expect(problem('- llm\n- memory\n')).toMatch(/^x\.yaml:1: a config file must be a mapping/);
    expect(errorOf(() => loadConfig('/nonexistent/memrl.yaml', {}, 'bcb', { env: ENV }))).toBe('/nonexistent/memrl.yaml: config file not found');
    expect(problem('# nothing here\n')).toBe('');
    // a section with every key commented out is empty, not an error
    expect(problem('memrl:\n  # limit: 5\nrl_config:\n')).toBe('');
  });

  it('throws UserError (exit code 2), with no newline in the message', () => {
    const { dir } = tempYaml('memory:\n  k_retreive: 5\n', 'x.yaml');
    try {
      loadConfig('x.yaml', {}, 'bcb', { env: ENV, cwd: dir });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(UserError);
      expect((err as UserError).exitCode).toBe(2);
      expect((err as UserError).message).not.toContain('\n');
    }
  });

  it('accepts what pydantic accepts: quoted numbers and yes/no booleans', () => {
    const { dir } = tempYaml('memory:\n  k_retrieve: "7"\nexperiment:\n  bcb_run_validation: "yes"\n', 'x.yaml');
    const cfg = loadConfig('x.yaml', {}, 'bcb', { env: ENV, cwd: dir });
    expect(cfg.memory.k1).toBe(7);
    expect(cfg.run.runValidation).toBe(true);
  });
});
