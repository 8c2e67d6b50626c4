import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultLlbFile, loadLlbFile, LLB_FILES, llbDataDir, type DbTask } from '../../src/bench/llb/dataset.js';
import { directAnswerMatches, mysql8Compat, parseLiteral, renderRows, rowsMatch } from '../../src/bench/llb/db-score.js';
import { parseDbReplyMemrl } from '../../src/bench/llb/db-parse.js';
import { parseOsReplyMemrl } from '../../src/bench/llb/os-parse.js';

const tmp = mkdtempSync(join(tmpdir(), 'memrl-llb-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function dbTask(direct: unknown[][], sql: string): DbTask {
  return { kind: 'db', id: 'db/x', key: 'k', index: 'x', instruction: 'k', table: { name: 't', columns: [], rows: [] }, answer: { direct, md5: null, sql }, skills: [] };
}

describe('LLB data', () => {
  it('loads the train/val/runtime files with keys in string order', () => {
    const f = loadLlbFile(defaultLlbFile('db', 'runtime'), 'db');
    expect(f.tasks).toHaveLength(500);
    expect(f.tasks.slice(0, 4).map((t) => t.index)).toEqual(['0', '1', '10', '100']);
    expect(loadLlbFile(defaultLlbFile('db', 'train'), 'db').tasks).toHaveLength(361);
    expect(loadLlbFile(defaultLlbFile('db', 'valid'), 'db').tasks).toHaveLength(139);
    const os = loadLlbFile(defaultLlbFile('os', 'train'), 'os');
    expect(os.tasks).toHaveLength(350);
    expect(os.tasks[0]!.evalScript.length).toBeGreaterThan(0);
  });

  it('rejects the Python-repr *_data.json files naming the usable ones', () => {
    expect(() => loadLlbFile(join(llbDataDir(), LLB_FILES.db.repr), 'db')).toThrow(/Python-repr.*db_train\.json, db_val\.json or db_bench_runtime_learning_data\.json/);
    const p = join(tmp, 'x.json');
    writeFileSync(p, JSON.stringify({ '0': { instruction: 'i', evaluation_info: "{'a': 1}" } }));
    expect(() => loadLlbFile(p, 'os')).toThrow(/os_interaction_train\.json/);
  });
});

describe('LLB db answers', () => {
  it('parses Python literals as the reference prints them', () => {
    expect(parseLiteral("[('a', Decimal('1.5'), None), (2,)]")).toEqual([['a', 1.5, null], [2]]);
    expect(parseLiteral('[["x", 1e3]]')).toEqual([['x', 1000]]);
    expect(parseLiteral('not a literal')).toBeUndefined();
  });

  it('renders rows like str(cursor.fetchall())', () => {
    expect(renderRows([['a', '1.50', null, '3'], ["it's", '2', '-1', 'x']])).toBe("[('a', Decimal('1.50'), None, 3), (\"it's\", 2, -1, 'x')]");
    expect(renderRows([['7']])).toBe('[(7,)]');
    expect(renderRows([])).toBe('[]');
  });

  it('compares cells: floats within 1e-6, up to two pairs of quotes', () => {
    expect(rowsMatch([[1.0000000001, "''Alice''"]], [[1, 'Alice']], true)).toBe(true);
    expect(rowsMatch([[1.01, 'Alice']], [[1, 'Alice']], true)).toBe(false);
    expect(rowsMatch([["'''Alice'''"]], [['Alice']], true)).toBe(false);
  });

  it('is order-free unless the gold SQL has ORDER BY', () => {
    const gold = [['b', 2], ['a', 1]];
    expect(directAnswerMatches(dbTask(gold, 'SELECT x, y FROM t GROUP BY x'), "[('a', 1), ('b', 2)]")).toBe(true);
    expect(directAnswerMatches(dbTask(gold, 'SELECT x, y FROM t ORDER BY y DESC'), "[('a', 1), ('b', 2)]")).toBe(false);
    expect(directAnswerMatches(dbTask(gold, 'SELECT x, y FROM t ORDER BY y DESC'), "[('b', 2), ('a', 1)]")).toBe(true);
    expect(directAnswerMatches(dbTask([[3]], 'SELECT COUNT(*) FROM t'), '3')).toBe(true);
    expect(directAnswerMatches(dbTask([['x'], ['y']], 'SELECT n FROM t'), '["x", "y"]')).toBe(true);
    expect(directAnswerMatches(dbTask([['x'], ['y']], 'SELECT n FROM t'), '["x"]')).toBe(false);
  });

  it('rewrites MySQL 8 constructs MariaDB reads differently', () => {
    expect(mysql8Compat('SELECT a, COUNT(*) FROM t GROUP BY a LIMIT 5 OFFSET 3;')).toBe('SELECT a, COUNT(*) FROM t GROUP BY a ORDER BY NULL LIMIT 5 OFFSET 3;');
    expect(mysql8Compat('SELECT a FROM t GROUP BY a')).toBe('SELECT a FROM t GROUP BY a ORDER BY NULL;');
    expect(mysql8Compat('SELECT a FROM t GROUP BY a ORDER BY c DESC LIMIT 3;')).toBe('SELECT a FROM t GROUP BY a ORDER BY c DESC, MIN(__memrl_row) LIMIT 3;');
    expect(mysql8Compat('SELECT a FROM t ORDER BY c DESC')).toBe('SELECT a FROM t ORDER BY c DESC, __memrl_row;');
    expect(mysql8Compat('SELECT a FROM t JOIN u ON t.x = u.x ORDER BY c')).toBe('SELECT a FROM t JOIN u ON t.x = u.x ORDER BY c');
    expect(mysql8Compat('SELECT DISTINCT a FROM t ORDER BY a')).toBe('SELECT DISTINCT a FROM t ORDER BY a');
    expect(mysql8Compat('DELETE FROM t AS x WHERE x.a = 1;')).toBe('DELETE x FROM t AS x WHERE x.a = 1;');
    expect(mysql8Compat('DELETE FROM t WHERE a = 1;')).toBe('DELETE FROM t WHERE a = 1;');
  });

  it("parses the db and os action formats (memrl's lenient parsers)", () => {
    expect(parseDbReplyMemrl('think\nAction: Operation\n```sql\nSELECT 1;\n```')).toMatchObject({ action: 'execute', content: 'SELECT 1;' });
    expect(parseDbReplyMemrl('action:answer\nFinal Answer:\n["a"]')).toMatchObject({ action: 'finish', content: '["a"]' });
    expect(parseDbReplyMemrl('SELECT 1')).toMatchObject({ action: 'invalid', content: null });
    expect(parseOsReplyMemrl('**Act:** bash\n```sh\nls /\n```\n```bash\npwd\n```')).toMatchObject({ action: 'execute', content: 'ls /\n\npwd' });
    expect(parseOsReplyMemrl('Act: bash\nno block')).toMatchObject({ action: 'invalid' });
    expect(parseOsReplyMemrl('Act: finish')).toMatchObject({ action: 'finish', content: null });
  });
});
