/** The one redaction place: what a secret looks like on a command line, in a URL, in a header or a config. */
import { describe, expect, it } from 'vitest';
import { redactArgv, redactSecrets, redactTree, redactUrlCredentials } from '../../src/util/redact.js';

describe('redaction', () => {
  it('a command line: secret flags in both forms, NAME=value words, URL credentials in any word; the rest as given', () => {
    expect(
      redactArgv([
        'run', 'bcb', '--api-key', 'sk-abc123secret', '--hf-token=hf_abcdefghijkl', '--base-url', 'http://user:PASSWORD@host:8000/v1',
        '--queue', 'redis://:QPASS@127.0.0.1:6379', 'HF_TOKEN=hf_zzzzzzzzzzzz', '--api-key-env', 'MY_KEY', '--epochs', '3', '--token', 'tok-plain',
      ]),
    ).toEqual([
      'run', 'bcb', '--api-key', '<redacted>', '--hf-token=<redacted>', '--base-url', 'http://<redacted>@host:8000/v1',
      '--queue', 'redis://<redacted>@127.0.0.1:6379', 'HF_TOKEN=<redacted>', '--api-key-env', 'MY_KEY', '--epochs', '3', '--token', '<redacted>',
    ]);
  });

  it('URLs: user and password, key-like query parameters; a URL without them unchanged', () => {
    expect(redactUrlCredentials('https://me:pw@example.com/v1?api-key=abc&x=1')).toBe('https://<redacted>@example.com/v1?api-key=<redacted>&x=1');
    expect(redactUrlCredentials('rediss://:pw@cache:6380')).toBe('rediss://<redacted>@cache:6380');
    expect(redactUrlCredentials('http://127.0.0.1:8000/v1')).toBe('http://127.0.0.1:8000/v1');
  });

  it('text: URLs inside it, headers and key shapes', () => {
    const text = 'failed: POST http://u:SECRETPW@h/v1 with authorization: Bearer sk-live-1234567890 and x-api-key: abcdef123456; token=hf_abcdefgh12345678';
    const out = redactSecrets(text);
    for (const piece of ['SECRETPW', 'sk-live-1234567890', 'abcdef123456', 'hf_abcdefgh12345678']) expect(out).not.toContain(piece);
    expect(out).toContain('http://<redacted>@h/v1');
    expect(redactSecrets('Authorization: Basic dXNlcjpwYXNzd29yZA==')).toBe('Authorization: Basic ***');
  });

  it('a config tree: secret-named keys (placeholders kept when asked), URL credentials anywhere, the recorded command, other text as it is', () => {
    const tree = {
      llm: { api_key: 'sk-real-key-123456', base_url: 'http://a:b@h/v1', temperature: 0 },
      judge: { api_key: 'sk-REPLACE_ME' },
      hub: { hf_token: 'hf_secretsecret', token_budget: 5 },
      note: 'see http://x:y@h/path for details; max_tokens: 40',
      command: ['memrl', 'run', '--queue', 'redis://:p@h:1'],
    };
    expect(redactTree(tree, (v) => v === 'sk-REPLACE_ME')).toEqual({
      llm: { api_key: '<redacted>', base_url: 'http://<redacted>@h/v1', temperature: 0 },
      judge: { api_key: 'sk-REPLACE_ME' },
      hub: { hf_token: '<redacted>', token_budget: 5 },
      note: 'see http://<redacted>@h/path for details; max_tokens: 40',
      command: ['memrl', 'run', '--queue', 'redis://<redacted>@h:1'],
    });
  });
});
