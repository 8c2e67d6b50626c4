import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cachedFontList, fontListCacheDir, forgetFontLists, type MatplotlibFontList } from '../../../src/env/python-tests/fontlist.js';
import { matplotlibFontList } from '../../../src/env/python-tests/local.js';
import { tempDir } from '../../helpers/temp.js';
import { requireBcbPython } from '../require-sandbox.js';

const env = await requireBcbPython();

// Every test keeps its lists in a folder of its own, and starts as a new process would.
let savedCacheHome: string | undefined;
beforeEach(() => {
  savedCacheHome = process.env.XDG_CACHE_HOME;
  process.env.XDG_CACHE_HOME = tempDir('memrl-fontcache-');
  forgetFontLists();
});
afterEach(() => {
  if (savedCacheHome === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = savedCacheHome;
  forgetFontLists();
});

describe('font lists kept between processes', () => {
  const list = (tag: string): MatplotlibFontList => ({ name: 'fontlist-v330.json', json: JSON.stringify({ tag }) });

  it('a list built under a fingerprint is read back by the next process instead of built; another fingerprint builds again', async () => {
    let builds = 0;
    const build = async () => list(`built ${++builds}`);
    expect(await cachedFontList('k', build, async () => 'fonts A')).toEqual(list('built 1'));
    forgetFontLists(); // a new process
    expect(await cachedFontList('k', build, async () => 'fonts A')).toEqual(list('built 1'));
    expect(builds).toBe(1);
    forgetFontLists();
    expect(await cachedFontList('k', build, async () => 'fonts B')).toEqual(list('built 2'));
    expect(builds).toBe(2);
  });

  it('no fingerprint, a failed build, or an unreadable kept file: built (again), and nothing wrong is kept', async () => {
    let builds = 0;
    const build = async () => list(`built ${++builds}`);
    await cachedFontList('k', build, async () => null);
    forgetFontLists();
    await cachedFontList('k', build, () => Promise.reject(new Error('helper failed')));
    expect(builds).toBe(2);
    forgetFontLists();
    expect(await cachedFontList('k', async () => null, async () => 'fonts C')).toBeNull();
    forgetFontLists();
    expect(await cachedFontList('k', build, async () => 'fonts C')).toEqual(list('built 3'));
    // A damaged file is rebuilt and replaced.
    expect(readdirSync(fontListCacheDir())).toHaveLength(1);
    for (const f of readdirSync(fontListCacheDir())) writeFileSync(join(fontListCacheDir(), f), '{"name": "fontlist-v330.json", "js');
    forgetFontLists();
    expect(await cachedFontList('k', build, async () => 'fonts C')).toEqual(list('built 4'));
    forgetFontLists();
    expect(await cachedFontList('k', build, async () => 'fonts C')).toEqual(list('built 4'));
  });
});

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

  it('is kept on disk under a fingerprint the sandbox reads, and the next process takes it from there', async () => {
    expect(env.ok, env.reason).toBe(true);
    const built = await matplotlibFontList('/usr/bin/python3');
    const files = readdirSync(fontListCacheDir());
    expect(files).toHaveLength(1);
    const file = join(fontListCacheDir(), files[0]!);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(built);
    // Marked on disk: a new process that returns the mark read the file rather than building.
    writeFileSync(file, JSON.stringify({ name: built!.name, json: '{"marked": true}' }));
    forgetFontLists();
    expect((await matplotlibFontList('/usr/bin/python3'))?.json).toBe('{"marked": true}');
  });

  it('is null when the interpreter cannot build it (runs then just rescan fonts)', async () => {
    expect(await matplotlibFontList('/nonexistent/python3')).toBeNull();
    expect(existsSync(fontListCacheDir())).toBe(false);
  });
});
