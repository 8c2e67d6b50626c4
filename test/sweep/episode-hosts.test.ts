/**
 * A worker's open runs: one host per run, shared by its episodes; a resumed run (its
 * run.json rewritten) gets a new host while the old one finishes the episodes it is
 * playing before it closes; an idle host is closed.
 */
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { builtinRegistry } from '../../src/app/registry.js';
import { runManifestTime, type EpisodeHost } from '../../src/app/episode-host.js';
import type { EpisodeRequest, EpisodeResult } from '../../src/runner/remote-episodes.js';
import { EpisodeHosts } from '../../src/sweep/episode-hosts.js';

const dir = mkdtempSync(join(tmpdir(), 'memrl-hosts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, 'run.json'), '{}');

const req: EpisodeRequest = { runDir: dir, phase: 'train', epoch: 1, batch: 0, taskIndex: 0, taskId: 't0', memories: [] };
const result = (worker: string): EpisodeResult => ({ outcome: { status: 'pass', success: true, steps: 1, trajectory: '', usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 }, ms: 1 }, metered: [], replies: [], worker });

interface FakeHost extends EpisodeHost {
  name: string;
  closed: boolean;
  release: () => void;
}

function opener(): { open: (runDir: string) => Promise<EpisodeHost>; made: FakeHost[] } {
  const made: FakeHost[] = [];
  return {
    made,
    open: async (runDir) => {
      let release = (): void => undefined;
      const gate = new Promise<void>((r) => (release = r));
      const h: FakeHost = {
        name: `h${made.length + 1}`,
        closed: false,
        openedAt: runManifestTime(runDir),
        release: () => release(),
        play: async () => {
          await gate;
          if (h.closed) throw new Error('played on a closed host');
          return result(h.name);
        },
        close: async () => {
          h.closed = true;
        },
      };
      made.push(h);
      return h;
    },
  };
}

describe('a worker\'s episode hosts', () => {
  it('share one host per run; a resumed run gets a new one, and the old one closes after its episodes', async () => {
    const { open, made } = opener();
    const hosts = new EpisodeHosts({ registry: builtinRegistry(), worker: 'w' }, 60_000, open);
    const a = hosts.play(req);
    const b = hosts.play(req);
    await new Promise((r) => setTimeout(r, 20));
    expect(made).toHaveLength(1);
    // The run is resumed: run.json is rewritten while two episodes still play on the first host.
    utimesSync(join(dir, 'run.json'), new Date(), new Date(Date.now() + 5000));
    const c = hosts.play(req);
    await new Promise((r) => setTimeout(r, 20));
    expect(made).toHaveLength(2);
    expect(made[0]!.closed).toBe(false);
    made[0]!.release();
    made[1]!.release();
    expect((await a).worker).toBe('h1');
    expect((await b).worker).toBe('h1');
    expect((await c).worker).toBe('h2');
    await new Promise((r) => setTimeout(r, 20));
    expect(made[0]!.closed).toBe(true);
    expect(made[1]!.closed).toBe(false);
    await hosts.closeAll();
    expect(made[1]!.closed).toBe(true);
  });

  it('closes a host that stays idle, and opens the run again for a later episode', async () => {
    const { open, made } = opener();
    const hosts = new EpisodeHosts({ registry: builtinRegistry(), worker: 'w' }, 50, open);
    const p = hosts.play(req);
    await new Promise((r) => setTimeout(r, 10));
    made[0]!.release();
    await p;
    await new Promise((r) => setTimeout(r, 150));
    expect(made[0]!.closed).toBe(true);
    const q = hosts.play(req);
    await new Promise((r) => setTimeout(r, 10));
    made[1]!.release();
    expect((await q).worker).toBe('h2');
    await hosts.closeAll();
  });
});
