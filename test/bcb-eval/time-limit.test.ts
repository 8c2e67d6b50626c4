/**
 * BigCodeBench's time limit per test run (switch bcb.time-limit). The reference asks
 * BigCodeBench for --eval_timeout, BigCodeBench raises it to its own 240 s (+1), so the
 * runner's outer join (--untrusted_hard_timeout) is what ends a run; memrl's fix keeps
 * eval_timeout. A program that needs 3 s passes under the reference's limit and times
 * out under memrl's when eval_timeout is 1 s and the hard timeout 8 s.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/app/config.js';
import { createBcbRun } from '../../src/bench/bcb/benchmark.js';
import type { BcbSettings } from '../../src/bench/bcb/config.js';
import type { BcbTask } from '../../src/bench/bcb/dataset.js';
import { testTimeLimit } from '../../src/bench/bcb/evaluate.js';
import type { ResolvedConfig } from '../../src/config/types.js';
import type { ChatModel } from '../../src/llm/types.js';
import { tempYaml } from '../config/helpers.js';
import { requireBcbPython } from '../env/require-sandbox.js';

const env = await requireBcbPython();

describe('testTimeLimit', () => {
  it("reference: BigCodeBench's 241 s, cut by the hard timeout; memrl: eval_timeout, cut by the hard timeout", () => {
    expect(testTimeLimit(60, 120, true)).toBe(120);
    expect(testTimeLimit(60, 300, true)).toBe(241);
    expect(testTimeLimit(250, 300, true)).toBe(251);
    expect(testTimeLimit(60, 120, false)).toBe(60);
    expect(testTimeLimit(90, 80, false)).toBe(80);
  });
});

function config(profile: 'reference' | 'fixed'): ResolvedConfig<BcbSettings> {
  const { dir } = tempYaml(`memrl:\n  fidelity: ${profile}\n  evaluator:\n    eval_timeout: 1\n    hard_timeout: 8\n`, 'c.yaml');
  return loadConfig('c.yaml', {}, 'bcb', { env: { OPENAI_API_KEY: 'sk-x' }, cwd: dir }) as ResolvedConfig<BcbSettings>;
}

const slowTask: BcbTask = {
  id: 'toy/slow',
  key: 'Return 1 after three seconds.',
  task_id: 'toy/slow',
  complete_prompt: '',
  instruct_prompt: 'Return 1 after three seconds.',
  canonical_solution: '',
  code_prompt: 'import time\ndef task_func():\n',
  test: 'import unittest\nclass TestCases(unittest.TestCase):\n    def test_one(self):\n        self.assertEqual(task_func(), 1)\n',
  entry_point: 'task_func',
  libs: [],
  doc_struct: '{}',
};

const answer: ChatModel = {
  label: 'stub',
  simulated: false,
  async chat() {
    return { text: '```python\nimport time\ndef task_func():\n    time.sleep(3)\n    return 1\n```', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 }, model: 'stub', latencyMs: 0 };
  },
};

describe.skipIf(env.skip)('bcb.time-limit on a real test run', () => {
  for (const [profile, status] of [
    ['reference', 'pass'],
    ['fixed', 'timeout'],
  ] as const) {
    it(`${profile}: a solution that needs 3 s ${status === 'pass' ? 'passes (8 s hard timeout binds)' : 'times out (eval_timeout 1 s)'}`, async () => {
      const cfg = config(profile);
      const bench = createBcbRun(cfg.bench, cfg);
      try {
        const facts = await bench.describeEvaluator();
        expect(facts.timeoutSec).toBe(profile === 'reference' ? 8 : 1);
        const o = await bench.episode(slowTask, { model: answer, memories: [], epoch: 1, phase: 'train', signal: new AbortController().signal, log: pino({ level: 'silent' }) });
        expect(o.status).toBe(status);
      } finally {
        await bench.close?.();
      }
    }, 60_000);
  }
});
