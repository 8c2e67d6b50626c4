/**
 * `memrl check-gold llb --task db`: for every task, run the gold SQL in a fresh
 * database and score it like an episode (md5 of the table, or the result rows as
 * the final answer); and score the untouched table (no SQL, empty answer for md5
 * tasks; for direct tasks the untouched check is the md5-less "answer = nothing",
 * which can only pass when the gold answer is empty): a check that passes there is vacuous.
 */
import { makeFidelity } from '../../util/fidelity.js';
import { mapPool } from '../../util/pool.js';
import { adaptSql } from './db-score.js';
import type { SqlServer } from '../../env/sql/sql-server.js';
import type { DbTask } from './dataset.js';
import { DB_STATEMENT_TIMEOUT_S, rowsAsAnswer, scoreDbTask, withDbTask } from './db-env.js';
import { LLB_FIDELITY_SWITCHES, LLB_SWITCHES } from './switches.js';

/**
 * The gold check measures the machine (does the server reproduce the gold results?),
 * so direct answers are compared by memrl's validator: the reference's cannot match
 * a gold string holding a comma, whoever answers.
 */
const GOLD_SCORING = makeFidelity('reference', LLB_FIDELITY_SWITCHES, { [LLB_SWITCHES.dbDirectValidator]: 'memrl' });

export interface DbGoldResult {
  id: string;
  kind: 'md5' | 'direct';
  pass: boolean;
  vacuous: boolean;
  error?: string;
}

export async function checkDbGoldTask(task: DbTask, server?: SqlServer): Promise<DbGoldResult> {
  const kind = task.answer.md5 !== null ? 'md5' : 'direct';
  const gold = await withDbTask(task, async (db) => {
    const r = await db.exec(adaptSql(task.answer.sql, db.dialect), DB_STATEMENT_TIMEOUT_S);
    if (!r.ok) return { pass: false, error: r.error };
    const s = await scoreDbTask(db, task, rowsAsAnswer(r.rows), GOLD_SCORING);
    return { pass: s.success, error: s.success ? undefined : s.error ?? (kind === 'md5' ? `hash ${s.hash} != ${task.answer.md5}` : `rows ${rowsAsAnswer(r.rows).slice(0, 200)}`) };
  }, server);
  const vacuous = await withDbTask(task, async (db) => (await scoreDbTask(db, task, kind === 'md5' ? '' : '[]', GOLD_SCORING)).success, server);
  return { id: task.id, kind, pass: gold.pass, vacuous, error: gold.error };
}

export async function checkDbGold(tasks: DbTask[], concurrency = 8, onDone?: (r: DbGoldResult) => void, server?: SqlServer): Promise<DbGoldResult[]> {
  return mapPool(tasks, concurrency, async (t) => {
    let r: DbGoldResult;
    try {
      r = await checkDbGoldTask(t, server);
    } catch (err) {
      r = { id: t.id, kind: t.answer.md5 !== null ? 'md5' : 'direct', pass: false, vacuous: false, error: (err as Error).message };
    }
    onDone?.(r);
    return r;
  });
}
