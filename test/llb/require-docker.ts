/**
 * The container engine and LLB images for the `--evaluator docker` tests: skipped
 * when missing (reason printed), except under CI=true where the suites run and fail.
 * Images are built locally (bash scripts/build-images.sh llb-os llb-db-mariadb):
 * there is no registry here, so the db tests use the MariaDB image, not mysql:8.
 */
import { openContainerBackend, type ContainerBackend } from '../../src/env/container/backend.js';
import { listMemrlContainers } from '../../src/env/container/cleanup.js';
import type { DockerSettings } from '../../src/config/types.js';
import { IN_CI } from './require-mariadb.js';

export const TEST_DB_IMAGE = process.env.MEMRL_TEST_LLB_DB_IMAGE || 'memrl/llb-db-mariadb:latest';
export const TEST_OS_IMAGE = process.env.MEMRL_TEST_LLB_OS_IMAGE || 'memrl/llb-os:latest';

export const TEST_DOCKER: DockerSettings = {
  host: null,
  images: { bcb: 'memrl/bcb:latest', llb_db: TEST_DB_IMAGE, llb_os: TEST_OS_IMAGE, alfworld: 'memrl/alfworld:latest' },
  memoryMb: 512,
  pids: 256,
  pull: 'never',
};

export interface DockerRequirement {
  ok: boolean;
  reason: string;
  /** Pass to describe.skipIf(): true only when missing AND not in CI. */
  skip: boolean;
  backend?: ContainerBackend;
}

export async function requireDocker(image: string, concurrency = 2): Promise<DockerRequirement> {
  try {
    const backend = await openContainerBackend(TEST_DOCKER, concurrency);
    await backend.image(image);
    return { ok: true, reason: '', skip: false, backend };
  } catch (err) {
    const reason = (err as Error).message;
    if (!IN_CI) process.stderr.write(`[skip] LLB docker tests (${image}): ${reason}\n`);
    return { ok: false, reason, skip: !IN_CI };
  }
}

/** Containers this test process started that are still there (must be none after a suite). */
export async function ourContainers(backend: ContainerBackend): Promise<string[]> {
  const all = await listMemrlContainers(backend.engine);
  return all.filter((c) => c.pid === process.pid).map((c) => `${c.id.slice(0, 12)} ${c.role} ${c.state}`);
}

/** Kills (SIGKILL, from outside) every container of `role` this process started. */
export async function killOurContainers(backend: ContainerBackend, role: string): Promise<number> {
  const all = await listMemrlContainers(backend.engine);
  const mine = all.filter((c) => c.pid === process.pid && c.role === role && c.state === 'running');
  await Promise.all(mine.map((c) => backend.engine.docker.getContainer(c.id).kill({ signal: 'SIGKILL' }).catch(() => undefined)));
  return mine.length;
}
