/**
 * The python-tests kind's conformance suite (conformance/python-tests-cases.ts: the
 * hostile BigCodeBench solutions) against every python-tests backend the env
 * registry has, through the BigCodeBench evaluator exactly as model answers reach it.
 * Every container of the suite is gone at the end.
 */
import { afterAll, expect, vi } from 'vitest';
import { createBcbEvaluator, defaultDockerSettings, type BcbEvaluator } from '../../src/bench/bcb/evaluator.js';
import { BCB_IMAGE } from '../../src/bench/bcb/config.js';
import { leftoverContainers, requireEngine } from '../helpers/require-engine.js';
import { backendsUnderTest, expectAvailable } from './conformance/backends.js';
import { defineEscapeSuite } from './conformance/python-tests-cases.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const docker = defaultDockerSettings();
const backends = await backendsUnderTest(
  'python-tests',
  { local: {}, docker: { docker: { settings: docker, image: BCB_IMAGE, role: 'bcb', concurrency: 1 } } },
  false,
);

const evaluators: BcbEvaluator[] = [];
afterAll(async () => {
  await Promise.all(evaluators.map((e) => e.close()));
  const engine = (await requireEngine()).engine;
  if (engine && backends.some((b) => b.backend === 'docker' && !b.skip)) expect(await leftoverContainers(engine)).toEqual([]);
});

for (const b of backends) {
  expectAvailable(b);
  // Each backend twice: tests in children of a warm fork server (the default), and a fresh interpreter per test.
  for (const forkServer of [true, false]) {
    const evaluator = createBcbEvaluator({ backend: b.backend, docker, concurrency: 1, forkServer });
    evaluators.push(evaluator);
    const label = `${b.backend === 'local' ? 'local bubblewrap' : b.backend}${forkServer ? ' (fork server)' : ' (fresh interpreter)'}`;
    defineEscapeSuite(label, () => (task, code, opts) => evaluator.evaluate(task, code, opts), { skip: b.skip });
  }
}
