/**
 * The shell kind's conformance suite (conformance/shell-cases.ts: hostile commands)
 * against every shell backend the env registry has: the rootfs sandbox and
 * containers of the os image.
 */
import { afterAll } from 'vitest';
import { backendsUnderTest, expectAvailable } from './conformance/backends.js';
import { defineOsEscapes } from './conformance/shell-cases.js';
import { TEST_DOCKER, TEST_OS_IMAGE } from '../llb/require-docker.js';

const backends = await backendsUnderTest('shell', {
  local: {},
  docker: { docker: { settings: TEST_DOCKER, image: TEST_OS_IMAGE, role: 'llb-os', concurrency: 2 } },
});

afterAll(async () => {
  await Promise.all(backends.map((b) => b.opened?.close()));
});

for (const b of backends) {
  expectAvailable(b);
  defineOsEscapes(b.backend === 'local' ? 'local rootfs sandbox' : 'containers', {
    skip: b.skip,
    create: () => {
      if (!b.opened) throw new Error(b.reason);
      return b.opened.create();
    },
    maxOutputBytes: b.opened?.maxOutputBytes ?? 0,
  });
}
