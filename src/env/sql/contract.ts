/**
 * The sql kind: a MySQL-compatible server on which each task gets a throwaway
 * database and a user granted only that database; the agent's SQL runs as that user
 * under the dialect's statement time limit. The shared logic is one class
 * (SqlServer, sql-server.ts, held by the opened backend: backend.ts); what differs
 * between backends is how the `mysql` client reaches the server (SqlTransport): the
 * host's client over a local server's unix socket, or the client exec'd inside a
 * server container.
 */
import type { ContainerPlacement } from '../container/backend.js';

export interface SqlSettings {
  /**
   * Start of every task database's name (and its user's): `<prefix><pid>_<n>_<hex>`,
   * at most 32 characters in all (MySQL's limit on user names), so at most 10 here.
   * Stale ones of dead processes are swept by prefix. Default 'memrl_env_'.
   */
  databasePrefix?: string;
  /** The server container (docker only); its pool size is ignored (one server per run). */
  docker?: ContainerPlacement;
}

export interface SqlResult {
  ok: boolean;
  /** Rows as text cells (null = SQL NULL); [] for statements without a result set. */
  rows: (string | null)[][];
  columns: string[];
  /** The server's error, e.g. `(1064, "You have an error ...")`, when !ok. */
  error?: string;
  errorCode?: number;
  /** The server's SQLSTATE and bare message, when it reported an `ERROR nnnn (state)`. */
  sqlState?: string;
  errorMessage?: string;
  timedOut: boolean;
}

export interface ConnectAs {
  user: string;
  password?: string;
  database?: string;
}

/**
 * 'mariadb': statement limit by max_statement_time (seconds, every statement).
 * 'mysql' (a real MySQL server): its own max_execution_time (milliseconds, SELECT only).
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

/** One run of the client: who connects, to which database, the SQL text (stdin), the wall-clock backstop. */
export interface ClientRequest {
  user: string;
  database?: string;
  /** Travels in the client's environment (MYSQL_PWD), never in argv. */
  password?: string;
  input: string;
  backstopMs: number;
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

export interface TaskDatabase {
  database: string;
  user: ConnectAs;
  /** The server's dialect: which statement limit (and which compatibility rewrites of the caller) apply. */
  dialect: SqlDialect;
  /** The agent's SQL, as the limited user, with the statement timeout. Throws SqlTransportError. */
  exec(sql: string, timeoutSec: number): Promise<SqlResult>;
  /** Admin SQL inside this database (scoring). Throws SqlTransportError. */
  admin(sql: string): Promise<SqlResult>;
  dispose(): Promise<void>;
}

export type ServerCheck = { ok: true; version: string } | { ok: false; reason: string };
