import { describe, expect, it } from 'vitest';
import { matplotlibFontList } from '../../../src/env/python-tests/local.js';
import { requireBcbPython } from '../require-sandbox.js';

const env = await requireBcbPython();

describe.skipIf(env.skip)('matplotlib font list for sandboxes', () => {
  it('is built once, in the sandbox, as the file matplotlib expects', async () => {
    expect(env.ok, env.reason).toBe(true);
    const list = await matplotlibFontList('/usr/bin/python3');
    expect(list?.name).toMatch(/^fontlist-v\d+\.json$/);
    const parsed = JSON.parse(list?.json ?? '{}') as { ttflist?: { fname: string }[] };
    expect(parsed.ttflist?.length).toBeGreaterThan(0);
    // System fonts under /usr or matplotlib's own (relative to its data dir); nothing from a home directory.
    const outside = parsed.ttflist?.filter((f) => f.fname.startsWith('/') && !f.fname.startsWith('/usr/')) ?? [];
    expect(outside).toEqual([]);
    expect(await matplotlibFontList('/usr/bin/python3')).toBe(list);
  });

  it('is null when the interpreter cannot build it (runs then just rescan fonts)', async () => {
    expect(await matplotlibFontList('/nonexistent/python3')).toBeNull();
  });
});
