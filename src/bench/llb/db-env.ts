/** One LLB db task on a SQL server (local or container): its own database + limited user, scoring, cleanup. */
import type { SqlResult, TaskDatabase } from '../../env/sql/contract.js';
import type { SqlServer } from '../../env/sql/sql-server.js';
import type { DbTask } from './dataset.js';
import { directAnswerMatches, renderRows, tableHashSql, tableSetupSql } from './db-score.js';
import { localLlbSqlServer } from './evaluator.js';

/** Per-statement time limit for agent SQL (seconds). */
export const DB_STATEMENT_TIMEOUT_S = 10;

export interface DbScore {
  success: boolean;
  kind: 'md5' | 'direct';
  /** The table hash after the episode (md5 tasks). */
  hash?: string | null;
  error?: string;
}

/** A fresh database for `task` on `server` (default: the local MariaDB). */
export async function openDbTask(task: DbTask, server?: SqlServer): Promise<TaskDatabase> {
  return (server ?? (await localLlbSqlServer())).createTaskDatabase((dialect) => tableSetupSql(task, dialect));
}

/** Runs `fn` on a fresh database for `task`; the database is dropped afterwards, whatever happens. */
export async function withDbTask<T>(task: DbTask, fn: (db: TaskDatabase) => Promise<T>, server?: SqlServer): Promise<T> {
  const db = await openDbTask(task, server);
  try {
    return await fn(db);
  } finally {
    await db.dispose();
  }
}

export async function tableHash(db: TaskDatabase, task: DbTask): Promise<{ hash: string | null; error?: string }> {
  const r: SqlResult = await db.admin(tableHashSql(task));
  if (!r.ok) return { hash: null, error: r.error };
  return { hash: r.rows[0]?.[0] ?? null };
}

/** md5 tasks: the table state; direct tasks: the final answer text (null = the agent never answered). */
export async function scoreDbTask(db: TaskDatabase, task: DbTask, finalAnswer: string | null): Promise<DbScore> {
  if (task.answer.md5 !== null) {
    const { hash, error } = await tableHash(db, task);
    return { success: hash !== null && hash === task.answer.md5, kind: 'md5', hash, error };
  }
  if (finalAnswer === null) return { success: false, kind: 'direct', error: 'no final answer' };
  return { success: directAnswerMatches(task, finalAnswer), kind: 'direct' };
}

/** The gold SQL's result as an answer text (used by check-gold and the sim). */
export function rowsAsAnswer(rows: (string | null)[][]): string {
  return renderRows(rows);
}
