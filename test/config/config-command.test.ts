import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { registerConfigCommand } from '../../src/cli/commands/config.js';
import { REDACTED, redactConfig } from '../../src/config/redact.js';
import { REFERENCE_DIR, tempYaml } from './helpers.js';

const SECRET = 'sk-proj-VERYSECRET-4242abcd';

async function runConfig(args: string[], env: Record<string, string | undefined> = {}): Promise<{ out: string; err: string; code: number | undefined }> {
  let out = '';
  let err = '';
  const saved = { ...process.env };
  Object.assign(process.env, env);
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k];
  const outSpy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  const errSpy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((err += String(chunk)), true));
  try {
    const program = new Command('memrl').exitOverride();
    registerConfigCommand(program);
    await program.parseAsync(['config', ...args], { from: 'user' });
  } finally {
    outSpy.mockRestore();
    errSpy.mockRestore();
    process.env = saved;
  }
  return { out, err, code: process.exitCode === undefined ? undefined : Number(process.exitCode) };
}

beforeEach(() => {
  process.exitCode = undefined;
});
afterEach(() => {
  process.exitCode = undefined;
});

describe('memrl config', () => {
  it('prints the resolved config as loadable YAML and lists the inert keys present', async () => {
    const { out, code } = await runConfig([`${REFERENCE_DIR}/rl_bcb_config.yaml`], { OPENAI_API_KEY: SECRET });
    expect(code).toBeUndefined();
    const tree = parseYaml(out) as Record<string, Record<string, unknown>>;
    expect(tree.rl_config).toMatchObject({ epsilon: 0.1, topk: 5, q_min_threshold: -0.8 });
    expect(tree.memrl).toBeDefined();
    expect(out).toMatch(/^# inert keys in the file/m);
    expect(out).toMatch(/^#\s+rl_config\.novelty_threshold: never read by the reference/m);
    // Only HLE's Self-RAG and Mem0 read tau (the reference's HLE baseline scripts do).
    expect(out).toMatch(/^# keys in the file that bcb does not read: .*rl_config\.tau/m);
    expect(out).toContain('method memrl');
  });

  it('never prints an API key, from the environment or from the file', async () => {
    const fromEnv = await runConfig([`${REFERENCE_DIR}/rl_bcb_config.yaml`, '--derived'], { OPENAI_API_KEY: SECRET });
    expect(fromEnv.out).not.toContain(SECRET);
    expect(fromEnv.out).toContain(REDACTED);

    const { file } = tempYaml(`llm:\n  api_key: ${SECRET}\n  base_url: https://user:pw-${SECRET}@llm.example.com/v1\nembedding:\n  provider: local\n`);
    for (const extra of [[], ['--derived']]) {
      const { out, code } = await runConfig([file, ...extra], { OPENAI_API_KEY: undefined });
      expect(code).toBeUndefined();
      expect(out).not.toContain(SECRET);
      expect(out).not.toContain('VERYSECRET');
    }
  });

  it('applies run flags (snake_case too) and the benchmark\'s defaults', async () => {
    const { out } = await runConfig([`${REFERENCE_DIR}/rl_llb_config.yaml`, '--benchmark', 'llb', '--derived', '--retrieve_k', '3'], { OPENAI_API_KEY: SECRET });
    const derived = parseYaml(out) as { memory: Record<string, unknown>; run: Record<string, unknown> };
    expect(derived.memory).toMatchObject({ k1: 3, qFloor: 0, qInitPos: 0.5 });
    expect(derived.run).toMatchObject({ epochs: 20, batchSize: 5 });
  });

  it('takes the run flags of the benchmark it is told, not only BCB\'s', async () => {
    const { out, code } = await runConfig(['--benchmark', 'llb', '--task', 'os', '--max-steps', '9', '--derived']);
    expect(code).toBeUndefined();
    const derived = parseYaml(out) as { bench: Record<string, unknown>; run: Record<string, unknown> };
    expect(derived.bench).toMatchObject({ task: 'os' });
    expect(derived.run).toMatchObject({ maxSteps: 9 });
    const alf = await runConfig(['--benchmark', 'alfworld', '--split', 'valid_unseen', '--derived']);
    expect((parseYaml(alf.out) as { bench: Record<string, unknown> }).bench).toMatchObject({ validSplit: 'valid_unseen' });
  });

  it('a bad file gives one line on stderr and exit code 2', async () => {
    const { file } = tempYaml('memory:\n  k_retreive: 5\n');
    const { out, err, code } = await runConfig([file]);
    expect(out).toBe('');
    expect(err.trim().split('\n')).toHaveLength(1);
    expect(err).toContain('unknown key `memory.k_retreive` (did you mean `memory.k_retrieve`?)');
    expect(code).toBe(2);
  });

  it('--explain lists every key with its default and marks inert ones', async () => {
    const { out } = await runConfig(['--explain', '--benchmark', 'llb']);
    expect(out).toMatch(/memory\.k_retrieve\s+\(integer >= 0; default 10\)/);
    expect(out).toMatch(/rl_config\.novelty_threshold .*\[inert\]/);
    expect(out).toMatch(/rl_config\.tau .*\[only hle\]/);
    expect(out).toMatch(/experiment\.llb_q_floor .*default 0\).*\[only llb\]/);
  });
});

describe('redactConfig', () => {
  it('redacts api keys at any depth and leaves placeholders and other values alone', () => {
    const input = { llm: { api_key: SECRET, model: 'm' }, nested: [{ apiKey: SECRET }], embedding: { api_key: 'sk-REPLACE_ME' }, max_tokens: 5 };
    const out = redactConfig(input);
    expect(out).toEqual({ llm: { api_key: REDACTED, model: 'm' }, nested: [{ apiKey: REDACTED }], embedding: { api_key: 'sk-REPLACE_ME' }, max_tokens: 5 });
    expect(input.llm.api_key).toBe(SECRET); // a copy, not in place
  });

  it('redacts credentials inside URLs', () => {
    const out = redactConfig({ base_url: 'https://u:p@h.example/v1?api-key=abc&x=1' });
    expect(out.base_url).not.toContain('u:p');
    expect(out.base_url).not.toContain('abc');
    expect(out.base_url).toContain('x=1');
  });
});
