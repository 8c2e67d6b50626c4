/**
 * The bridge kind's conformance suite (conformance/bridge-cases.ts) against every
 * bridge backend the env registry has: a child process of ours, and a container of
 * a python3 image (the ALFWorld stand-in image here) with the bridge copied in.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, vi } from 'vitest';
import type { BridgeSettings, BridgeTransport } from '../../src/env/bridge/contract.js';
import { leftoverContainers, requireEngine } from '../helpers/require-engine.js';
import { eventually, hostProcessesWith } from '../helpers/processes.js';
import { dockerSettings, STANDIN_IMAGE } from '../alfworld/docker-helpers.js';
import { backendsUnderTest, expectAvailable } from './conformance/backends.js';
import { defineBridgeCases } from './conformance/bridge-cases.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const SCRIPT = resolve('test/env/conformance/fake_bridge.py');
const label = 'the test bridge';
const settings: Record<'local' | 'docker', BridgeSettings> = {
  local: { label, command: ['python3', '-u', SCRIPT] },
  docker: {
    label,
    command: ['python3', '-u', '/opt/memrl-bridge/fake_bridge.py'],
    files: [{ name: 'fake_bridge.py', content: readFileSync(SCRIPT) }],
    filesDir: '/opt/memrl-bridge',
    docker: { settings: dockerSettings(), image: STANDIN_IMAGE, role: 'bridge-test', concurrency: 1 },
  },
};

const backends = await backendsUnderTest('bridge', settings);

afterAll(async () => {
  await Promise.all(backends.map((b) => b.opened?.close()));
});

for (const b of backends) {
  expectAvailable(b);
  defineBridgeCases(b.backend, {
    skip: b.skip,
    transport: (): BridgeTransport => {
      if (!b.opened) throw new Error(b.reason);
      return b.opened;
    },
    nothingLeft: async () => {
      // Stopped bridges are reaped (and their containers removed) in the background: give them a moment.
      if (b.backend === 'local') return eventually(() => hostProcessesWith(SCRIPT) === 0, 10_000);
      const engine = (await requireEngine()).engine;
      if (!engine) return false;
      for (const end = Date.now() + 15_000; Date.now() < end; await new Promise((r) => setTimeout(r, 250))) {
        if ((await leftoverContainers(engine)).length === 0) return true;
      }
      return (await leftoverContainers(engine)).length === 0;
    },
  });
}
