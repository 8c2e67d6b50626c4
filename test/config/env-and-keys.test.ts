import { describe, expect, it } from 'vitest';
import { interpolateEnv } from '../../src/config/interpolate.js';
import { loadConfig } from '../../src/app/config.js';
import { errorOf, tempYaml } from './helpers.js';

function load(text: string, env: Record<string, string>, inspect = false) {
  const { dir } = tempYaml(text, 'x.yaml');
  return loadConfig('x.yaml', {}, 'bcb', { env, cwd: dir, inspect });
}

describe('${ENV} interpolation', () => {
  it('substitutes ${VAR} and ${VAR:-default} (default when unset or empty)', () => {
    const { value, problems } = interpolateEnv(
      { a: '${A}', b: 'pre-${B:-fallback}-post', c: '${C:-x}', d: ['${A}'], e: 3 },
      { A: 'alpha', C: '' },
    );
    expect(problems).toEqual([]);
    expect(value).toEqual({ a: 'alpha', b: 'pre-fallback-post', c: 'x', d: ['alpha'], e: 3 });
  });

  it('$${ is a literal ${, and malformed expressions are reported', () => {
    expect(interpolateEnv({ a: 'cost $${HOME}' }, { HOME: '/root' }).value).toEqual({ a: 'cost ${HOME}' });
    const { problems } = interpolateEnv({ a: '${not valid}' }, {});
    expect(problems[0]?.path).toEqual(['a']);
    expect(problems[0]?.message).toMatch(/malformed/);
  });

  it('a missing variable names the variable, the key and the line', () => {
    const message = errorOf(() => load('llm:\n  provider: openai\n  api_key: ${MY_LLM_KEY}\n', {}));
    expect(message).toBe('x.yaml:3: `llm.api_key`: environment variable MY_LLM_KEY is not set; export it, or write ${MY_LLM_KEY:-default}');
  });

  it('interpolated numbers are numbers', () => {
    const cfg = load('memory:\n  k_retrieve: ${K}\nrl_config:\n  epsilon: ${EPS:-0.25}\n', { K: '8', OPENAI_API_KEY: 'sk-t' });
    expect(cfg.memory.k1).toBe(8);
    expect(cfg.memory.epsilon).toBe(0.25);
  });

  it('inspecting tolerates unset variables and says so', () => {
    const cfg = load('llm:\n  api_key: ${MY_LLM_KEY}\n', {}, true);
    expect(cfg.notes.join('\n')).toMatch(/MY_LLM_KEY is not set/);
  });
});

describe('API keys and base URLs', () => {
  it('a placeholder key is replaced by $OPENAI_API_KEY for OpenAI\'s endpoint', () => {
    for (const placeholder of ['sk-REPLACE_ME', 'API', 'sk-8', '""']) {
      const cfg = load(`llm:\n  api_key: ${placeholder}\nembedding:\n  api_key: ${placeholder}\n`, { OPENAI_API_KEY: 'sk-from-env' });
      expect(cfg.llm.apiKey).toBe('sk-from-env');
      expect(cfg.embedding.apiKey).toBe('sk-from-env');
    }
  });

  it('a real key in the file wins over the environment', () => {
    const cfg = load('llm:\n  api_key: sk-in-file\nembedding:\n  api_key: sk-emb-in-file\n', { OPENAI_API_KEY: 'sk-from-env' });
    expect(cfg.llm.apiKey).toBe('sk-in-file');
    expect(cfg.embedding.apiKey).toBe('sk-emb-in-file');
  });

  it('BASEURL → $OPENAI_BASE_URL (else OpenAI), and the env key goes with it', () => {
    const cfg = load('llm:\n  api_key: API\n  base_url: BASEURL\nembedding:\n  api_key: API\n  base_url: BASEURL\n', {
      OPENAI_API_KEY: 'sk-from-env',
      OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1',
    });
    expect(cfg.llm.baseUrl).toBe('http://127.0.0.1:8000/v1');
    expect(cfg.llm.apiKey).toBe('sk-from-env');
    expect(load('llm:\n  base_url: BASEURL\n', { OPENAI_API_KEY: 'k' }).llm.baseUrl).toBe('https://api.openai.com/v1');
  });

  it('never sends $OPENAI_API_KEY to a third-party host written in the file', () => {
    const cfg = load('llm:\n  api_key: API\n  base_url: http://localhost:11434/v1\nembedding:\n  provider: local\n', { OPENAI_API_KEY: 'sk-secret-openai' });
    expect(cfg.llm.apiKey).not.toBe('sk-secret-openai');
    expect(cfg.llm.apiKey).toBe('API');
    expect(cfg.notes.join('\n')).toMatch(/sent as is to localhost:11434/);
  });

  it('offline providers need no key', () => {
    const cfg = load('llm:\n  provider: sim\nembedding:\n  provider: local\n', {});
    expect(cfg.llm.apiKey).toBeNull();
    expect(cfg.embedding).toMatchObject({ provider: 'local', apiKey: null, dim: 512 });
  });
});
