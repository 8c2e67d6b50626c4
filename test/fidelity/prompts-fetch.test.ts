/**
 * `memrl prompts import --fetch`: git fetches MemRL at the pinned commit into a temporary
 * folder, the pack is read from it, the folder goes. Here the "remote" is a local
 * repository holding a synthetic checkout (no network); an unreachable one stops in one line.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withReferenceCheckout } from '../../src/app/prompts/fetch.js';
import { importReferencePrompts } from '../../src/app/prompts/import.js';
import { promptNamespaces } from '../../src/app/prompts/pack.js';
import { builtinRegistry } from '../../src/app/registry.js';
import { UserError } from '../../src/util/errors.js';
import { syntheticCheckout } from '../helpers/reference-checkout.js';

const work = mkdtempSync(join(tmpdir(), 'memrl-prompts-fetch-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const registry = builtinRegistry();

function repository(): { url: string; commit: string } {
  const repo = join(work, 'remote');
  for (const [path, text] of Object.entries(syntheticCheckout(promptNamespaces(registry)))) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  const git = (...args: string[]) => execFileSync('git', ['-C', repo, '-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { encoding: 'utf8' }).trim();
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'synthetic');
  return { url: `file://${repo}`, commit: git('rev-parse', 'HEAD') };
}

describe('withReferenceCheckout', () => {
  it('fetches the commit, imports from it, and removes the temporary checkout', () => {
    const { url, commit } = repository();
    const before = readdirSync(tmpdir()).filter((d) => d.startsWith('memrl-reference-')).length;
    const result = withReferenceCheckout((dir) => importReferencePrompts(dir, join(work, 'pack'), registry), url, commit);
    expect(result.commit).toBe(commit);
    expect(result.imported.length).toBeGreaterThan(30);
    expect(existsSync(join(work, 'pack', 'pack.json'))).toBe(true);
    expect(readdirSync(tmpdir()).filter((d) => d.startsWith('memrl-reference-')).length).toBe(before);
  });

  it('says in one line what to do when git cannot fetch', () => {
    let err: unknown;
    try {
      withReferenceCheckout(() => 0, `file://${join(work, 'nothing-here')}`);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message.split('\n')).toHaveLength(1);
    expect((err as Error).message).toMatch(/git could not fetch .* then memrl prompts import MemRL$/);
  });
});
