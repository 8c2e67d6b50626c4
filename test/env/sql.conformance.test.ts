/**
 * The sql kind's conformance suite (conformance/sql-cases.ts: what a task user must
 * not do) against every sql backend the env registry has: the host's MariaDB and a
 * server container (memrl/llb-db-mariadb here: there is no registry for mysql:8).
 */
import { afterAll } from 'vitest';
import { backendsUnderTest, expectAvailable } from './conformance/backends.js';
import { defineDbEscapes } from './conformance/sql-cases.js';
import { TEST_DB_IMAGE, TEST_DOCKER } from '../llb/require-docker.js';

const backends = await backendsUnderTest('sql', {
  local: {},
  docker: { docker: { settings: TEST_DOCKER, image: TEST_DB_IMAGE, role: 'llb-db', concurrency: 1 } },
});

afterAll(async () => {
  await Promise.all(backends.map((b) => b.opened?.close()));
});

for (const b of backends) {
  expectAvailable(b);
  defineDbEscapes(b.backend === 'local' ? 'local MariaDB' : 'server container', b.skip, () => {
    if (!b.opened) throw new Error(b.reason);
    return b.opened.server;
  });
}
