/** LLB db against the real MariaDB server (bash scripts/setup.sh mariadb). */
import { describe, expect, it } from 'vitest';
import { defaultLlbFile, loadLlbFile, type DbTask } from '../../src/bench/llb/dataset.js';
import { checkDbGold } from '../../src/bench/llb/check-gold-db.js';
import { openDbTask, tableHash, withDbTask } from '../../src/bench/llb/db-env.js';
import { runAdmin } from '../../src/env/sql/local.js';
import { requireMariadb } from './require-mariadb.js';

const req = await requireMariadb();
const tasks = loadLlbFile(defaultLlbFile('db', 'runtime'), 'db').tasks;
const byIndex = new Map(tasks.map((t) => [t.index, t]));
const md5Tasks = tasks.filter((t) => t.answer.md5 !== null);
/** Gold answers that depend on how ties under ORDER BY are broken (MySQL 8 vs MariaDB): not a fidelity signal. */
const ORDER_BY_TIES = new Set(['225', '228', '273', '41']);
const directTasks = tasks.filter((t) => t.answer.md5 === null);

async function dbExists(name: string): Promise<boolean> {
  const r = await runAdmin(`SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = '${name}'`);
  return r.rows[0]?.[0] === '1';
}

describe.skipIf(req.skip)('LLB db on MariaDB', () => {
  it('is reachable', () => {
    expect(req.reason).toBe('');
    expect(req.ok).toBe(true);
  });

  it('reproduces the stored md5 of gold SQL (sample, incl. DELETE ... AS alias), and an untouched table does not', async () => {
    // The full 500: node bin/memrl.js check-gold llb --task db (about 20 s).
    const sample = [...md5Tasks.filter((_, i) => i % 10 === 0), ...['165', '68'].map((i) => byIndex.get(i)!)];
    const rs = await checkDbGold(sample, 4);
    expect(rs.filter((r) => !r.pass)).toEqual([]);
    expect(rs.filter((r) => r.vacuous)).toEqual([]);
  });

  it('matches direct answers of gold SQL (sample, incl. GROUP BY ... LIMIT OFFSET)', async () => {
    const sample = [...directTasks.filter((t, i) => i % 25 === 0 && !ORDER_BY_TIES.has(t.index)), ...['213', '295', '6'].map((i) => byIndex.get(i)!)];
    const rs = await checkDbGold(sample, 4);
    expect(rs.filter((r) => !r.pass)).toEqual([]);
  });

  it('hides the insertion-order column from SELECT * and INSERT without a column list', async () => {
    const task = md5Tasks[0] as DbTask;
    await withDbTask(task, async (db) => {
      const t = '`' + task.table.name + '`';
      const all = await db.exec(`SELECT * FROM ${t} LIMIT 1`, 5);
      expect(all.columns).toEqual(task.table.columns.map((c) => c.name));
      const values = task.table.rows[0]!.map((v) => (typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`));
      expect((await db.exec(`INSERT INTO ${t} VALUES (${values.join(', ')})`, 5)).ok).toBe(true);
    });
  });

  it("confines the agent's SQL to its own database", async () => {
    const task = md5Tasks[0] as DbTask;
    const other = await openDbTask(task);
    try {
      await withDbTask(task, async (db) => {
        const t = '`' + task.table.name + '`';
        expect((await db.exec(`SELECT COUNT(*) FROM ${t}`, 5)).ok).toBe(true);
        const cross = await db.exec(`SELECT * FROM \`${other.database}\`.${t}`, 5);
        expect(cross.ok).toBe(false);
        expect(cross.error).toMatch(/denied/i);
        expect((await db.exec(`DROP DATABASE \`${other.database}\``, 5)).ok).toBe(false);
        expect((await db.exec('SELECT * FROM mysql.user', 5)).ok).toBe(false);
        expect((await db.exec("SELECT * FROM " + t + " INTO OUTFILE '/tmp/memrl-llb-leak.txt'", 5)).ok).toBe(false);
        const file = await db.exec("SELECT LOAD_FILE('/etc/passwd')", 5);
        expect(file.rows[0]?.[0] ?? null).toBeNull();
        expect((await db.exec("CREATE USER 'x'@'localhost'", 5)).ok).toBe(false);
      });
      expect(await dbExists(other.database)).toBe(true);
    } finally {
      await other.dispose();
    }
  });

  it('cuts a hanging statement with the timeout and the session goes on', async () => {
    const task = directTasks[0] as DbTask;
    await withDbTask(task, async (db) => {
      const t0 = Date.now();
      const r = await db.exec('SELECT SLEEP(30)', 1);
      expect(r.ok).toBe(false);
      expect(r.timedOut).toBe(true);
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect((await db.exec('SELECT 1', 1)).ok).toBe(true);
    });
  });

  it('drops the database after the task, even when the episode throws', async () => {
    const task = md5Tasks[1] as DbTask;
    let name = '';
    await expect(
      withDbTask(task, async (db) => {
        name = db.database;
        expect((await tableHash(db, task)).hash).toMatch(/^[0-9a-f]{32}$/);
        throw new Error('crash');
      }),
    ).rejects.toThrow('crash');
    expect(name).not.toBe('');
    expect(await dbExists(name)).toBe(false);
  });
});
