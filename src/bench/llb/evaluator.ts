/**
 * Where LLB tasks run, chosen by memrl.evaluator.backend (--evaluator), both from
 * the env registry:
 * - db: the sql kind: the host's MariaDB (local) or one server container for the run (docker);
 * - os: the shell kind: the bubblewrap root shell over the rootfs (local) or one
 *   fresh container per task (docker).
 * Opening checks that the backend works (a UserError saying how to fix it if not);
 * close() releases the containers.
 */
import { imageOf } from '../../config/image-slot.js';
import type { DockerSettings } from '../../config/types.js';
import type { EnvBackendName, EvaluatorFacts } from '../../env/contract.js';
import { openEnv } from '../../env/registry.js';
import type { ShellEnvironment } from '../../env/shell/contract.js';
import type { SqlServer } from '../../env/sql/sql-server.js';
import { UserError } from '../../util/errors.js';

/** Start of LLB's task database names on the SQL server (swept by it when their process is gone). */
export const LLB_DATABASE_PREFIX = 'memrl_llb_';

export interface LlbEvaluatorOptions {
  backend: EnvBackendName;
  /** memrl.evaluator.docker (needed for docker). */
  docker?: DockerSettings;
  /** Tasks running at once: the size of the os container pool. */
  concurrency: number;
}

export interface LlbDbBackend {
  server: SqlServer;
  describe(): Promise<EvaluatorFacts>;
  close(): Promise<void>;
}

export interface LlbOsBackend {
  /** A fresh environment for one task; the caller disposes it. */
  create(): Promise<ShellEnvironment>;
  describe(): Promise<EvaluatorFacts>;
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
  let sql;
  if (opts.backend === 'local') {
    sql = await openEnv('sql', 'local', { databasePrefix: LLB_DATABASE_PREFIX });
    const up = await sql.check();
    if (!up.ok) throw new UserError(up.reason);
    await sql.server.sweepStale();
  } else {
    const settings = dockerSettings(opts);
    const image = imageOf(settings, 'llb_db');
    // The server takes a while to start; its failure to come up is the user's to fix (image, engine).
    try {
      sql = await openEnv('sql', 'docker', { databasePrefix: LLB_DATABASE_PREFIX, docker: { settings, image, role: 'llb-db', concurrency: 1 } });
    } catch (err) {
      if (err instanceof UserError) throw err;
      throw new UserError(`LLB db: cannot start the SQL server container from ${image}: ${(err as Error).message}`);
    }
  }
  const opened = sql;
  return {
    server: opened.server,
    describe: async () => ({ ...(await opened.describe()), statementTimeoutS, compat: COMPAT[opened.server.dialect] }),
    close: () => opened.close(),
  };
}

export async function openOsBackend(opts: LlbEvaluatorOptions): Promise<LlbOsBackend> {
  const shells =
    opts.backend === 'local'
      ? await openEnv('shell', 'local', {})
      : await openEnv('shell', 'docker', { docker: { settings: dockerSettings(opts), image: imageOf(dockerSettings(opts), 'llb_os'), role: 'llb-os', concurrency: opts.concurrency } });
  const ok = await shells.check();
  if (!ok.ok) {
    await shells.close();
    throw new UserError(opts.backend === 'local' ? ok.reason : `LLB os: the task container from ${imageOf(dockerSettings(opts), 'llb_os')} does not work: ${ok.reason}`);
  }
  return {
    create: () => shells.create(),
    describe: () => shells.describe(),
    close: () => shells.close(),
  };
}

/** A fresh local os environment for one task (the default of episodes and the gold check). */
export async function createLocalOsEnvironment(): Promise<ShellEnvironment> {
  return (await openEnv('shell', 'local', {})).create();
}

/** The host's SQL server under LLB's database names (the default of db episodes and the gold check). */
export async function localLlbSqlServer(): Promise<SqlServer> {
  return (await openEnv('sql', 'local', { databasePrefix: LLB_DATABASE_PREFIX })).server;
}
