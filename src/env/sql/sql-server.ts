/**
 * A MySQL-compatible server reached through a transport (contract.ts): each task
 * gets a throwaway database `<prefix><pid>_<n>_<rand>` and a user granted only that
 * database; the agent's SQL runs as that user under the dialect's statement time
 * limit; databases left by dead processes are swept. The same whatever the
 * transport: the local client (local.ts) or the client inside a server container
 * (docker.ts).
 */
import { randomBytes } from 'node:crypto';
import { SQL_ADMIN_BACKSTOP_MS, SQL_BACKSTOP_MARGIN_MS } from '../limits.js';
import { dialectOf, type ClientRun, type ConnectAs, type ServerCheck, type SqlDialect, type SqlResult, type SqlTransport, type TaskDatabase } from './contract.js';
import { SqlTransportError, TaskDatabaseError } from './faults.js';
import { quoteIdent, sqlLiteral } from './sql-text.js';

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
    ...(m ? { sqlState: m[2] as string, errorMessage: msg } : {}),
    timedOut: run.killed || (code !== undefined && TIMEOUT_CODES.has(code)),
  };
}

/** Default start of task database names (see SqlSettings.databasePrefix). */
export const DEFAULT_DATABASE_PREFIX = 'memrl_env_';
let counter = 0;

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
    /** Start of task database names (see SqlSettings.databasePrefix). */
    readonly databasePrefix: string = DEFAULT_DATABASE_PREFIX,
  ) {
    if (!/^[A-Za-z0-9_]{1,10}$/.test(databasePrefix)) throw new RangeError(`database prefix '${databasePrefix}' must be 1-10 letters, digits or _`);
  }

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
    const backstop = timeoutSec > 0 ? timeoutSec * 1000 + SQL_BACKSTOP_MARGIN_MS : SQL_ADMIN_BACKSTOP_MS;
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
    const database = `${this.databasePrefix}${process.pid}_${++counter}_${randomBytes(3).toString('hex')}`;
    const password = randomBytes(12).toString('hex');
    const user: ConnectAs = { user: database, password, database };
    this.live.add(database);
    // MySQL 8 keeps its own default collation (what its users expect); MariaDB's utf8mb4 default is general_ci either way.
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
      throw new TaskDatabaseError(`could not create the task database: ${create.error}`);
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
    const r = await this.runAdmin(`SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE '${this.databasePrefix}%'`).catch(() => null);
    if (!r?.ok) return 0;
    let n = 0;
    for (const [name] of r.rows) {
      const pid = Number(new RegExp(`^${this.databasePrefix}(\\d+)_`).exec(name ?? '')?.[1]);
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

