/**
 * The engine going away mid-command and coming back: the command in flight fails
 * with a container-level error (never a hang, never a verdict), and the next
 * container works through the same client once the engine answers again. Uses a
 * second Podman API service on its own socket so other suites are not disturbed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Box } from '../../../src/env/container/box.js';
import { openEngine } from '../../../src/env/container/engine.js';
import { IN_CI, requireEngine } from '../../helpers/require-engine.js';

const IMAGE = 'memrl/debian:bookworm';
const podman = spawnSync('sh', ['-c', 'command -v podman'], { encoding: 'utf8' }).stdout.trim();
const req = await requireEngine([IMAGE]);
const skip = req.skip || (!podman && !IN_CI);
const dir = mkdtempSync(join(tmpdir(), 'memrl-engine-restart-'));
const sock = join(dir, 'api.sock');
let service: ChildProcess | undefined;

async function startService(): Promise<void> {
  service = spawn(podman, ['system', 'service', '--time=0', `unix://${sock}`], { stdio: 'ignore' });
  for (let i = 0; i < 100 && !existsSync(sock); i++) await new Promise((r) => setTimeout(r, 100));
}

async function stopService(): Promise<void> {
  const s = service;
  if (!s || s.exitCode !== null) return;
  const gone = new Promise((r) => s.once('exit', r));
  s.kill('SIGKILL');
  await gone;
  rmSync(sock, { force: true });
}

afterAll(async () => {
  await stopService();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(skip)('engine restart mid-command', () => {
  it('fails the command in flight with a clear error, then works again', { timeout: 120_000 }, async () => {
    if (!req.ok || !podman) throw new Error(`podman engine unavailable under CI: ${req.reason || 'podman not installed'}`);
    await startService();
    const { engine } = await openEngine(`unix://${sock}`);
    const box = await Box.start(engine, { image: IMAGE, role: 'probe', cmd: ['sleep', 'infinity'], memoryBytes: 128 * 1024 * 1024, pids: 32 });
    try {
      const inFlight = box.exec(['sleep', '20'], { timeoutMs: 60_000 }).then(
        (r) => ({ ok: true as const, r }),
        (e: unknown) => ({ ok: false as const, e: e as Error }),
      );
      await new Promise((r) => setTimeout(r, 500));
      const t0 = Date.now();
      await stopService();
      const res = await inFlight;
      expect(Date.now() - t0).toBeLessThan(15_000);
      expect(res.ok).toBe(false);
      if (!res.ok) expect(res.e.message).toMatch(/container \w{12} is gone \(.*\); it was killed from outside or the engine restarted/);

      await startService();
      const again = await box.exec(['sh', '-c', 'echo back'], { timeoutMs: 30_000 });
      expect(again.stdout.trim()).toBe('back');
    } finally {
      if (service?.exitCode !== null) await startService();
      await box.remove();
    }
  });
});
