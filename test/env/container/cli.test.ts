/** `memrl doctor` and `memrl cleanup` as a user runs them, against the real engine. */
import { hostname, tmpdir } from 'node:os';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runMemrl } from '../../helpers/cli.js';
import { requireEngine } from '../../helpers/require-engine.js';

const IMAGE = 'memrl/debian:bookworm';
const req = await requireEngine([IMAGE]);
const work = mkdtempSync(join(tmpdir(), 'memrl-container-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const memrl = (args: string[], env?: Record<string, string>) => runMemrl(args, { cwd: work, ...(env ? { env } : {}), timeoutMs: 120_000 });

beforeAll(assertBuilt);

describe('memrl doctor', () => {
  it('names a missing engine and how to get one, and exits 1', async () => {
    const r = await memrl(['doctor', '--backend', 'docker', '--docker-host', `unix://${join(work, 'none.sock')}`]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/docker\s+engine\s+NOT OK\s+no container engine at unix:\/\/.*none\.sock .*scripts\/setup\.sh podman/);
  });

  it.skipIf(req.skip)('lists the engine, each image and a container start as JSON', async () => {
    if (!req.ok) throw new Error(`container engine unavailable under CI: ${req.reason}`);
    const cfg = join(work, 'images.yaml');
    // An image that exists for bcb, one that does not for llb os.
    const yaml = `memrl:\n  evaluator:\n    docker:\n      images:\n        bcb: ${IMAGE}\n        llb_os: memrl/not-built:never\n`;
    writeFileSync(cfg, yaml);
    const r = await memrl(['doctor', '--backend', 'docker', '--json', '--config', cfg]);
    const checks = JSON.parse(r.stdout) as { part: string; ok: boolean; detail: string }[];
    const by = Object.fromEntries(checks.map((c) => [c.part, c]));
    expect(by['engine']!.ok).toBe(true);
    expect(by['bcb image']).toMatchObject({ ok: true });
    expect(by['llb os image']!.ok).toBe(false);
    expect(by['llb os image']!.detail).toMatch(/memrl\/not-built:never not on the engine.*build-images\.sh/);
    expect(by['container start']).toMatchObject({ ok: true });
    expect(r.code).toBe(1);
  });
});

describe.skipIf(req.skip)('memrl cleanup', () => {
  it('removes the containers of a given run and keeps the others', async () => {
    if (!req.ok) throw new Error(`container engine unavailable under CI: ${req.reason}`);
    const engine = req.engine!;
    const make = (run: string) =>
      engine.docker.createContainer({
        Image: IMAGE,
        Cmd: ['sleep', 'infinity'],
        Labels: { 'dev.memrl': '1', 'dev.memrl.role': 'probe', 'dev.memrl.run': run, 'dev.memrl.pid': String(process.pid), 'dev.memrl.host': hostname() },
        HostConfig: { NetworkMode: 'none' },
      });
    const mine = await make('cleanup-test-a');
    const other = await make('cleanup-test-b');
    try {
      const dry = await memrl(['cleanup', '--run', 'cleanup-test-a', '--dry-run']);
      expect(dry.stdout).toContain(`would remove ${mine.id.slice(0, 12)}`);
      expect(dry.stdout).not.toContain(other.id.slice(0, 12));
      // The run's folder names it as well as the folder's name does.
      // (What it keeps counts containers of other live memrl processes: tests running beside this one start and stop theirs.)
      const byFolder = await memrl(['cleanup', '--run', 'results/bcb/cleanup-test-a/', '--dry-run']);
      const removals = (out: string): string[] => out.split('\n').filter((l) => l.startsWith('would remove'));
      expect(removals(byFolder.stdout)).toEqual(removals(dry.stdout));
      expect(removals(dry.stdout)).toHaveLength(1);
      const r = await memrl(['cleanup', '--run', 'cleanup-test-a']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/removed 1\b/);
      const left = (await engine.docker.listContainers({ all: true, filters: { label: ['dev.memrl.run'] } })).map((c) => c.Id);
      expect(left).not.toContain(mine.id);
      expect(left).toContain(other.id);
      // Containers of a live process are kept by a plain cleanup.
      const plain = await memrl(['cleanup']);
      expect(plain.stdout).toMatch(/kept \d+ of live memrl processes/);
    } finally {
      await other.remove({ force: true }).catch(() => undefined);
      await mine.remove({ force: true }).catch(() => undefined);
    }
  });
});
