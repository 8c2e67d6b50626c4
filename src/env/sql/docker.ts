/**
 * A SQL server container for the run: one MySQL-compatible server (the official
 * mysql:8, or a MariaDB image), no network. The harness talks to it by exec'ing the
 * image's own `mysql` client inside the container over the server's unix socket
 * (client-session.ts), so no port is published; the per-task databases and users
 * are the shared SqlServer's, exactly as on the local server.
 */
import { randomBytes } from 'node:crypto';
import { Pool } from '../../util/pool.js';
import type { EnvCheck, EvaluatorFacts } from '../contract.js';
import { openContainerBackend, type ContainerBackend, type ContainerPlacement } from '../container/backend.js';
import { Box, ContainerGoneError, type BoxSpec } from '../container/box.js';
import { describeError } from '../container/engine.js';
import type { ImageFacts } from '../container/image.js';
import { SQL_MAX_RESTARTS, SQL_MAX_SESSIONS, SQL_READY_TIMEOUT_MS, SQL_TMPFS_BYTES } from '../limits.js';
import type { SqlBackend } from './backend.js';
import type { ClientRequest, ClientRun, SqlSettings, SqlTransport } from './contract.js';
import { ClientSession } from './client-session.js';
import { SqlTransportError } from './faults.js';
import { SqlServer } from './sql-server.js';

const MiB = 1024 * 1024;

/**
 * The client inside the server container, through a pool of sessions; a vanished
 * container is a SqlTransportError (the statements in flight fail as harness faults)
 * and the next statement starts a fresh server, up to SQL_MAX_RESTARTS times.
 */
class ContainerTransport implements SqlTransport {
  private dead = false;
  private restarting: Promise<void> | null = null;
  private sessions: Pool<ClientSession>;
  restarts = 0;
  closed = false;

  constructor(
    public box: Box,
    private readonly image: string,
    private readonly startBox: () => Promise<Box>,
  ) {
    this.sessions = this.sessionPool();
  }

  private sessionPool(): Pool<ClientSession> {
    return new Pool<ClientSession>({
      policy: 'reuse',
      size: SQL_MAX_SESSIONS,
      create: () => ClientSession.open(this.box),
      destroy: async (s) => s.close(),
      check: (s) => {
        if (s.ended) throw new Error('the client session ended');
      },
    });
  }

  get label(): string {
    return `container ${this.box.shortId} (${this.image})`;
  }

  private async revive(): Promise<void> {
    if (this.restarts >= SQL_MAX_RESTARTS) throw new SqlTransportError(`the SQL server container died ${this.restarts + 1} times; not restarting it again`);
    this.restarting ??= (async () => {
      this.restarts++;
      await this.dropSessions();
      await this.box.remove();
      const box = await this.startBox();
      if (this.closed) {
        await box.remove();
        throw new SqlTransportError('the SQL server was closed');
      }
      this.box = box;
      this.dead = false;
    })().finally(() => (this.restarting = null));
    await this.restarting;
  }

  /** Closes the idle sessions; those in use end with their container and are dropped when they come back. */
  async dropSessions(): Promise<void> {
    await this.sessions.retireIdle();
  }

  async run(req: ClientRequest): Promise<ClientRun> {
    if (this.dead) {
      try {
        await this.revive();
      } catch (err) {
        throw err instanceof SqlTransportError ? err : new SqlTransportError(`cannot restart the SQL server container: ${(err as Error).message}`);
      }
    }
    const box = this.box;
    let session: ClientSession | undefined;
    try {
      session = await this.sessions.acquire();
      return await session.run(req);
    } catch (err) {
      if (err instanceof SqlTransportError) throw err;
      const state = await box.state();
      if (!state.running) {
        if (box === this.box) this.dead = true;
        throw new SqlTransportError(new ContainerGoneError(box.id, state.detail).message);
      }
      throw new SqlTransportError(`SQL server container ${box.shortId}: ${(err as Error).message}`);
    } finally {
      if (session) await this.sessions.release(session);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.sessions.close();
    await this.box.remove();
  }
}

export function sqlServerSpec(placement: ContainerPlacement, rootPassword: string): BoxSpec {
  return {
    image: placement.image,
    role: placement.role,
    // mysql:8 sets root's password from this; the MariaDB image ignores it (root logs in by unix_socket).
    env: { MYSQL_ROOT_PASSWORD: rootPassword },
    network: false,
    memoryBytes: placement.settings.memoryMb * MiB,
    pids: placement.settings.pids,
    // The entrypoints start as root, chown the data directory and drop to the mysql user.
    capAdd: ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETUID', 'SETGID'],
    // The server writes its data directory and socket under the image's own paths.
    readOnlyRoot: false,
    tmpfs: { '/tmp': SQL_TMPFS_BYTES },
  };
}

export interface ContainerSqlServer {
  server: SqlServer;
  image: ImageFacts;
  /** The server container now (a new one after a restart). */
  box(): Box;
  /** How many times the server was restarted after dying. */
  restarts(): number;
  /** Removes the server container (and with it every task database). Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts the server container and waits until the final server answers. mysql:8's
 * entrypoint first runs a temporary server (socket only, --skip-networking) to set
 * up root, then restarts: the server is ready when 127.0.0.1:3306 inside answers
 * (even an access-denied answer counts), and then the admin login over the socket works.
 */
export async function startContainerSqlServer(backend: ContainerBackend, placement: ContainerPlacement, databasePrefix?: string): Promise<ContainerSqlServer> {
  const facts = await backend.image(placement.image);
  const rootPassword = randomBytes(16).toString('hex');
  const startBox = async (): Promise<Box> => {
    const box = await Box.start(backend.engine, sqlServerSpec(placement, rootPassword));
    try {
      await waitForTcp(box);
      return box;
    } catch (err) {
      await box.remove();
      throw err;
    }
  };
  const transport = new ContainerTransport(await startBox(), placement.image, startBox);
  try {
    const server = new SqlServer(transport, { user: 'root', password: rootPassword }, `the server container from ${placement.image} did not come up`, databasePrefix);
    const up = await server.probe();
    if (!up.ok) throw new SqlTransportError(up.reason);
    return { server, image: facts, box: () => transport.box, restarts: () => transport.restarts, close: () => transport.close() };
  } catch (err) {
    await transport.close();
    throw err;
  }
}

async function waitForTcp(box: Box): Promise<void> {
  const deadline = Date.now() + SQL_READY_TIMEOUT_MS;
  let last = '';
  while (Date.now() < deadline) {
    const state = await box.state();
    if (!state.running) throw new SqlTransportError(`the SQL server container ${box.shortId} stopped while starting (${state.detail})${await logTail(box)}`);
    const r = await box.exec(['mysql', '--protocol=tcp', '-h', '127.0.0.1', '-P', '3306', '-u', 'memrl_probe', '--connect-timeout=2', '-e', 'SELECT 1'], {
      env: { MYSQL_PWD: 'x' },
      timeoutMs: 10_000,
    });
    // 0, or the server's own refusal (ERROR 1045/1698 access denied): a server answers over TCP.
    if (r.exitCode === 0 || /ERROR (1045|1698|1130)\b/.test(r.stderr)) return;
    last = r.stderr.trim().split('\n').at(-1) ?? '';
    await new Promise((res) => setTimeout(res, 500));
  }
  throw new SqlTransportError(`the SQL server container ${box.shortId} did not answer within ${SQL_READY_TIMEOUT_MS / 1000} s (${last})${await logTail(box)}`);
}

async function logTail(box: Box): Promise<string> {
  try {
    const buf = (await box.container.logs({ stdout: true, stderr: true, tail: 5 })) as unknown as Buffer;
    // Multiplexed frames: drop the 8-byte headers roughly by keeping printable text.
    const text = buf.toString('utf8').replace(/[\x00-\x08\x0e-\x1f]/g, '').trim();
    return text ? `; its last log lines: ${text.slice(-500)}` : '';
  } catch {
    return '';
  }
}

/** One server container for the run as an opened sql backend. The server starts at open (it takes a while). */
export class DockerSqlBackend implements SqlBackend {
  readonly backend = 'docker' as const;

  private constructor(
    private readonly containers: ContainerBackend,
    private readonly started: ContainerSqlServer,
  ) {}

  /** Throws a UserError when the engine or image is missing, a SqlTransportError when the server does not come up. */
  static async open(settings: SqlSettings): Promise<DockerSqlBackend> {
    if (!settings.docker) throw new SqlTransportError('the docker sql backend needs container settings (engine, image)');
    const containers = await openContainerBackend(settings.docker.settings, 1);
    return new DockerSqlBackend(containers, await startContainerSqlServer(containers, settings.docker, settings.databasePrefix));
  }

  get server(): SqlServer {
    return this.started.server;
  }

  restarts(): number {
    return this.started.restarts();
  }

  async check(): Promise<EnvCheck> {
    try {
      const up = await this.server.probe();
      return up.ok ? { ok: true, detail: `server ${up.version} in ${this.started.image.image}` } : { ok: false, reason: up.reason };
    } catch (err) {
      return { ok: false, reason: describeError(err) };
    }
  }

  async describe(): Promise<EvaluatorFacts> {
    return {
      backend: 'docker',
      engine: this.containers.info,
      image: this.started.image,
      server: this.server.version,
      restarts: this.started.restarts(),
      dialect: this.server.dialect,
    };
  }

  close(): Promise<void> {
    return this.started.close();
  }
}
