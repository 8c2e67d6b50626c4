/**
 * Where LLB tasks run, chosen by memrl.evaluator.backend (--evaluator):
 * - local: db on the host's MariaDB (src/sandbox/sql/mariadb.ts), os in the
 *   bubblewrap root shell (os-env.ts);
 * - docker: db on one server container for the run (src/sandbox/sql/container.ts),
 *   os in one fresh container per task (os-docker.ts).
 * Opening checks that the backend works (a UserError saying how to fix it if not);
 * close() releases the containers.
 */
import type { DockerSettings } from '../../config/types.js';
import { imageOf, openContainerBackend } from '../../container/backend.js';
import { startContainerSqlServer } from '../../sandbox/sql/container.js';
import { checkMariadb, localSqlServer, type SqlServer } from '../../sandbox/sql/mariadb.js';
import { rootfsIdentity } from '../../sandbox/shell/rootfs-id.js';
import { UserError } from '../../util/errors.js';
import { checkOsSandbox, createOsEnvironment, type OsEnvironment } from './os-env.js';
import { OsContainerFactory } from './os-docker.js';

export interface LlbEvaluatorOptions {
  backend: 'local' | 'docker';
  /** memrl.evaluator.docker (needed for docker). */
  docker?: DockerSettings;
  /** Tasks running at once: the size of the os container pool. */
  concurrency: number;
}

export interface LlbDbBackend {
  server: SqlServer;
  describe(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface LlbOsBackend {
  /** A fresh environment for one task; the caller disposes it. */
  create(): Promise<OsEnvironment>;
  describe(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** What the db compatibility layer does on each dialect (for the run manifest). */
const COMPAT = {
  mariadb:
    'MySQL 8 emulation: GROUP BY without ORDER BY gets ORDER BY NULL; DELETE FROM t AS a → DELETE a FROM t AS a; ties under ORDER BY by insertion order; direct answers order-free unless the gold SQL has ORDER BY',
  mysql: 'none (a real MySQL server); direct answers order-free unless the gold SQL has ORDER BY',
};

function dockerSettings(opts: LlbEvaluatorOptions): DockerSettings {
  if (!opts.docker) throw new Error('evaluator backend docker needs memrl.evaluator.docker settings');
  return opts.docker;
}

export async function openDbBackend(opts: LlbEvaluatorOptions, statementTimeoutS: number): Promise<LlbDbBackend> {
  if (opts.backend === 'local') {
    const up = await checkMariadb();
    if (!up.ok) throw new UserError(up.reason);
    const server = localSqlServer();
    await server.sweepStale();
    return {
      server,
      describe: async () => ({ backend: 'mariadb', server: server.version, dialect: server.dialect, statementTimeoutS, compat: COMPAT[server.dialect] }),
      close: async () => undefined,
    };
  }
  const settings = dockerSettings(opts);
  // The server takes a while to start; its failure to come up is the user's to fix (image, engine).
  const backend = await openContainerBackend(settings, 1);
  let started;
  try {
    started = await startContainerSqlServer(backend, imageOf(settings, 'llb_db'));
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(`LLB db: cannot start the SQL server container from ${imageOf(settings, 'llb_db')}: ${(err as Error).message}`);
  }
  const { server, image } = started;
  return {
    server,
    describe: async () => ({
      backend: 'docker',
      engine: backend.info,
      image,
      server: server.version,
      restarts: started.restarts(),
      dialect: server.dialect,
      statementTimeoutS,
      compat: COMPAT[server.dialect],
    }),
    close: () => started.close(),
  };
}

export async function openOsBackend(opts: LlbEvaluatorOptions): Promise<LlbOsBackend> {
  if (opts.backend === 'local') {
    const ok = await checkOsSandbox();
    if (!ok.ok) throw new UserError(ok.reason);
    return {
      create: () => createOsEnvironment(),
      describe: async () => ({ backend: 'os-sandbox', rootfs: rootfsIdentity() }),
      close: async () => undefined,
    };
  }
  const settings = dockerSettings(opts);
  const backend = await openContainerBackend(settings, opts.concurrency);
  const factory = await OsContainerFactory.open(backend, imageOf(settings, 'llb_os'));
  const ok = await factory.check();
  if (!ok.ok) {
    await factory.close();
    throw new UserError(`LLB os: the task container from ${imageOf(settings, 'llb_os')} does not work: ${ok.reason}`);
  }
  return {
    create: () => factory.create(),
    describe: async () => factory.describe(),
    close: () => factory.close(),
  };
}
