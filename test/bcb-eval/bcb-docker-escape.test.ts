/**
 * What only the container evaluator has: the cgroup memory limit. (The shared
 * hostile-solution suite runs against every python-tests backend in
 * test/env/python-tests.conformance.test.ts.) Every container of the suite is gone at the end.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createBcbEvaluator, defaultDockerSettings } from '../../src/bench/bcb/evaluator.js';
import { taskWith } from '../env/conformance/python-tests-cases.js';
import { ourBcbContainers, requireBcbImage } from './require-bcb-docker.js';

const req = await requireBcbImage();
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

beforeAll(() => {
  if (req.skip) return;
  expect(req.ok, req.reason).toBe(true);
});

afterAll(async () => {
  if (req.skip) return;
  if (req.engine) expect(await ourBcbContainers(req.engine)).toEqual([]);
});

describe.skipIf(req.skip)('container memory limit', () => {
  it('a hog under a generous address-space limit is killed by the cgroup: a runtime error, not an evaluator error', async () => {
    const small = createBcbEvaluator({ backend: 'docker', docker: { ...defaultDockerSettings(), memoryMb: 256 }, concurrency: 1 });
    try {
      const code = ['chunks = []', 'while True:', '    chunks.append(b"x" * (16 << 20))'].join('\n');
      const r = await small.evaluate(taskWith('    def test_x(self):\n        pass'), code, { timeoutSec: 60 });
      expect(r.status, r.firstError).toBe('runtime_error');
      expect(r.firstError).toMatch(/exited with code 137/);
      const next = await small.evaluate(taskWith('    def test_x(self):\n        pass'), 'X = 1\n');
      expect(next.status, next.firstError).toBe('pass');
    } finally {
      await small.close();
    }
  });
});
