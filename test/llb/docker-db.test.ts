/**
 * LLB db through `--evaluator docker`: one server container for the run, the
 * client exec'd inside it, a database and limited user per task as locally. Here
 * the image is memrl/llb-db-mariadb (no registry for mysql:8). Same gold verdicts
 * as the local MariaDB (the same user confinement: the sql conformance suite), a server killed from outside
 * recorded as an evaluator error (and restarted for the next task), nothing left behind.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { checkDbGold } from '../../src/bench/llb/check-gold-db.js';
import { defaultLlbFile, loadLlbFile, type DbTask } from '../../src/bench/llb/dataset.js';
import { runDbEpisode } from '../../src/bench/llb/episode.js';
import { LLB_FIDELITY_SWITCHES } from '../../src/bench/llb/switches.js';
import { makeFidelity } from '../../src/util/fidelity.js';
import { startContainerSqlServer, type ContainerSqlServer } from '../../src/env/sql/docker.js';
import { checkMariadb, localSqlServer } from '../../src/env/sql/local.js';
import type { SqlServer } from '../../src/env/sql/sql-server.js';
import { killOurContainers, ourContainers, requireDocker, TEST_DB_IMAGE, TEST_DOCKER } from './require-docker.js';
import { episodeContext, scriptedModel } from './scripted-model.js';
import { settleEpisode } from '../../src/runner/episode-outcome.js';

const req = await requireDocker(TEST_DB_IMAGE, 1);
let started: ContainerSqlServer | null = null;
let startError = '';
if (req.backend) {
  try {
    started = await startContainerSqlServer(req.backend, { settings: TEST_DOCKER, image: TEST_DB_IMAGE, role: 'llb-db', concurrency: 1 });
  } catch (err) {
    startError = (err as Error).message;
  }
}
const server = (): SqlServer => {
  if (!started) throw new Error(req.reason || startError);
  return started.server;
};

afterAll(async () => {
  await started?.close();
  if (req.backend) expect(await ourContainers(req.backend)).toEqual([]);
});

const tasks = loadLlbFile(defaultLlbFile('db', 'runtime'), 'db').tasks;
const byIndex = new Map(tasks.map((t) => [t.index, t]));

describe.skipIf(req.skip)('LLB db on a server container', () => {
  it('starts the server and reads its version (under CI a missing engine or image fails here)', () => {
    expect(req.reason).toBe('');
    expect(startError).toBe('');
    expect(server().version).toMatch(/MariaDB|^8\./);
    expect(server().dialect).toBe(/MariaDB/.test(server().version ?? '') ? 'mariadb' : 'mysql');
  });

  it('gives the same gold verdicts as the local server on real tasks', async () => {
    // md5 and direct tasks, DELETE ... AS alias (165, 68), GROUP BY ... LIMIT OFFSET (213, 295, 6), a tie under ORDER BY (225).
    const sample = [
      ...tasks.filter((t, i) => t.answer.md5 !== null && i % 20 === 0),
      ...tasks.filter((t, i) => t.answer.md5 === null && i % 25 === 0),
      ...['165', '68', '213', '295', '6', '225'].map((i) => byIndex.get(i)!),
    ] as DbTask[];
    const local = await checkMariadb();
    const [docker, here] = await Promise.all([
      checkDbGold(sample, 4, undefined, server()),
      local.ok ? checkDbGold(sample, 4, undefined, localSqlServer()) : Promise.resolve(null),
    ]);
    const verdicts = (rs: typeof docker) => rs.map((r) => `${r.id} ${r.pass ? 'pass' : 'FAIL'}${r.vacuous ? ' vacuous' : ''}`);
    expect(docker.filter((r) => !r.pass).map((r) => r.id)).toEqual(['db/225']);
    if (here) expect(verdicts(docker)).toEqual(verdicts(here));
  }, 60_000);

  it('a server killed from outside ends the episode as an evaluator error; the next task gets a new server', async () => {
    const task = tasks.find((t) => t.answer.md5 === null) as DbTask;
    const sql = 'Action: Operation\n```sql\nSELECT 1;\n```';
    const killed = { n: 0 };
    const model = scriptedModel([sql, sql, 'Action: Answer\nFinal Answer: []'], async (turn) => {
      if (turn === 1) killed.n = await killOurContainers(req.backend!, 'llb-db');
    });
    const out = await settleEpisode(runDbEpisode(task, episodeContext(model), { maxSteps: 5, temperature: 0 }, server()));
    expect(killed.n).toBe(1);
    expect(out.status).toBe('error');
    expect(out.error).toMatch(/database evaluator failed: .*gone/);
    // Steps count the model's replies (the reference's step count): the second one's statement met the dead server.
    expect(out.steps).toBe(2);
    const gold = 'Action: Answer\nFinal Answer: ' + JSON.stringify(task.answer.direct);
    // A JSON answer: memrl's validator reads it (the reference's wants tuples).
    const json = makeFidelity('reference', LLB_FIDELITY_SWITCHES, { 'llb.db-direct-validator': 'memrl' });
    const next = await settleEpisode(runDbEpisode(task, episodeContext(scriptedModel([gold])), { maxSteps: 5, temperature: 0, fidelity: json }, server()));
    expect(next.status).toBe('pass');
    expect(started!.restarts()).toBe(1);
  }, 120_000);
});

// The task user's confinement on this backend: test/env/sql.conformance.test.ts.
