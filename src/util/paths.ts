import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package root (the folder holding package.json), found from this module's
 * location so it works from src/ (vitest, tsx) and from dist/src/ (built CLI).
 * Non-TypeScript assets (Python harnesses, prompt templates, configs) are read from here.
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    dir = dirname(dir);
  }
  throw new Error('memrl: cannot locate package root (package.json) from ' + fileURLToPath(import.meta.url));
}

/** memrl's folder under $XDG_CACHE_HOME (default ~/.cache): what is kept between processes. */
export function cacheDir(...parts: string[]): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'memrl', ...parts);
}

/** Path of a file shipped in the package, e.g. asset('src/bench/bcb/prompts/system.md'). */
export function asset(...parts: string[]): string {
  return join(packageRoot(), ...parts);
}

/**
 * The project's data mirror: MEMRL_DATA_MIRROR, else ../shared/data next to the checkout
 * (the tests read the releases and the reference's configs there). Runs find their data
 * through src/data/locations.ts, which reads this mirror after the cache.
 */
export function sharedDataDir(): string {
  const mirror = process.env.MEMRL_DATA_MIRROR;
  return mirror && mirror !== 'none' ? resolve(mirror) : resolve(packageRoot(), '..', 'shared', 'data');
}
