/**
 * The local SQL server: the host's MariaDB (or MySQL), reached by the host's
 * `mariadb`/`mysql` command-line client over the server's unix socket (no driver
 * dependency). Admin: the server's root over its unix socket (Debian's unix_socket
 * auth for OS root; set MEMRL_MYSQL_ADMIN_USER / MYSQL_PWD otherwise). Start the
 * server with `bash scripts/setup.sh mariadb`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { EnvCheck, EvaluatorFacts } from '../contract.js';
import { SQL_MAX_RESULT_BYTES } from '../limits.js';
import type { SqlBackend } from './backend.js';
import type { ConnectAs, ServerCheck, SqlResult, SqlSettings, SqlTransport } from './contract.js';
import { SqlTransportError } from './faults.js';
import { DEFAULT_DATABASE_PREFIX, SqlServer } from './sql-server.js';
import { clientArgs, quoteIdent } from './sql-text.js';

export const DEFAULT_SOCKET = '/run/mysqld/mysqld.sock';
export const START_HINT = 'start it with: bash scripts/setup.sh mariadb (installs and starts MariaDB; set MEMRL_MYSQL_SOCKET for another socket)';

export function mysqlSocket(): string {
  return process.env.MEMRL_MYSQL_SOCKET || DEFAULT_SOCKET;
}

let clientPath: string | null | undefined;
export function mysqlClient(): string | null {
  if (clientPath !== undefined) return clientPath;
  clientPath = null;
  for (const name of ['mariadb', 'mysql']) {
    const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim()) {
      clientPath = r.stdout.trim();
      break;
    }
  }
  return clientPath;
}

/** The host's client binary over the server's unix socket. */
export const localTransport: SqlTransport = {
  get label() {
    return `unix://${mysqlSocket()}`;
  },
  run({ user, database, password, input, backstopMs }) {
    const client = mysqlClient();
    if (!client) return Promise.reject(new SqlTransportError(`no mariadb/mysql client found; ${START_HINT}`));
    const env = { ...process.env };
    if (password !== undefined) env.MYSQL_PWD = password;
    return new Promise((resolveRun, reject) => {
      const child = spawn(client, ['--protocol=socket', '-S', mysqlSocket(), ...clientArgs({ user, database })], { env, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      let killed = false;
      const timer = setTimeout(() => {
        killed = true;
        child.kill('SIGKILL');
      }, backstopMs);
      // Characters of a result kept, as bytes in the container transport: a runaway result set cannot fill our memory.
      child.stdout.on('data', (d: Buffer) => {
        const room = SQL_MAX_RESULT_BYTES - out.length;
        if (room > 0) out += d.toString('utf8').slice(0, room);
      });
      child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(new SqlTransportError(`cannot run ${client}: ${e.message}`));
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        resolveRun({ stdout: out, stderr: err, code: killed ? null : code, killed });
      });
      child.stdin.on('error', () => undefined);
      child.stdin.end(input);
    });
  },
};

export function adminUser(): ConnectAs {
  return { user: process.env.MEMRL_MYSQL_ADMIN_USER || 'root' };
}

/** One server object per database prefix for the process: each keeps the set of its live databases. */
const servers = new Map<string, SqlServer>();

/** The host's server, for task databases named with `databasePrefix`. */
export function localSqlServer(databasePrefix = DEFAULT_DATABASE_PREFIX): SqlServer {
  let server = servers.get(databasePrefix);
  if (!server) {
    server = new SqlServer(localTransport, adminUser(), START_HINT, databasePrefix);
    servers.set(databasePrefix, server);
    installExitHook();
  }
  return server;
}

let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    // Best effort, synchronous: drop what a crash left behind on the local server.
    const client = mysqlClient();
    const live = [...servers.values()].flatMap((s) => [...s.live]);
    if (!client || live.length === 0) return;
    const sql = live.map((db) => `DROP DATABASE IF EXISTS ${quoteIdent(db)}; DROP USER IF EXISTS '${db}'@'localhost';`).join('\n');
    spawnSync(client, ['--protocol=socket', '-S', mysqlSocket(), '-u', adminUser().user], { input: sql, timeout: 10_000 });
  });
}

/** Runs SQL on the local server (see SqlServer.runSql); a transport failure becomes `ok: false`. */
export async function runSql(sql: string, as: ConnectAs, timeoutSec = 0): Promise<SqlResult> {
  try {
    return await localSqlServer().runSql(sql, as, timeoutSec);
  } catch (err) {
    return { ok: false, rows: [], columns: [], error: (err as Error).message, timedOut: false };
  }
}

export function runAdmin(sql: string): Promise<SqlResult> {
  return runSql(sql, adminUser());
}

/** Is the local server reachable? `{ok:false, reason}` carries one message with how to start it. */
export async function checkMariadb(): Promise<ServerCheck> {
  if (!mysqlClient()) return { ok: false, reason: `no mariadb/mysql client installed; ${START_HINT}` };
  if (!existsSync(mysqlSocket())) return { ok: false, reason: `MariaDB is not running (no socket at ${mysqlSocket()}); ${START_HINT}` };
  return localSqlServer().probe();
}

/** The local server as an opened sql backend. Opening sweeps the databases dead processes left. */
export class LocalSqlBackend implements SqlBackend {
  readonly backend = 'local' as const;
  readonly server: SqlServer;

  constructor(settings: SqlSettings = {}) {
    this.server = localSqlServer(settings.databasePrefix);
  }

  async check(): Promise<EnvCheck> {
    if (!mysqlClient()) return { ok: false, reason: `no mariadb/mysql client installed; ${START_HINT}` };
    if (!existsSync(mysqlSocket())) return { ok: false, reason: `MariaDB is not running (no socket at ${mysqlSocket()}); ${START_HINT}` };
    const up = await this.server.probe();
    return up.ok ? { ok: true, detail: `server ${up.version}` } : { ok: false, reason: up.reason };
  }

  restarts(): number {
    return 0;
  }

  async describe(): Promise<EvaluatorFacts> {
    return { backend: 'mariadb', server: this.server.version, dialect: this.server.dialect };
  }

  async close(): Promise<void> {
    // The server is the host's; task databases are dropped by their own dispose().
  }
}
