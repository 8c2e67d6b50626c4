/**
 * The sql kind's conformance cases, run against every registered sql backend
 * (sql.conformance.test.ts): what a task database's user (here with an LLB db
 * task's table) must not do: see or touch other databases, read or write
 * server files, run administrative statements, or hold the server with a runaway
 * statement.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultLlbFile, loadLlbFile, type DbTask } from '../../../src/bench/llb/dataset.js';
import { openDbTask } from '../../../src/bench/llb/db-env.js';
import type { TaskDatabase } from '../../../src/env/sql/contract.js';
import type { SqlServer } from '../../../src/env/sql/sql-server.js';

export function defineDbEscapes(label: string, skip: boolean, server: () => SqlServer): void {
  describe.skipIf(skip)(`db user confinement: ${label}`, () => {
    const task = loadLlbFile(defaultLlbFile('db', 'runtime'), 'db').tasks.find((t) => t.answer.md5 !== null) as DbTask;
    const t = '`' + task.table.name + '`';
    let mine: TaskDatabase;
    let other: TaskDatabase;

    beforeAll(async () => {
      mine = await openDbTask(task, server());
      other = await openDbTask(task, server());
    });
    afterAll(async () => {
      await mine?.dispose();
      await other?.dispose();
    });

    it('sees only its own database', async () => {
      const r = await mine.exec('SHOW DATABASES', 5);
      expect(r.ok).toBe(true);
      expect(r.rows.map((x) => x[0]).sort()).toEqual([mine.database, 'information_schema'].sort());
      const p = await mine.exec('SHOW PROCESSLIST', 5);
      expect(p.rows.every((row) => row[1] === mine.database)).toBe(true);
    });

    it('cannot read, change or drop another task database', async () => {
      for (const sql of [`SELECT * FROM \`${other.database}\`.${t}`, `DELETE FROM \`${other.database}\`.${t}`, `DROP DATABASE \`${other.database}\``, `USE \`${other.database}\``]) {
        const r = await mine.exec(sql, 5);
        expect(r.ok, sql).toBe(false);
        expect(r.error, sql).toMatch(/denied/i);
      }
      expect((await other.admin(`SELECT COUNT(*) FROM ${t}`)).rows[0]?.[0]).toBe(String(task.table.rows.length));
    });

    it('cannot run administrative statements', async () => {
      const admin = [
        'SELECT * FROM mysql.user',
        "CREATE USER 'memrl_evil'@'%' IDENTIFIED BY 'x'",
        `GRANT ALL PRIVILEGES ON *.* TO '${mine.database}'@'localhost'`,
        'SET GLOBAL max_connections = 1',
        'SHUTDOWN',
        'CREATE DATABASE memrl_evil',
        'FLUSH PRIVILEGES',
      ];
      for (const sql of admin) {
        const r = await mine.exec(sql, 5);
        expect(r.ok, sql).toBe(false);
        expect(r.error, sql).toMatch(/denied|privilege/i);
      }
      // KILL of a connection that is not its own.
      const ids = await other.admin('SELECT CONNECTION_ID()');
      const kill = await mine.exec(`KILL ${ids.rows[0]?.[0] ?? 1}`, 5);
      expect(kill.ok).toBe(false);
      expect((await mine.exec('SELECT 1', 5)).ok).toBe(true);
    });

    it('cannot read or write server files', async () => {
      expect((await mine.exec(`SELECT * FROM ${t} INTO OUTFILE '/tmp/memrl-leak.txt'`, 5)).ok).toBe(false);
      const file = await mine.exec("SELECT LOAD_FILE('/etc/passwd')", 5);
      expect(file.rows[0]?.[0] ?? null).toBeNull();
      expect((await mine.exec("LOAD DATA INFILE '/etc/passwd' INTO TABLE " + t, 5)).ok).toBe(false);
    });

    it('a huge result set is cut to the output cap, and the session goes on', async () => {
      const t0 = Date.now();
      const r = await mine.exec("SELECT REPEAT('x', 1000000) FROM information_schema.COLLATIONS a, information_schema.COLLATIONS b LIMIT 100", 10);
      expect(Date.now() - t0).toBeLessThan(30_000);
      expect(r.rows.length).toBeGreaterThan(0);
      expect(r.rows.length).toBeLessThanOrEqual(100);
      expect(r.rows.reduce((n, row) => n + (row[0]?.length ?? 0), 0)).toBeLessThanOrEqual(16 * 1024 * 1024);
      expect((await mine.exec('SELECT 1', 5)).ok).toBe(true);
    }, 60_000);

    it('a runaway statement is cut by the time limit and the session goes on', async () => {
      const runaway = [
        'SELECT SLEEP(30)',
        `SELECT COUNT(*) FROM ${t} a, ${t} b, ${t} c, ${t} d, ${t} e, ${t} f`,
        "SELECT BENCHMARK(100000000000, MD5('x'))",
        `UPDATE ${t} SET ${'`' + task.table.columns[0]!.name + '`'} = ${'`' + task.table.columns[0]!.name + '`'} WHERE SLEEP(30) = 0`,
      ];
      for (const sql of runaway) {
        const t0 = Date.now();
        const r = await mine.exec(sql, 1);
        // Cut at the server's limit (an error, or a quietly interrupted SLEEP/BENCHMARK), else by the client backstop.
        expect(Date.now() - t0, sql).toBeLessThan(8_000);
        if (!r.ok) expect(r.timedOut, `${sql}: ${r.error}`).toBe(true);
      }
      expect((await mine.exec('SELECT 1', 5)).ok).toBe(true);
    }, 60_000);
  });
}
