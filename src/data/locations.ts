/**
 * Where a data file is found when no flag or config key names it, in this order:
 *
 *   1. the cache: $MEMRL_DATA_DIR, else $XDG_CACHE_HOME/memrl/data, else ~/.cache/memrl/data
 *      (`memrl data pull` writes here);
 *   2. a mirror laid out like the cache: $MEMRL_DATA_MIRROR, else ../shared/data next to
 *      the checkout (the project's machines and CI keep one; tests read it through here,
 *      never the network); MEMRL_DATA_MIRROR=none reads none;
 *   3. the file's embedded sample, shipped in the package (the main job runs on it).
 *
 * A run records which of these it read (run.json, the banner).
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { packageRoot, sharedDataDir } from '../util/paths.js';
import type { DataFile } from './manifest.js';

export const DATA_ORIGINS = ['cache', 'mirror', 'sample', 'given'] as const;
export type DataOrigin = (typeof DATA_ORIGINS)[number];

export interface Located {
  path: string;
  origin: DataOrigin;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The folder `memrl data pull` writes to, and why it is that one. */
export function cacheRoot(env: Env = process.env): { dir: string; why: string } {
  if (env.MEMRL_DATA_DIR) return { dir: resolve(env.MEMRL_DATA_DIR), why: 'MEMRL_DATA_DIR' };
  if (env.XDG_CACHE_HOME) return { dir: join(env.XDG_CACHE_HOME, 'memrl', 'data'), why: 'XDG_CACHE_HOME' };
  return { dir: join(homedir(), '.cache', 'memrl', 'data'), why: '~/.cache' };
}

/** The mirror read after the cache: MEMRL_DATA_MIRROR, else ../shared/data next to the checkout, when it exists. */
export function mirrorRoot(env: Env = process.env): string | null {
  if (env.MEMRL_DATA_MIRROR === 'none') return null;
  const dir = env.MEMRL_DATA_MIRROR ? resolve(env.MEMRL_DATA_MIRROR) : sharedDataDir();
  return existsSync(dir) ? dir : null;
}

/** A file's embedded sample, when it has one and the package ships it. */
export function samplePath(file: DataFile): string | null {
  if (!file.sample) return null;
  const path = join(packageRoot(), file.sample.path);
  return existsSync(path) ? path : null;
}

/** The copy a run reads when nothing names one: cache, then the mirror (not the sample; see locateOrSample). */
export function locate(file: DataFile, env: Env = process.env): Located | null {
  const cached = join(cacheRoot(env).dir, file.path);
  if (existsSync(cached)) return { path: cached, origin: 'cache' };
  const mirror = mirrorRoot(env);
  if (mirror && existsSync(join(mirror, file.path))) return { path: join(mirror, file.path), origin: 'mirror' };
  return null;
}

/** As locate, falling back to the embedded sample. */
export function locateOrSample(file: DataFile, env: Env = process.env): Located | null {
  const found = locate(file, env);
  if (found) return found;
  const sample = samplePath(file);
  return sample ? { path: sample, origin: 'sample' } : null;
}

/** Where `memrl data pull` puts the file (also what a missing file's message names). */
export function cachePath(file: DataFile, env: Env = process.env): string {
  return join(cacheRoot(env).dir, file.path);
}

function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep);
}

/** Which of the places above a path is in ('given': a path the user named elsewhere). */
export function originOf(path: string, sample: string | null, env: Env = process.env): DataOrigin {
  const p = resolve(path);
  if (sample && resolve(sample) === p) return 'sample';
  if (inside(cacheRoot(env).dir, p)) return 'cache';
  const mirror = mirrorRoot(env);
  if (mirror && inside(mirror, p)) return 'mirror';
  return 'given';
}

/** Words for an origin in the banner and `memrl data list`. */
export function originWords(origin: DataOrigin, env: Env = process.env): string {
  switch (origin) {
    case 'cache':
      return `the cache (${cacheRoot(env).why})`;
    case 'mirror':
      return env.MEMRL_DATA_MIRROR ? 'the mirror (MEMRL_DATA_MIRROR)' : 'the mirror next to the checkout (../shared/data)';
    case 'sample':
      return "memrl's embedded sample";
    case 'given':
      return 'a path given by a flag or config key';
  }
}
