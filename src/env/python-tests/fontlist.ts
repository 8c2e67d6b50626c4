/**
 * matplotlib's font list, made once per interpreter (or container image) and handed
 * to every test run, and kept on disk for the next process.
 *
 * Each sandbox starts with an empty /tmp, so matplotlib would rescan every system
 * font on `import matplotlib.pyplot` in every test run: about 1.4 s of a 1.8 s
 * median task here. The list is built in a sandbox like the ones that use it (same
 * fonts, same paths, no personal fonts) and travels in the harness input, so no
 * host file has to be readable by the sandbox user, and a task that overwrites its
 * copy only affects itself. Each backend builds it where its tests run (a sandbox, a
 * container of the image) with FONTLIST_SCRIPT, once per key (cachedFontList).
 *
 * Building it takes ~1.8 s here, which every process running such tests paid
 * before its first test. So a built list is also written under
 * $XDG_CACHE_HOME/memrl/mpl-fontlists, named by a fingerprint of what the list depends
 * on: an image's id, or for an interpreter, what FONT_FINGERPRINT_SCRIPT reads (~0.1 s).
 * matplotlib's own cache is kept by its version only; this one also follows the fonts.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cacheDir } from '../../util/paths.js';
import { writeFileAtomic } from '../../util/fs.js';

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

/**
 * Prints the sha256 of what matplotlib's font scan reads, without importing matplotlib:
 * the interpreter, matplotlib's version and place (its own fonts come with it), and
 * by path, size and modification time every file in the folders matplotlib's
 * findSystemFonts searches on Linux and in fontconfig's configuration (which names the
 * folders fc-list adds). Not fc-list itself: without fontconfig's cache, which the
 * sandbox does not see, it rescans every font (0.4 s).
 */
export const FONT_FINGERPRINT_SCRIPT = [
  'import hashlib, importlib.metadata, importlib.util, os, sys',
  'h = hashlib.sha256()',
  'spec = importlib.util.find_spec("matplotlib")',
  'version = importlib.metadata.version("matplotlib") if spec else None',
  'h.update(repr((sys.version, sys.executable, spec.origin if spec else None, version)).encode())',
  'files = set()',
  'home = os.path.expanduser("~")',
  'data_home = os.environ.get("XDG_DATA_HOME") or os.path.join(home, ".local/share")',
  'for d in ["/etc/fonts", "/usr/X11R6/lib/X11/fonts/TTF/", "/usr/X11/lib/X11/fonts", "/usr/share/fonts/", "/usr/local/share/fonts/", "/usr/lib/openoffice/share/fonts/truetype/", os.path.join(data_home, "fonts"), os.path.join(home, ".fonts")]:',
  '    for root, _dirs, names in os.walk(d):',
  '        files.update(os.path.join(root, n) for n in names)',
  'for f in sorted(files):',
  '    try:',
  '        st = os.stat(f)',
  '    except OSError:',
  '        continue',
  '    h.update(f"{f}\\0{st.st_size}\\0{st.st_mtime_ns}\\n".encode("utf-8", "surrogateescape"))',
  'print(h.hexdigest())',
].join('\n');

/** The fingerprint from FONT_FINGERPRINT_SCRIPT's stdout, or null. */
export function parseFontFingerprint(stdout: string): string | null {
  const text = stdout.trim();
  return /^[0-9a-f]{64}$/.test(text) ? text : null;
}

/** Where built font lists are kept between processes. */
export function fontListCacheDir(): string {
  return cacheDir('mpl-fontlists');
}

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
 * list or null; a failed build is kept (runs are then only slower). With a
 * `fingerprint` (null when it cannot be had), a list kept on disk under it is read
 * instead of built, and a built one is kept there.
 */
export function cachedFontList(key: string, build: () => Promise<MatplotlibFontList | null>, fingerprint?: () => Promise<string | null>): Promise<MatplotlibFontList | null> {
  let p = cache.get(key);
  if (!p) {
    p = (fingerprint ? keptOrBuilt(build, fingerprint) : build()).catch(() => null);
    cache.set(key, p);
  }
  return p;
}

async function keptOrBuilt(build: () => Promise<MatplotlibFontList | null>, fingerprint: () => Promise<string | null>): Promise<MatplotlibFontList | null> {
  const print = await fingerprint().catch(() => null);
  // The script that builds the list is part of its name: a changed script builds anew.
  const file = print === null ? null : join(fontListCacheDir(), `${createHash('sha256').update(FONTLIST_SCRIPT).update('\0').update(print).digest('hex')}.json`);
  if (file) {
    const kept = readKept(file);
    if (kept) return kept;
  }
  const built = await build();
  if (built && file) {
    try {
      mkdirSync(dirname(file), { recursive: true });
      writeFileAtomic(file, JSON.stringify(built));
    } catch {
      // An unwritable cache folder only means the next process builds the list again.
    }
  }
  return built;
}

function readKept(file: string): MatplotlibFontList | null {
  try {
    return parseFontList(readFileSync(file, 'utf8'));
  } catch {
    return null; // not there, or unreadable: built again
  }
}

/** For tests: forget the lists built in this process (those on disk stay). */
export function forgetFontLists(): void {
  cache.clear();
}
