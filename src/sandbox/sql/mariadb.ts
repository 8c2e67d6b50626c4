/**
 * MariaDB / MySQL access for LifelongAgentBench db, through the `mariadb` (or
 * `mysql`) command-line client: no driver dependency. How the client is reached is
 * a transport (SqlTransport): the local client over the host server's unix socket
 * (here), or the client exec'd inside a server container (container.ts). Everything
 * else is shared (SqlServer): each task gets a throwaway database
 * `memrl_llb_<pid>_<n>_<rand>` and a user granted only that database; the agent's
 * SQL runs as that user under the dialect's statement time limit.
 *
 * Local admin: the server's root over its unix socket (Debian's unix_socket auth for
 * OS root; set MEMRL_MYSQL_ADMIN_USER / MYSQL_PWD otherwise). Start the local server
 * with `bash scripts/setup.sh mariadb`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { HarnessError } from '../../util/errors.js';

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

export interface SqlResult {
  ok: boolean;
  /** Rows as text cells (null = SQL NULL); [] for statements without a result set. */
  rows: (string | null)[][];
  columns: string[];
  /** The server's error, e.g. `(1064, "You have an error ...")`, when !ok. */
  error?: string;
  errorCode?: number;
  timedOut: boolean;
}

export interface ConnectAs {
  user: string;
  password?: string;
  database?: string;
}

/**
 * 'mariadb': statement limit by max_statement_time (seconds, every statement), and
 * the MySQL 8 emulation of db-score.ts. 'mysql' (a real MySQL server): its own
 * max_execution_time (milliseconds, SELECT only), no emulation.
 */
export type SqlDialect = 'mariadb' | 'mysql';

export function dialectOf(version: string): SqlDialect {
  return /mariadb/i.test(version) ? 'mariadb' : 'mysql';
}

/** What one run of the client gave. */
export interface ClientRun {
  stdout: string;
  stderr: string;
  /** null when the client did not exit by itself (killed at the backstop). */
  code: number | null;
  /** The transport killed the client at its wall-clock backstop. */
  killed: boolean;
}

/** The harness could not reach the server (client missing, server or container gone): an evaluator fault. */
/** The SQL server or its client failed (not the statement): a harness fault. */
export class SqlTransportError extends HarnessError {
  constructor(message: string) {
    super(message, 'sql_transport');
    this.name = 'SqlTransportError';
  }
}

/** One run of the client: who connects, to which database, the SQL text (stdin), the wall-clock backstop. */
export interface ClientRequest {
  user: string;
  database?: string;
  /** Travels in the client's environment (MYSQL_PWD), never in argv. */
  password?: string;
  input: string;
  backstopMs: number;
}

/** The client's arguments after the connection ones: output as tab-separated text, NULL as the bare word. */
export function clientArgs(req: Pick<ClientRequest, 'user' | 'database'>): string[] {
  return ['-u', req.user, '--batch', '--raw', '--default-character-set=utf8mb4', ...(req.database ? ['-D', req.database] : [])];
}

/**
 * How the `mysql` client reaches the server (a local process on the socket, or
 * inside a server container). Throws SqlTransportError when the transport itself fails.
 */
export interface SqlTransport {
  /** For messages: where the server is, e.g. 'unix:///run/mysqld/mysqld.sock' or 'container 1a2b3c'. */
  readonly label: string;
  run(req: ClientRequest): Promise<ClientRun>;
}

/** `--batch --raw` output cell → value; NULL is the bare word (a string 'NULL' is indistinguishable: documented). */
function parseBatch(stdout: string): { columns: string[]; rows: (string | null)[][] } {
  if (!stdout) return { columns: [], rows: [] };
  const lines = stdout.replace(/\n$/, '').split('\n');
  const columns = (lines.shift() ?? '').split('\t');
  const rows = lines.map((l) => l.split('\t').map((c) => (c === 'NULL' ? null : c)));
  return { columns, rows };
}

/** Server error codes of a statement cut by the time limit: MariaDB max_statement_time, MySQL max_execution_time. */
const TIMEOUT_CODES = new Set([1969, 3024]);
/** Client-side errors that mean the server is unreachable (CR_CONNECTION_ERROR, CR_CONN_HOST_ERROR, CR_SERVER_GONE_ERROR, CR_SERVER_LOST). */
const CONNECTION_CODES = new Set([2002, 2003, 2006, 2013]);
/** Margin of the client backstop over the server's own limit. */
const BACKSTOP_MARGIN_MS = 5_000;
/** Characters of a result kept by the local transport (the container one keeps as many bytes). */
const MAX_RESULT_CHARS = 16 * 1024 * 1024;
/** Admin statements (setup, scoring, cleanup) have no server limit; the backstop still applies. */
const ADMIN_BACKSTOP_MS = 120_000;

function resultOf(run: ClientRun): SqlResult {
  if (run.code === 0 && !run.killed) {
    // Several result sets: only the last is kept (the agent sends one statement).
    return { ok: true, ...parseBatch(run.stdout), timedOut: false };
  }
  const err = run.stderr.trim();
  const m = /^ERROR (\d+) \(([0-9A-Z]+)\)(?: at line \d+)?: ([^]*)$/m.exec(err);
  const code = m ? Number(m[1]) : undefined;
  const msg = m ? (m[3] as string).trim() : err || (run.killed ? 'the statement was stopped by the harness time limit' : `client exited with ${run.code}`);
  return {
    ok: false,
    rows: [],
    columns: [],
    error: code !== undefined ? `(${code}, ${JSON.stringify(msg)})` : msg,
    errorCode: code,
    timedOut: run.killed || (code !== undefined && TIMEOUT_CODES.has(code)),
  };
}

export function quoteIdent(name: string): string {
  return '`' + name.replace(/`/g, '``') + '`';
}

export function sqlLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'NULL';
  if (typeof v === 'boolean') return v ? '1' : '0';
  return "'" + String(v).replace(/\\/g, '\\\\').replace(/'/g, "''").replace(/\0/g, '\\0') + "'";
}

const PREFIX = 'memrl_llb_';
let counter = 0;

export interface TaskDatabase {
  database: string;
  user: ConnectAs;
  /** The server's dialect: which statement limit and which compatibility rewrites apply. */
  dialect: SqlDialect;
  /** The agent's SQL, as the limited user, with the statement timeout. Throws SqlTransportError. */
  exec(sql: string, timeoutSec: number): Promise<SqlResult>;
  /** Admin SQL inside this database (scoring). Throws SqlTransportError. */
  admin(sql: string): Promise<SqlResult>;
  dispose(): Promise<void>;
}

export type ServerCheck = { ok: true; version: string } | { ok: false; reason: string };

/**
 * A MySQL-compatible server reached through a transport: the per-task databases,
 * users, statement limits and cleanup, the same whatever the transport.
 */
export class SqlServer {
  private version_: string | null = null;
  /** Databases of this process not dropped yet. */
  readonly live = new Set<string>();

  constructor(
    readonly transport: SqlTransport,
    readonly adminAs: ConnectAs,
    /** Appended to connection failures: how to get a server. */
    readonly hint: string,
  ) {}

  /** VERSION() of the server, once probed (null before). */
  get version(): string | null {
    return this.version_;
  }

  get dialect(): SqlDialect {
    return dialectOf(this.version_ ?? 'mariadb');
  }

  /**
   * Runs SQL text (possibly several statements) as `as`. `timeoutSec` > 0 sets the
   * dialect's statement limit for the session; the client is also stopped at
   * timeoutSec + 5 s (a MySQL 8 limit covers SELECT only), and then the user's
   * statements still running on the server are killed. Only the last result set is kept.
   */
  async runSql(sql: string, as: ConnectAs, timeoutSec = 0): Promise<SqlResult> {
    const r = await this.rawSql(sql, as, timeoutSec);
    if (!r.ok && r.errorCode !== undefined && CONNECTION_CODES.has(r.errorCode)) {
      // Lost the connection: an evaluator fault when the server is down, else the statement's own error.
      const up = await this.rawSql('SELECT 1', this.adminAs, 0).catch(() => null);
      if (!up?.ok) throw new SqlTransportError(`the SQL server at ${this.transport.label} stopped answering: ${r.error}`);
    }
    return r;
  }

  private async rawSql(sql: string, as: ConnectAs, timeoutSec: number): Promise<SqlResult> {
    const limit = timeoutSec > 0 ? this.statementLimitSql(timeoutSec) : '';
    const backstop = timeoutSec > 0 ? timeoutSec * 1000 + BACKSTOP_MARGIN_MS : ADMIN_BACKSTOP_MS;
    const run = await this.transport.run({ user: as.user, database: as.database, password: as.password, input: limit + sql + '\n', backstopMs: backstop });
    // The mysql client exits 0, or 1 with an `ERROR nnnn` line; anything else is the transport failing.
    if (!run.killed && run.code !== 0 && !/^ERROR \d+/m.test(run.stderr)) {
      throw new SqlTransportError(`the mysql client at ${this.transport.label} failed (exit ${run.code}): ${run.stderr.trim().slice(0, 300)}`);
    }
    const r = resultOf(run);
    if (run.killed && as.user !== this.adminAs.user) await this.killQueriesOf(as.user);
    if (run.killed && timeoutSec <= 0) throw new SqlTransportError(`the SQL server at ${this.transport.label} did not answer within ${backstop / 1000} s`);
    return r;
  }

  private statementLimitSql(timeoutSec: number): string {
    return this.dialect === 'mariadb'
      ? `SET SESSION max_statement_time=${timeoutSec};\n`
      : `SET SESSION max_execution_time=${Math.round(timeoutSec * 1000)};\n`;
  }

  /** After a client was stopped at the backstop, its statement may still run on the server. */
  private async killQueriesOf(user: string): Promise<void> {
    try {
      const r = await this.runAdmin(`SELECT ID FROM information_schema.PROCESSLIST WHERE USER = ${sqlLiteral(user)}`);
      const ids = r.rows.map((row) => Number(row[0])).filter((n) => Number.isInteger(n));
      if (ids.length) await this.runAdmin(ids.map((id) => `KILL ${id};`).join('\n'));
    } catch {
      // best effort
    }
  }

  runAdmin(sql: string, database?: string): Promise<SqlResult> {
    return this.runSql(sql, database ? { ...this.adminAs, database } : this.adminAs);
  }

  /** Is the server answering as admin? Records VERSION() (and with it the dialect). */
  async probe(): Promise<ServerCheck> {
    let r: SqlResult;
    try {
      r = await this.rawSql('SELECT VERSION() AS v', this.adminAs, 0);
    } catch (err) {
      return { ok: false, reason: `${(err as Error).message}; ${this.hint}` };
    }
    if (!r.ok) return { ok: false, reason: `cannot connect to the SQL server at ${this.transport.label} as ${this.adminAs.user}: ${r.error}; ${this.hint}` };
    this.version_ = String(r.rows[0]?.[0] ?? '');
    return { ok: true, version: this.version_ };
  }

  /**
   * A fresh database with one limited user; `setupSql` (given the dialect) runs as
   * admin inside it. Throws when the server is unreachable or the setup fails.
   */
  async createTaskDatabase(setupSql: string | ((dialect: SqlDialect) => string)): Promise<TaskDatabase> {
    if (this.version_ === null) {
      const up = await this.probe();
      if (!up.ok) throw new SqlTransportError(up.reason);
    }
    const dialect = this.dialect;
    // <= 32 characters: MySQL's limit on user names.
    const database = `${PREFIX}${process.pid}_${++counter}_${randomBytes(3).toString('hex')}`;
    const password = randomBytes(12).toString('hex');
    const user: ConnectAs = { user: database, password, database };
    this.live.add(database);
    // MySQL 8 keeps its own default collation (LLB runs on it); MariaDB's utf8mb4 default is general_ci either way.
    const charset = dialect === 'mariadb' ? ' CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci' : ' CHARACTER SET utf8mb4';
    const setup = typeof setupSql === 'function' ? setupSql(dialect) : setupSql;
    const dispose = async (): Promise<void> => {
      try {
        await this.runAdmin(`DROP DATABASE IF EXISTS ${quoteIdent(database)}; DROP USER IF EXISTS '${database}'@'localhost';`);
      } catch {
        // the server is gone; nothing to drop any more
      }
      this.live.delete(database);
    };
    let create: SqlResult;
    try {
      create = await this.runAdmin(
        `CREATE DATABASE ${quoteIdent(database)}${charset};\n` +
          `CREATE USER '${database}'@'localhost' IDENTIFIED BY '${password}';\n` +
          `GRANT ALL PRIVILEGES ON ${quoteIdent(database)}.* TO '${database}'@'localhost';\n` +
          `USE ${quoteIdent(database)};\n${setup}`,
      );
    } catch (err) {
      await dispose();
      throw err;
    }
    if (!create.ok) {
      await dispose();
      throw new Error(`could not create the task database: ${create.error}`);
    }
    return {
      database,
      user,
      dialect,
      exec: (sql, timeoutSec) => this.runSql(sql, user, timeoutSec),
      admin: (sql) => this.runAdmin(sql, database),
      dispose,
    };
  }

  /** Drops databases and users left by memrl processes that no longer exist (shared, long-lived servers). */
  async sweepStale(): Promise<number> {
    const r = await this.runAdmin(`SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE '${PREFIX}%'`).catch(() => null);
    if (!r?.ok) return 0;
    let n = 0;
    for (const [name] of r.rows) {
      const pid = Number(/^memrl_llb_(\d+)_/.exec(name ?? '')?.[1]);
      if (!name || !Number.isFinite(pid)) continue;
      let alive = true;
      try {
        process.kill(pid, 0);
      } catch {
        alive = false;
      }
      if (alive && pid !== process.pid) continue;
      if (pid === process.pid && this.live.has(name)) continue;
      await this.runAdmin(`DROP DATABASE IF EXISTS ${quoteIdent(name)}; DROP USER IF EXISTS '${name}'@'localhost';`).catch(() => null);
      n++;
    }
    return n;
  }
}

// ---------- the local server: the host's client over the unix socket ----------

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
      // Bytes of a result kept, as in the container transport: a runaway result set cannot fill our memory.
      child.stdout.on('data', (d: Buffer) => {
        const room = MAX_RESULT_CHARS - out.length;
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

let local: SqlServer | undefined;
/** The host's MariaDB (one per process). */
export function localSqlServer(): SqlServer {
  if (!local) {
    local = new SqlServer(localTransport, adminUser(), START_HINT);
    installExitHook();
  }
  return local;
}

let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    // Best effort, synchronous: drop what a crash left behind on the local server.
    const client = mysqlClient();
    const live = localSqlServer().live;
    if (!client || live.size === 0) return;
    const sql = [...live].map((db) => `DROP DATABASE IF EXISTS ${quoteIdent(db)}; DROP USER IF EXISTS '${db}'@'localhost';`).join('\n');
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

/** Drops local databases and users left by memrl processes that no longer exist. */
export function sweepStale(): Promise<number> {
  return localSqlServer().sweepStale();
}

/** A fresh database on the local server (see SqlServer.createTaskDatabase). */
export function createTaskDatabase(setupSql: string | ((dialect: SqlDialect) => string)): Promise<TaskDatabase> {
  return localSqlServer().createTaskDatabase(setupSql);
}
