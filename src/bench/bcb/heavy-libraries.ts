/**
 * The BigCodeBench libraries the main setup leaves out because their Debian packages
 * are out of proportion to the few tasks that import them (scripts/setup/
 * bcb-heavy-packages.txt, read here so the list lives in one place).
 */
import { readFileSync } from 'node:fs';
import { asset } from '../../util/paths.js';

export const HEAVY_SETUP_COMMAND = 'bash scripts/setup.sh system-bcb-heavy';

let modules: Set<string> | undefined;

/** Module names (the list's second column); empty when the list is not there (an installed package without scripts/). */
export function heavySetupModules(): ReadonlySet<string> {
  if (!modules) {
    let text = '';
    try {
      text = readFileSync(asset('scripts', 'setup', 'bcb-heavy-packages.txt'), 'utf8');
    } catch {
      // No setup scripts beside this build: no hint to give.
    }
    modules = new Set(
      text
        .split('\n')
        .map((line) => line.replace(/#.*/, '').trim().split(/\s+/))
        .filter((cols) => cols.length >= 2 && cols[0] !== '-')
        .map((cols) => cols[1]!),
    );
  }
  return modules;
}
