/**
 * LLB's flow differences from the reference, one switch each: the reference's
 * behaviour under the default profile, memrl's under the switch. Episodes run on a
 * scripted model and a recording stand-in for the database or the shell (the real
 * evaluators are exercised by cli.test.ts, db-server.test.ts and the gold checks);
 * the statement split also runs on the real MariaDB.
 */
import { describe, expect, it } from 'vitest';
import type { SqlResult, TaskDatabase } from '../../src/env/sql/contract.js';
import type { SqlServer } from '../../src/env/sql/sql-server.js';
import type { ShellEnvironment, ShellExecResult } from '../../src/env/shell/contract.js';
import type { ChatRequest } from '../../src/llm/types.js';
import type { Outcome } from '../../src/core/index.js';
import { makeFidelity, REFERENCE_FIDELITY, type Fidelity } from '../../src/util/fidelity.js';
import type { DbTask, OsTask } from '../../src/bench/llb/dataset.js';
import { runDbEpisode, runOsEpisode, type LlbEpisodeOptions } from '../../src/bench/llb/episode.js';
import { LLB_FIDELITY_SWITCHES } from '../../src/bench/llb/switches.js';
import { localLlbSqlServer } from '../../src/bench/llb/evaluator.js';
import { episodeContext, scriptedModel } from './scripted-model.js';
import { requireMariadb } from './require-mariadb.js';

const memrl = (id: string): Fidelity => makeFidelity('reference', LLB_FIDELITY_SWITCHES, { [id]: 'memrl' });
const options = (fidelity: Fidelity, maxSteps = 5): LlbEpisodeOptions => ({ maxSteps, temperature: 0, fidelity });

function dbTask(answer: { md5?: string; direct?: unknown[][]; sql?: string }): DbTask {
  return {
    kind: 'db',
    id: 'db/t',
    key: 'k',
    index: 't',
    instruction: 'Do the thing.',
    table: { name: 'orders', columns: [{ name: 'id', type: 'INT' }, { name: 'note', type: 'TEXT' }], rows: [[1, 'a']] },
    answer: { md5: answer.md5 ?? null, direct: answer.direct ?? null, sql: answer.sql ?? 'SELECT 1' },
    skills: [],
  };
}

const ok = (rows: (string | null)[][]): SqlResult => ({ ok: true, rows, columns: rows.length ? ['c'] : [], timedOut: false });

/** A task database that records what it is sent: `exec` answers per statement, the hash query gives `hash`. */
function fakeServer(hash: string | null, exec: (sql: string) => SqlResult = () => ok([])) {
  const sent: string[] = [];
  const admin: string[] = [];
  const db: TaskDatabase = {
    database: 'memrl_llb_test',
    user: { user: 'u' },
    dialect: 'mysql',
    exec: async (sql) => {
      sent.push(sql);
      return exec(sql);
    },
    admin: async (sql) => {
      admin.push(sql);
      return ok([[hash]]);
    },
    dispose: async () => undefined,
  };
  return { server: { createTaskDatabase: async () => db } as unknown as SqlServer, sent, admin };
}

/** A recording model: its replies in order, and the requests it saw. */
function recordingModel(replies: string[]) {
  const seen: ChatRequest[] = [];
  const model = scriptedModel(replies);
  return { seen, model: { ...model, chat: async (req: ChatRequest, signal?: AbortSignal) => (seen.push(req), model.chat(req, signal)) } };
}

const osTask: OsTask = { kind: 'os', id: 'os/t', key: 'k', index: 't', instruction: 'Make /x.', initScript: null, evalScript: 'test -e /x', groundTruthScript: 'touch /x', skills: [] };

/** A shell that records commands and checks; `output` answers each command. */
function fakeShell(output: (script: string) => ShellExecResult = () => ({ output: '', exitCode: 0, timedOut: false })) {
  const commands: string[] = [];
  const checks: string[] = [];
  const env: ShellEnvironment = {
    init: async () => undefined,
    exec: async (script) => (commands.push(script), output(script)),
    check: async (script) => (checks.push(script), true),
    dispose: async () => undefined,
  };
  return { create: async () => env, commands, checks };
}

const userMessages = (req: ChatRequest): string[] => req.messages.filter((m) => m.role === 'user').map((m) => m.content as string);

describe('llb.db-score-after-invalid: an invalid reply on an md5 task', () => {
  const replies = ['Action: Operation\n```sql\nUPDATE orders SET note = \'b\' WHERE id = 1;\n```', 'I have updated it.'];

  it('reference: the table state is still scored', async () => {
    const f = fakeServer('0123456789abcdef0123456789abcdef');
    const out = await runDbEpisode(dbTask({ md5: '0123456789abcdef0123456789abcdef' }), episodeContext(scriptedModel(replies)), options(REFERENCE_FIDELITY), f.server);
    expect(out.success).toBe(true);
    expect(out.extra).toMatchObject({ sampleStatus: 'agent_validation_failed', invalidFormat: true });
    expect(f.admin).toHaveLength(1);
    expect(f.admin[0]).toContain("select md5(group_concat(rowhash order by rowhash)) as hash from( SELECT substring(MD5(CONCAT_WS(',', `id`,`note`)), 1, 5) AS rowhash FROM `orders`) as sub;");
  });

  it('memrl: the task fails without scoring', async () => {
    const f = fakeServer('0123456789abcdef0123456789abcdef');
    const out = await runDbEpisode(dbTask({ md5: '0123456789abcdef0123456789abcdef' }), episodeContext(scriptedModel(replies)), options(memrl('llb.db-score-after-invalid')), f.server);
    expect(out.success).toBe(false);
    expect(out.error).toBe('reply in no valid format');
    expect(f.admin).toEqual([]);
  });
});

describe('llb.db-statement-split and llb.db-parse: what an Operation sends', () => {
  const reply = "Action: Operation\n```sql\nUPDATE orders SET note = 'x;y' WHERE id = 1;\nSELECT note FROM orders;\n```";

  it("reference: one line, cut at every ';', each piece on its own; the last result is shown", async () => {
    const f = fakeServer(null, (sql) => ok([[sql.length.toString()]]));
    const m = recordingModel([reply, 'Action: Answer\nFinal Answer: x']);
    await runDbEpisode(dbTask({ direct: [['x']] }), episodeContext(m.model), options(REFERENCE_FIDELITY), f.server);
    expect(f.sent).toEqual(["UPDATE orders SET note = 'x", "y' WHERE id = 1", 'SELECT note FROM orders']);
    expect(userMessages(m.seen[1]!).at(-1)).toBe(`[(${'SELECT note FROM orders'.length},)]`);
  });

  it('memrl: the text goes to the client whole', async () => {
    const f = fakeServer(null);
    await runDbEpisode(dbTask({ direct: [['x']] }), episodeContext(scriptedModel([reply, 'Action: Answer\nFinal Answer: x'])), options(memrl('llb.db-statement-split')), f.server);
    expect(f.sent).toEqual(["UPDATE orders SET note = 'x;y' WHERE id = 1; SELECT note FROM orders;"]);
  });

  it('reference: a lower-case action is no action; memrl (llb.db-parse) reads it', async () => {
    const lower = 'action: operation\n```sql\nSELECT 1;\n```';
    const ref = fakeServer(null);
    const a = await runDbEpisode(dbTask({ direct: [[1]] }), episodeContext(scriptedModel([lower])), options(REFERENCE_FIDELITY), ref.server);
    expect(a.extra).toMatchObject({ sampleStatus: 'agent_validation_failed' });
    expect(ref.sent).toEqual([]);
    const ours = fakeServer(null);
    await runDbEpisode(dbTask({ direct: [[1]] }), episodeContext(scriptedModel([lower, 'Action: Answer\nFinal Answer: 1'])), options(memrl('llb.db-parse')), ours.server);
    expect(ours.sent).toEqual(['SELECT 1']);
  });
});

describe('llb.db-direct-validator: a direct answer', () => {
  const run = async (fidelity: Fidelity, replies: string[], direct: unknown[][], maxSteps = 5): Promise<Outcome> =>
    runDbEpisode(dbTask({ direct }), episodeContext(scriptedModel(replies)), options(fidelity, maxSteps), fakeServer(null).server);

  it('reference: a gold string holding a comma cannot match; memrl: it does', async () => {
    const replies = ["Action: Answer\nFinal Answer: [('Smith, John',)]"];
    expect((await run(REFERENCE_FIDELITY, replies, [['Smith, John']])).success).toBe(false);
    expect((await run(memrl('llb.db-direct-validator'), replies, [['Smith, John']])).success).toBe(true);
  });

  it('reference: without a final answer, an empty gold answer passes; memrl: no answer fails', async () => {
    const looping = ['Action: Operation\n```sql\nSELECT 1;\n```'];
    const ref = await run(REFERENCE_FIDELITY, looping, [], 2);
    expect(ref.extra).toMatchObject({ sampleStatus: 'task_limit_reached', answered: false });
    expect(ref.success).toBe(true);
    expect((await run(memrl('llb.db-direct-validator'), looping, [], 2)).success).toBe(false);
  });
});

describe('llb.extra-turn-at-limit: the round limit', () => {
  const looping = ['Action: Operation\n```sql\nSELECT 1;\n```'];

  it('reference: the model is asked once more and that reply is never run, but kept in the transcript', async () => {
    const f = fakeServer(null, () => ok([['1']]));
    const out = await runDbEpisode(dbTask({ direct: [[1]] }), episodeContext(scriptedModel(looping)), options(REFERENCE_FIDELITY, 2), f.server);
    expect(out.steps).toBe(3);
    expect(f.sent).toHaveLength(2);
    expect((out.extra!.transcript as { action: string }[]).map((t) => t.action)).toEqual(['operation', 'operation', 'unexecuted']);
    expect(out.trajectory.split('\n').filter((l) => l.startsWith('assistant: Action: Operation'))).toHaveLength(3);
  });

  it('memrl: it stops at the limit', async () => {
    const f = fakeServer(null, () => ok([['1']]));
    const out = await runDbEpisode(dbTask({ direct: [[1]] }), episodeContext(scriptedModel(looping)), options(memrl('llb.extra-turn-at-limit'), 2), f.server);
    expect(out.steps).toBe(2);
    expect(out.extra).toMatchObject({ sampleStatus: 'task_limit_reached' });
  });
});

describe('llb.os-output-cap: long output', () => {
  it('db: the whole result goes back, in both profiles', async () => {
    const long = 'v'.repeat(30_000);
    for (const fidelity of [REFERENCE_FIDELITY, makeFidelity('fixed', LLB_FIDELITY_SWITCHES)]) {
      const m = recordingModel(['Action: Operation\n```sql\nSELECT note FROM orders;\n```', 'Action: Answer\nFinal Answer: x']);
      await runDbEpisode(dbTask({ direct: [['x']] }), episodeContext(m.model), options(fidelity), fakeServer(null, () => ok([[long]])).server);
      expect(userMessages(m.seen[1]!).at(-1)).toBe(`[('${long}',)]`);
    }
  });

  it('os, reference: the whole output goes back; memrl: cut at 800 characters', async () => {
    const long = 'o'.repeat(2000);
    for (const [fidelity, cut] of [[REFERENCE_FIDELITY, false], [memrl('llb.os-output-cap'), true]] as const) {
      const m = recordingModel(['Act: bash\n```bash\ncat big\n```', 'Act: finish']);
      await runOsEpisode(osTask, episodeContext(m.model), options(fidelity), fakeShell(() => ({ output: long, exitCode: 0, timedOut: false })).create);
      expect(userMessages(m.seen[1]!).at(-1)).toBe(cut ? `The output of the OS:\n\n${long.slice(0, 800)}... (truncated)` : `The output of the OS:\n\n${long}`);
    }
  });
});

describe('llb.os-eval-always: the evaluation script after an invalid reply', () => {
  const replies = ['Act: bash\n```bash\ntouch /x\n```', 'All done!'];

  it('reference: it runs, and decides', async () => {
    const shell = fakeShell();
    const out = await runOsEpisode(osTask, episodeContext(scriptedModel(replies)), options(REFERENCE_FIDELITY), shell.create);
    expect(shell.checks).toEqual(['test -e /x']);
    expect(out.success).toBe(true);
    expect(out.extra).toMatchObject({ sampleStatus: 'agent_validation_failed' });
  });

  it('memrl: the task fails without it', async () => {
    const shell = fakeShell();
    const out = await runOsEpisode(osTask, episodeContext(scriptedModel(replies)), options(memrl('llb.os-eval-always')), shell.create);
    expect(shell.checks).toEqual([]);
    expect(out.success).toBe(false);
  });
});

describe('llb.os-parse: which script runs', () => {
  it('reference: every ```bash block joined by a blank line; none is the empty script; a timeout says so', async () => {
    const shell = fakeShell((s) => (s === 'sleep 99' ? { output: '', exitCode: null, timedOut: true } : { output: '', exitCode: 0, timedOut: false }));
    const m = recordingModel([
      'Act: bash\n```bash\nmkdir /a\n```\nthen\n```bash\ntouch /a/b\n```',
      'Act: bash\n```sh\nls\n```',
      'Act: bash\n```bash\nsleep 99\n```',
      'Act: finish',
    ]);
    await runOsEpisode(osTask, episodeContext(m.model), options(REFERENCE_FIDELITY), shell.create);
    expect(shell.commands).toEqual(['mkdir /a\n\ntouch /a/b', '', 'sleep 99']);
    expect(userMessages(m.seen[2]!).at(-1)).toBe('The output of the OS is empty.');
    expect(userMessages(m.seen[3]!).at(-1)).toBe('The output of the OS:\n\nThe command is marked as timeout since it did not finish within 20 seconds.');
  });

  it('memrl: a reply without a ```bash block is invalid', async () => {
    const shell = fakeShell();
    const out = await runOsEpisode(osTask, episodeContext(scriptedModel(['Act: bash\n```python\nprint(1)\n```'])), options(memrl('llb.os-parse')), shell.create);
    expect(shell.commands).toEqual([]);
    expect(out.extra).toMatchObject({ sampleStatus: 'agent_validation_failed' });
  });
});

const req = await requireMariadb();

describe.skipIf(req.skip)('llb.db-statement-split on MariaDB', () => {
  const task = dbTask({ direct: [['a;b']], sql: "SELECT note FROM orders WHERE note = 'a;b'" });
  task.table.rows = [[1, 'a;b']];
  const reply = "Action: Operation\n```sql\nSELECT note FROM orders WHERE note = 'a;b';\n```";

  it("reference: a ';' inside a literal breaks the statement and the model sees the server's error as mysql.connector prints it", async () => {
    const m = recordingModel([reply, 'Action: Answer\nFinal Answer: x']);
    await runDbEpisode(task, episodeContext(m.model), options(REFERENCE_FIDELITY), await localLlbSqlServer());
    expect(userMessages(m.seen[1]!).at(-1)).toMatch(/^1064 \(42000\): You have an error in your SQL syntax/);
  });

  it('memrl: the statement runs as written', async () => {
    const m = recordingModel([reply, "Action: Answer\nFinal Answer: [('a;b',)]"]);
    const out = await runDbEpisode(task, episodeContext(m.model), options(memrl('llb.db-statement-split')), await localLlbSqlServer());
    expect(userMessages(m.seen[1]!).at(-1)).toBe("[('a;b',)]");
    expect(out.success).toBe(true);
  });
});
