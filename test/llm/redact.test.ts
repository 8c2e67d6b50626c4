import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/llm/redact.js';

describe('redactSecrets', () => {
  const KEY = 'azJUDGEcanary4k9PmQ2wX7hT';

  it('removes masked echoes of a held key of any shape, whichever side is kept', () => {
    for (const echo of [`${KEY.slice(0, 6)}...${KEY.slice(-9)}`, `${KEY.slice(0, 4)}****${KEY.slice(-4)}`, `****${KEY.slice(-5)}`, `${KEY.slice(0, 8)}…`]) {
      const out = redactSecrets(`Invalid key: ${echo}. Try again`, [KEY]);
      expect(out, echo).toBe('Invalid key: ***. Try again');
    }
  });

  it('leaves ordinary ellipses and masks that are not the key alone', () => {
    expect(redactSecrets('waiting... done; total ***** stars; abc...xyz', [KEY])).toBe('waiting... done; total ***** stars; abc...xyz');
  });
});
