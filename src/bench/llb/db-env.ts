/** One LLB db task on a SQL server (local or container): its own database + limited user, scoring, cleanup. */
import type { SqlResult, TaskDatabase } from '../../env/sql/contract.js';
import type { SqlServer } from '../../env/sql/sql-server.js';
import { REFERENCE_FIDELITY, type Fidelity } from '../../util/fidelity.js';
import type { DbTask } from './dataset.js';
import { directAnswerMatches, md5AnswerFromResult, Md5ResultError, renderRows, tableHashSql, tableSetupSql } from './db-score.js';
import { referenceDirectMatches } from './db-validate.js';
import { localLlbSqlServer } from './evaluator.js';
import { LLB_SWITCHES } from './switches.js';

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

/** The table-state hash as the reference reads it from the query's result; null with the reason when it cannot. */
export async function tableHash(db: TaskDatabase, task: DbTask): Promise<{ hash: string | null; error?: string }> {
  const r: SqlResult = await db.admin(tableHashSql(task));
  if (!r.ok) return { hash: null, error: r.error };
  try {
    return { hash: md5AnswerFromResult(renderRows(r.rows)) };
  } catch (err) {
    if (err instanceof Md5ResultError) return { hash: null, error: err.message };
    throw err;
  }
}

/**
 * md5 tasks: the table state, whatever was answered. direct tasks: the Final Answer
 * text by the reference's validator, with '' when there was none (so an empty gold
 * answer passes), or by memrl's (switch llb.db-direct-validator: no answer fails).
 */
export async function scoreDbTask(db: TaskDatabase, task: DbTask, finalAnswer: string | null, fidelity: Fidelity = REFERENCE_FIDELITY): Promise<DbScore> {
  if (task.answer.md5 !== null) {
    const { hash, error } = await tableHash(db, task);
    return { success: hash !== null && hash === task.answer.md5, kind: 'md5', hash, error };
  }
  if (fidelity.memrl(LLB_SWITCHES.dbDirectValidator)) {
    if (finalAnswer === null) return { success: false, kind: 'direct', error: 'no final answer' };
    return { success: directAnswerMatches(task, finalAnswer), kind: 'direct' };
  }
  return { success: referenceDirectMatches(finalAnswer ?? '', task.answer.direct ?? []), kind: 'direct' };
}

/** The gold SQL's result as an answer text (used by check-gold and the sim). */
export function rowsAsAnswer(rows: (string | null)[][]): string {
  return renderRows(rows);
}
