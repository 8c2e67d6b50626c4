/**
 * matplotlib's font list, made once per interpreter (or container image) and handed
 * to every test run.
 *
 * Each sandbox starts with an empty /tmp, so matplotlib would rescan every system
 * font on `import matplotlib.pyplot` in every test run: about 1.4 s of a 1.8 s
 * median task here. The list is built in a sandbox like the ones that use it (same
 * fonts, same paths, no personal fonts) and travels in the harness input, so no
 * host file has to be readable by the sandbox user, and a task that overwrites its
 * copy only affects itself. Each backend builds it where its tests run (a sandbox, a
 * container of the image) with FONTLIST_SCRIPT, once per key (cachedFontList).
 */

export interface MatplotlibFontList {
  /** File name matplotlib expects, e.g. fontlist-v330.json (the version is matplotlib's). */
  name: string;
  json: string;
}

/** Prints {"name", "json"} of the font list matplotlib builds in an empty config dir. */
export const FONTLIST_SCRIPT = [
  'import json, os, sys',
  'os.environ["MPLCONFIGDIR"] = "/tmp/mplfonts"',
  'import matplotlib',
  'matplotlib.use("Agg")',
  'import matplotlib.font_manager',
  'names = [n for n in os.listdir("/tmp/mplfonts") if n.startswith("fontlist-") and n.endswith(".json")]',
  'name = names[0]',
  'print(json.dumps({"name": name, "json": open("/tmp/mplfonts/" + name).read()}))',
].join('\n');

/** The list from the script's stdout, or null when it is not one. */
export function parseFontList(stdout: string): MatplotlibFontList | null {
  try {
    const parsed = JSON.parse(stdout) as MatplotlibFontList;
    return /^fontlist-v\d+\.json$/.test(parsed.name) && typeof parsed.json === 'string' ? parsed : null;
  } catch {
    return null;
  }
}

const cache = new Map<string, Promise<MatplotlibFontList | null>>();

/**
 * One build per key (an interpreter, or an engine + image id), shared by every
 * caller. `build` runs FONTLIST_SCRIPT where the tests will run and returns the
 * list or null; a failed build is kept (runs are then only slower).
 */
export function cachedFontList(key: string, build: () => Promise<MatplotlibFontList | null>): Promise<MatplotlibFontList | null> {
  let p = cache.get(key);
  if (!p) {
    p = build().catch(() => null);
    cache.set(key, p);
  }
  return p;
}
