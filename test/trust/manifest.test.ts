/**
 * run.json says what produced a run: memrl version and commit, Node, dataset and
 * split hashes, the evaluator with its versions (BCB: Python and each library;
 * LLB db: the MariaDB server; LLB os: which root filesystem), the model, and the
 * tasks that were blocked or could not be scored, with reasons.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blockedByMissingLibs } from '../../src/bench/bcb/benchmark.js';
import { readBcbTasks } from '../../src/bench/bcb/dataset.js';
import { rootfsIdentity } from '../../src/env/shell/rootfs.js';
import { checkMariadb } from '../../src/env/sql/local.js';
import { packageRoot, sharedDataDir } from '../../src/util/paths.js';
import { requireMariadb } from '../llb/require-mariadb.js';
import { MEMRL_BIN, runAsync } from '../helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'memrl-manifest-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** `memrl <args>` in this process's environment as it is (runMemrl would blank OPENAI_API_KEY). */
function memrl(args: string[]) {
  return runAsync(process.execPath, [MEMRL_BIN, ...args], { cwd: work, timeoutMs: 300_000 });
}

function manifestOf(out: string, bench: string): Record<string, any> {
  const root = join(work, out, bench);
  return JSON.parse(readFileSync(join(root, readdirSync(root)[0] as string, 'run.json'), 'utf8'));
}

describe('run.json of a BCB run', () => {
  it('records versions, hashes, the sandbox\'s Python and library versions, and the tasks blocked by a missing library', async () => {
    // Two tasks that need libraries Debian does not package (tensorflow, keras) beside an ordinary one.
    const split = join(work, 'split.json');
    writeFileSync(split, JSON.stringify({ train_ids: ['BigCodeBench/13', 'BigCodeBench/289'], val_ids: ['BigCodeBench/417'], train_count: 2, val_count: 1, seed: 1, train_ratio: 0.67, total: 3 }));
    const r = await memrl(['run', 'bcb', '--subset', 'full', '--split-file', split, '--epochs', '1', '--output-dir', 'bcb-out']);
    expect(r.stderr).toMatch(/done: 1\/1/);
    const m = manifestOf('bcb-out', 'bcb');

    const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8'));
    expect(m.memrlVersion).toBe(pkg.version);
    if (existsSync(join(packageRoot(), '.git'))) expect(m.gitCommit).toMatch(/^[0-9a-f]{40}(\+dirty)?$/);
    expect(m.node).toBe(process.version);
    expect(m).toMatchObject({ model: 'sim', simulated: true, benchmark: 'bcb' });

    const data = join(sharedDataDir(), 'bigcodebench', 'bigcodebench_full.jsonl.gz');
    expect(m.dataset.sources).toContainEqual(expect.objectContaining({ path: data, sha256: sha256(data), dataset: 'bcb', release: 'v0.1.0_hf', origin: 'mirror' }));
    expect(m.dataset.sources).toContainEqual(expect.objectContaining({ path: split, sha256: sha256(split) }));

    const ev = m.evaluator;
    expect(ev.backend).toBe('local-bwrap');
    expect(ev.pythonVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(ev.libraryVersions.numpy).toMatch(/^numpy \d+\.\d+/);
    expect(ev.libraryVersions.sklearn).toMatch(/^scikit-learn \d+\.\d+/);
    for (const lib of ev.missingLibs as string[]) expect(ev.libraryVersions[lib], lib).toBeUndefined();

    // Blocked = the run's tasks whose libraries include one the sandbox lacks.
    const byId = new Map(readBcbTasks(data).tasks.map((t) => [t.id, t]));
    const tasks = ['BigCodeBench/13', 'BigCodeBench/289', 'BigCodeBench/417'].map((id) => byId.get(id)!);
    expect(ev.blockedTasks).toEqual(blockedByMissingLibs(tasks, ev.missingLibs));
    if ((ev.missingLibs as string[]).includes('tensorflow')) {
      expect(ev.blockedTasks).toContainEqual({ taskId: 'BigCodeBench/289', reason: expect.stringMatching(/needs tensorflow/) });
      // The run's start says so too; 417 is a validation task, and this run does not validate.
      expect(r.stderr).toMatch(/\n {2}note: 1 of the 2 tasks cannot pass here, whatever the model writes: BigCodeBench\/289 needs tensorflow/);
    }
    expect(ev.blockedTasks.map((b: { taskId: string }) => b.taskId)).not.toContain('BigCodeBench/13');

    // At the end: what the endpoint reported, and no task the harness failed to score.
    expect(m.observed.provider.agent.models).toEqual(['sim']);
    expect(m.observed.unscoredTasks).toEqual([]);
  }, 300_000);
});

describe('run.json of LLB runs', () => {
  it('db: the MariaDB server version', async () => {
    const need = await requireMariadb();
    if (need.skip) return;
    expect(need.ok, need.reason).toBe(true);
    const r = await memrl(['run', 'llb', '--task', 'db', '--limit', '1', '--epochs', '1', '--no-run-validation', '--output-dir', 'llb-db']);
    expect(r.stderr).toMatch(/done: 1\/1/);
    const up = await checkMariadb();
    expect(up.ok).toBe(true);
    expect(manifestOf('llb-db', 'llb').evaluator).toMatchObject({ backend: 'mariadb', server: up.ok ? up.version : '' });
  }, 300_000);

  it('os: a run records the root filesystem it used', async () => {
    const { checkShellSandbox } = await import('../../src/env/shell/local.js');
    const ok = await checkShellSandbox();
    if (!ok.ok) {
      if (process.env.CI) throw new Error(`os sandbox unavailable under CI: ${ok.reason}`);
      return;
    }
    const r = await memrl(['run', 'llb', '--task', 'os', '--limit', '1', '--epochs', '1', '--no-run-validation', '--output-dir', 'llb-os']);
    expect(r.stderr).toMatch(/done: 1\/1/);
    const ev = manifestOf('llb-os', 'llb').evaluator;
    expect(ev).toMatchObject({ backend: 'os-sandbox', rootfs: rootfsIdentity() });
    expect(ev.rootfs.dpkgStatusSha256).toMatch(/^[0-9a-f]{64}$/);
  }, 300_000);

  it('os: the identity of the root filesystem (stamp, Debian release, hash of the package database)', () => {
    const root = join(work, 'fake-rootfs');
    mkdirSync(join(root, 'etc'), { recursive: true });
    mkdirSync(join(root, 'var/lib/dpkg'), { recursive: true });
    writeFileSync(`${root}.stamp`, 'bookworm minbase, uid base 100000, built 2026-01-01T00:00:00Z\ninclude=procps\n');
    writeFileSync(join(root, 'etc/debian_version'), '12.15\n');
    writeFileSync(join(root, 'var/lib/dpkg/status'), 'Package: bash\nVersion: 5.2.15-2+b7\n');
    expect(rootfsIdentity(root)).toEqual({
      path: root,
      stamp: 'bookworm minbase, uid base 100000, built 2026-01-01T00:00:00Z',
      debianVersion: '12.15',
      dpkgStatusSha256: sha256(join(root, 'var/lib/dpkg/status')),
    });
    expect(rootfsIdentity(join(work, 'no-such-rootfs'))).toMatchObject({ stamp: null, debianVersion: null, dpkgStatusSha256: null });
  });
});
