/**
 * `memrl prompts import --fetch`: the MemRL checkout the prompts are read from, fetched
 * by git at the commit memrl's location tables were written against, into a temporary
 * folder that is removed afterwards. Only git talks to the network; where it cannot
 * (no network, a proxy that refuses), the command stops with one line saying how to
 * import from a checkout made elsewhere.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../../util/errors.js';
import { REFERENCE_PROMPTS_COMMIT } from './import.js';

export const REFERENCE_REPOSITORY = 'https://github.com/MemTensor/MemRL';

/** The last line git wrote, for the one-line error. */
function lastLine(text: string): string {
  return text.trim().split('\n').filter(Boolean).at(-1) ?? 'no output';
}

/**
 * Runs `use` on a checkout of the reference at the pinned commit and removes it after.
 * `repository` is a test's seam (a local bare repository).
 */
export function withReferenceCheckout<T>(use: (checkout: string) => T, repository = REFERENCE_REPOSITORY, commit = REFERENCE_PROMPTS_COMMIT): T {
  const dir = mkdtempSync(join(tmpdir(), 'memrl-reference-'));
  const git = (...args: string[]) =>
    spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0' }, timeout: 300_000 });
  try {
    const steps = [['init', '-q'], ['fetch', '-q', '--depth', '1', repository, commit], ['checkout', '-q', 'FETCH_HEAD']];
    for (const args of steps) {
      const r = git(...args);
      if (r.error) throw new UserError(`memrl prompts import --fetch needs git (${r.error.message}); install git, or clone ${repository} elsewhere and run memrl prompts import <checkout>`, 'missing_tool');
      if (r.status !== 0) {
        throw new UserError(
          `memrl prompts import --fetch: git could not fetch ${repository} at ${commit.slice(0, 7)} (${lastLine(r.stderr)}); where the network allows, git clone ${repository} && git -C MemRL checkout ${commit.slice(0, 7)}, then memrl prompts import MemRL`,
          'fetch_failed',
        );
      }
    }
    return use(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
