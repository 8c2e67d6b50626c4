/**
 * The container layer against the real engine: hardened defaults really hold inside
 * the container, exec carries stdin and separates the streams, timeouts and outside
 * kills are reported as such, pools and cleanup leave nothing behind.
 */
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Box, ContainerGoneError, type BoxSpec } from '../../../src/env/container/box.js';
import { isOrphan, listMemrlContainers, sweepOrphans } from '../../../src/env/container/cleanup.js';
import { EngineUnavailableError, openEngine, resolveEngineAddress, type Engine } from '../../../src/env/container/engine.js';
import { ensureImage, ImageUnavailableError } from '../../../src/env/container/image.js';
import { asWorkOfRun, LABEL_RUN } from '../../../src/env/container/labels.js';
import { warmBoxPool } from '../../../src/env/container/warm-boxes.js';
import { leftoverContainers, requireEngine } from '../../helpers/require-engine.js';

const IMAGE = 'memrl/debian:bookworm';
const req = await requireEngine([IMAGE]);
const MiB = 1024 * 1024;
// The engine can be slow when other suites start containers at the same time.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

function spec(over: Partial<BoxSpec> = {}): BoxSpec {
  return { image: IMAGE, role: 'probe', cmd: ['sleep', 'infinity'], memoryBytes: 256 * MiB, pids: 64, ...over };
}

describe('engine address', () => {
  it('reads unix sockets, tcp addresses and rejects nonsense with the key to fix', () => {
    expect(resolveEngineAddress('unix:///run/x.sock').options).toEqual({ socketPath: '/run/x.sock' });
    expect(resolveEngineAddress(null, { DOCKER_HOST: 'tcp://10.0.0.2:2375' }).options).toMatchObject({ host: '10.0.0.2', port: 2375, protocol: 'http' });
    expect(() => resolveEngineAddress('ftp://x')).toThrow(/memrl\.evaluator\.docker\.host/);
  });

  it('a missing daemon is one line saying how to start one', async () => {
    const err = await openEngine('unix:///nonexistent/docker.sock').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineUnavailableError);
    expect((err as Error).message).toMatch(/no container engine at unix:\/\/\/nonexistent\/docker.sock .*scripts\/setup.sh podman/);
    expect((err as Error).message).not.toContain('\n');
  });
});

describe.skipIf(req.skip)('containers on the real engine', () => {
  let engine: Engine;
  let box: Box;
  beforeAll(async () => {
    if (!req.ok) throw new Error(`container engine unavailable under CI: ${req.reason}`);
    engine = req.engine!;
    box = await asWorkOfRun('box-test-run', () => Box.start(engine, spec()));
  });
  afterAll(async () => {
    await box?.remove();
    if (engine) expect(await leftoverContainers(engine)).toEqual([]);
  });

  it('passes stdin through and keeps stdout and stderr apart, with the exit code', async () => {
    const input = 'x'.repeat(300_000);
    const r = await box.exec(['sh', '-c', 'wc -c; echo to-stderr >&2; exit 7'], { input, timeoutMs: 20_000 });
    expect(r.stdout.trim()).toBe('300000');
    expect(r.stderr.trim()).toBe('to-stderr');
    expect(r.exitCode).toBe(7);
    expect(r.timedOut).toBe(false);
  });

  it('enforces the hardened defaults inside: no network, no capabilities, no new privileges, read-only root, limits', async () => {
    const r = await box.exec(
      ['sh', '-c', 'grep -c : /proc/net/dev; grep -E "^(CapEff|NoNewPrivs)" /proc/self/status; touch /etc/x 2>&1 || echo ro; touch /tmp/ok && echo tmp-rw; cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/pids.max /sys/fs/cgroup/pids/pids.max 2>/dev/null'],
      { timeoutMs: 20_000 },
    );
    const lines = r.stdout.trim().split('\n');
    // /proc/net/dev: one line per interface, and only "lo" is there.
    expect(lines[0]).toBe('1');
    expect(r.stdout).toMatch(/CapEff:\s+0000000000000000/);
    expect(r.stdout).toMatch(/NoNewPrivs:\s+1/);
    expect(r.stdout).toMatch(/Read-only file system/);
    expect(r.stdout).toContain('tmp-rw');
    // cgroup v2 or v1, whichever the engine uses
    expect(r.stdout).toContain(String(256 * MiB));
    expect(r.stdout).toMatch(/^64$/m);
  });

  it('labels the container with the run, process and role', async () => {
    const info = await box.container.inspect();
    expect(info.Config.Labels).toMatchObject({ 'dev.memrl': '1', [LABEL_RUN]: 'box-test-run', 'dev.memrl.pid': String(process.pid), 'dev.memrl.role': 'probe' });
  });

  it('reports a timeout without waiting for the command and caps output', async () => {
    const t0 = Date.now();
    const slow = await box.exec(['sleep', '30'], { timeoutMs: 1_000 });
    expect(slow.timedOut).toBe(true);
    expect(slow.exitCode).toBeNull();
    expect(Date.now() - t0).toBeLessThan(10_000);
    const big = await box.exec(['sh', '-c', 'head -c 5000000 /dev/zero | tr "\\0" a'], { timeoutMs: 20_000, maxOutputBytes: 1000 });
    expect(big.stdout.length).toBe(1000);
    expect(big.truncated).toBe(true);
    expect(big.exitCode).toBe(0);
  });

  it('a container killed from outside mid-command is an error of its own kind', async () => {
    const victim = await Box.start(engine, spec());
    try {
      const running = victim.exec(['sleep', '30'], { timeoutMs: 25_000 }).then(() => null, (e: unknown) => e);
      await new Promise((r) => setTimeout(r, 500));
      await engine.docker.getContainer(victim.id).kill();
      const err = await running;
      expect(err).toBeInstanceOf(ContainerGoneError);
      expect((err as Error).message).toMatch(/killed from outside or the engine restarted/);
    } finally {
      await victim.remove();
    }
  });

  it('a warm pool hands out distinct started containers and removes all of them on close', async () => {
    const pool = warmBoxPool(engine, spec(), 2);
    const a = await pool.acquire();
    const b = await pool.acquire();
    expect(a.id).not.toBe(b.id);
    expect((await a.state()).running).toBe(true);
    await pool.retire(a);
    await pool.close();
    await pool.retire(b);
    // give in-flight warm starts time to land and be removed
    await new Promise((r) => setTimeout(r, 1500));
    expect(await leftoverContainers(engine)).toEqual([box.id]);
  });

  it('a missing image says how to build it; pull=never does not try the registry', async () => {
    const never = await ensureImage(engine, 'memrl/does-not-exist:never', 'never').catch((e: unknown) => e);
    expect(never).toBeInstanceOf(ImageUnavailableError);
    expect((never as Error).message).toMatch(/memrl\/does-not-exist:never is not on the container engine .*scripts\/build-images.sh/);
    const pulled = await ensureImage(engine, 'localhost:1/memrl/does-not-exist:x', 'missing').catch((e: unknown) => e);
    expect(pulled).toBeInstanceOf(ImageUnavailableError);
    expect((pulled as Error).message).toMatch(/pull failed/);
  });

  it('cleanup removes containers of dead memrl processes on this host and keeps live ones', async () => {
    const dead = spawnSync('true').pid!; // a pid that has exited
    const orphan = await engine.docker.createContainer({
      Image: IMAGE,
      Cmd: ['sleep', 'infinity'],
      Labels: { 'dev.memrl': '1', 'dev.memrl.role': 'probe', 'dev.memrl.run': 'crashed-run', 'dev.memrl.pid': String(dead), 'dev.memrl.host': hostname() },
      HostConfig: { NetworkMode: 'none' },
    });
    const listed = (await listMemrlContainers(engine)).find((c) => c.id === orphan.id)!;
    expect(isOrphan(listed)).toBe(true);
    expect(isOrphan((await listMemrlContainers(engine)).find((c) => c.id === box.id)!)).toBe(false);
    expect(await sweepOrphans(engine)).toBeGreaterThanOrEqual(1);
    const after = (await listMemrlContainers(engine)).map((c) => c.id);
    expect(after).not.toContain(orphan.id);
    expect(after).toContain(box.id);
  });
});
