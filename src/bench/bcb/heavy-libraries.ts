/**
 * The BigCodeBench libraries the main setup leaves out because their Debian packages
 * are out of proportion to the few tasks that import them (scripts/setup/
 * bcb-heavy-packages.txt, read here so the list lives in one place).
 */
import { readFileSync } from 'node:fs';
import { asset } from '../../util/paths.js';

export const HEAVY_SETUP_COMMAND = 'bash scripts/setup.sh system-bcb-heavy';

/**
 * [package, module] of each line of a setup package list (scripts/setup/<file>), as
 * setup's read_package_list reads it: '#' comments and '-' lines (unpackaged) left out.
 * Empty when the file is not there (an installed package without scripts/).
 */
export function readSetupPackageList(file: string): [string, string][] {
  let text = '';
  try {
    text = readFileSync(asset('scripts', 'setup', file), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim().split(/\s+/))
    .filter((cols) => cols.length >= 2 && cols[0] !== '-')
    .map((cols) => [cols[0]!, cols[1]!]);
}

let modules: Set<string> | undefined;

/** Module names of the heavy list, read once. */
export function heavySetupModules(): ReadonlySet<string> {
  modules ??= new Set(readSetupPackageList('bcb-heavy-packages.txt').map(([, mod]) => mod));
  return modules;
}
