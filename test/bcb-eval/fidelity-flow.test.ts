/**
 * BigCodeBench's flow as the reference runs it (the default) and as memrl does under
 * each switch: code extraction, the syntax gate, the sanitizer, the memory block, the
 * default subset and the reference's flag spelling.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BcbTask } from '../../src/bench/bcb/dataset.js';
import { bcbMessages, runBcbEpisode } from '../../src/bench/bcb/episode.js';
import type { BcbEvalOptions, BcbEvalResult } from '../../src/bench/bcb/evaluate.js';
import { evaluateBcb, type BcbEvaluator } from '../../src/bench/bcb/evaluator.js';
import { EXTRACT_SWITCH, extractCodeFor } from '../../src/bench/bcb/extract.js';
import { buildBcbMemoryContext } from '../../src/bench/bcb/memory-context.js';
import { prepareBcbCode } from '../../src/bench/bcb/prepare.js';
import { BCB_SWITCHES, SANITIZE_SWITCH } from '../../src/bench/bcb/switches.js';
import type { InjectedMemory } from '../../src/core/index.js';
import { makeFidelity, REFERENCE_FIDELITY } from '../../src/util/fidelity.js';
import { assertBuilt, runMemrl } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { requireBcbPython } from '../env/require-sandbox.js';
import { ctxWith, fakeModel } from '../hle/helpers.js';

const env = await requireBcbPython();
const withSwitch = (id: string) => makeFidelity('reference', BCB_SWITCHES, { [id]: 'memrl' });

const task: BcbTask = {
  id: 'BigCodeBench/9001',
  key: 'Write task_func(x) that doubles x.',
  task_id: 'BigCodeBench/9001',
  complete_prompt: '',
  instruct_prompt: 'Write task_func(x) that doubles x.',
  canonical_solution: '    return 2 * x\n',
  code_prompt: 'def task_func(x):',
  test: 'import unittest\nclass TestCases(unittest.TestCase):\n    def test_double(self):\n        self.assertEqual(task_func(2), 4)\n',
  entry_point: 'task_func',
  libs: [],
  doc_struct: '{}',
};
/** A correct solution followed by demo code that crashes at import time. */
const WITH_DEMO = 'def task_func(x):\n    return 2 * x\n\nprint(task_func(undefined_name))\n';

describe('code extraction (bcb.extract-code)', () => {
  it('reference: the first ``` pair, a python tag skipped, other tags kept as code; memrl: the first python block', () => {
    const reply = 'Setup:\n```bash\npip install x\n```\nCode:\n```python\ndef task_func(x):\n    return 2 * x\n```';
    expect(extractCodeFor(reply, REFERENCE_FIDELITY)).toBe('bash\npip install x');
    expect(extractCodeFor(reply, withSwitch(EXTRACT_SWITCH))).toBe('def task_func(x):\n    return 2 * x');
    expect(extractCodeFor('```python3\nx = 1\n```', REFERENCE_FIDELITY)).toBe('3\nx = 1');
    expect(extractCodeFor('```python3\nx = 1\n```', withSwitch(EXTRACT_SWITCH))).toBe('x = 1');
  });
});

describe('the syntax gate and the sanitizer (bcb.sanitize)', () => {
  it('code that does not compile is a syntax error and is returned unsanitized', async () => {
    expect(await prepareBcbCode('sql\nSELECT 1;', { sanitize: true })).toEqual({ code: 'sql\nSELECT 1;', syntaxOk: false });
  });

  it('calls made together each get their own answer (one interpreter serves them in turn)', async () => {
    const snippets = Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? `def task_func(:\n    return ${i}` : `def task_func():\n    return ${i}\nprint(${i})`));
    const got = await Promise.all(snippets.map((code) => prepareBcbCode(code, { sanitize: true })));
    got.forEach((r, i) => {
      if (i % 3 === 0) expect(r).toEqual({ code: snippets[i], syntaxOk: false });
      else expect(r).toEqual({ code: `def task_func():\n    return ${i}`, syntaxOk: true });
    });
  });

  it('a python that cannot run fails the call with its name, and the next call tries again', async () => {
    const python = '/nonexistent/python3';
    await expect(prepareBcbCode('x = 1', { sanitize: false, python })).rejects.toThrow(/cannot run \/nonexistent\/python3 for the BigCodeBench syntax check/);
    await expect(prepareBcbCode('x = 1', { sanitize: false, python })).rejects.toThrow(/cannot run \/nonexistent\/python3/);
    expect(await prepareBcbCode('x = 1', { sanitize: false })).toEqual({ code: 'x = 1', syntaxOk: true });
  });

  it('a python that writes something else than replies fails the call, saying what it wrote', async () => {
    const noisy = join(tempDir('memrl-noisy-python-'), 'python3');
    writeFileSync(noisy, '#!/bin/sh\necho "welcome to this python"\nexec python3 "$@"\n', { mode: 0o755 });
    await expect(prepareBcbCode('x = 1', { sanitize: false, python: noisy })).rejects.toThrow(/wrote something other than its replies: welcome to this python/);
  });

  it("reference: the code as extracted; memrl: BigCodeBench's sanitizer keeps imports and what the entry point reaches", async () => {
    const code = 'import os\nLIMIT = 3\n\ndef helper(x):\n    return x * LIMIT\n\ndef unused():\n    pass\n\ndef task_func(x):\n    return helper(x)\n\nif __name__ == "__main__":\n    print(task_func(1))\n';
    expect(await prepareBcbCode(code, { sanitize: false })).toEqual({ code, syntaxOk: true });
    expect(await prepareBcbCode(code, { sanitize: true })).toEqual({
      code: 'import os\nLIMIT = 3\ndef helper(x):\n    return x * LIMIT\ndef task_func(x):\n    return helper(x)',
      syntaxOk: true,
    });
  });

  describe.skipIf(env.skip)('in the sandbox', () => {
    it('top-level demo code that crashes fails the task as extracted, and passes once sanitized', async () => {
      expect((await evaluateBcb(task, WITH_DEMO)).status).toBe('runtime_error');
      expect((await evaluateBcb(task, WITH_DEMO, { sanitize: true })).status).toBe('pass');
    }, 60_000);
  });

  it('an episode asks the evaluator to sanitize only under bcb.sanitize=memrl', async () => {
    const calls: { code: string; opts: BcbEvalOptions }[] = [];
    const evaluator = {
      evaluate: async (_t: unknown, code: string, opts: BcbEvalOptions): Promise<BcbEvalResult> => {
        calls.push({ code, opts });
        return { status: 'pass', durationMs: 1, mode: 'reference', timeoutSec: 60 };
      },
    } as unknown as BcbEvaluator;
    const model = fakeModel(() => `\`\`\`python\n${WITH_DEMO}\`\`\``);
    const opts = { temperature: 0, eval: { mode: 'reference' as const } };
    await runBcbEpisode(task, ctxWith(model, undefined), opts, evaluator);
    const sanitized = await runBcbEpisode(task, ctxWith(model, undefined), { ...opts, fidelity: withSwitch(SANITIZE_SWITCH) }, evaluator);
    expect(calls.map((c) => c.opts.sanitize)).toEqual([false, true]);
    expect(calls[0]!.code).toBe(WITH_DEMO.trimEnd());
    expect(sanitized.extra).toMatchObject({ sanitized: true });
  });
});

describe('the memory block (BCBRunner._format_memory_context, our wording)', () => {
  const rec = (content: string, outcome: unknown, taskId = '', taskText = 'T') => ({ content, outcome, taskId, task: taskText });

  it('counts failure, fail, failed, 0, false and no (any case, trimmed) as failures; anything else, unknown included, as success', () => {
    for (const outcome of ['failure', 'FAIL', ' failed ', '0', 'false', 'no']) {
      expect(buildBcbMemoryContext([rec('body', outcome)], 2000).facts?.entries[0]?.memory_type).toMatch(/failed/);
    }
    for (const outcome of ['success', 'error', 'unknown', 'timeout']) {
      expect(buildBcbMemoryContext([rec('body', outcome)], 2000).facts?.entries[0]?.memory_type).toMatch(/passed/);
    }
  });

  it('shows a failure as its task and the text after "Reflection:", a success as its task and the text', () => {
    const fail = buildBcbMemoryContext([rec('TASK REFLECTION:\nTask: x\n\nReflection: use ; as delimiter', 'failure', '', 'Parse CSV')], 2000).text;
    expect(fail).toMatch(/Parse CSV\n\n[^\n]*\nuse ; as delimiter\n$/);
    expect(fail).not.toContain('TASK REFLECTION');
    const ok = buildBcbMemoryContext([rec('def f(): pass', 'success', '', 'Sum')], 2000).text;
    expect(ok).toMatch(/Sum\n\n[^\n]*\ndef f\(\): pass\n$/);
  });

  it('cuts each entry at budget // n characters (wrapper included) and appends "..."', () => {
    const ctx = buildBcbMemoryContext([rec('x'.repeat(500), 'success'), rec('y'.repeat(10), 'success')], 200);
    expect(ctx.facts?.per_entry_cap).toBe(100);
    const blocks = ctx.text.split(/^### Note \d+ \[SUCCESS\]\n/m).slice(1);
    expect(blocks[0]).toMatch(/^[\s\S]{100}\.\.\.\n\n$/);
    expect(blocks[1]).toMatch(/y{10}\n$/);
    expect(buildBcbMemoryContext([rec('short', 'success')], 0).text).toMatch(/\[SUCCESS\]\n\.\.\.\n$/);
  });

  it('skips empty entries (their number too), adds the task line only with a task id, keeps marked content as is', () => {
    const ctx = buildBcbMemoryContext([rec('   ', 'success'), rec('[memory type] kept as stored', 'failure', 'BigCodeBench/5')], 2000);
    expect(ctx.headers).toEqual(['### Note 2 [FAILURE]']);
    expect(ctx.text).toContain('### Note 2 [FAILURE]\nFrom: BigCodeBench/5\n[memory type] kept as stored\n');
    expect(buildBcbMemoryContext([rec('body', 'success')], 2000).text).not.toContain('From:');
  });

  it('goes after the system prompt, separated by a blank line', () => {
    const memories: InjectedMemory[] = [{ id: 'm1', key: 'Earlier task', content: 'def g(): pass', success: true, taskId: 'BigCodeBench/3', q: 0, sim: 1 }];
    const [system, user] = bcbMessages(task, { memories }, { temperature: 0, memoryBudgetChars: 2000, eval: {} });
    expect(system!.content).toMatch(/full solution\.\n\n\n[^\n]+\n\n### Note 1 \[SUCCESS\]\nFrom: BigCodeBench\/3\n[\s\S]*Earlier task[\s\S]*def g\(\): pass\n$/);
    expect(user!.content).toBe(task.key);
  });
});

describe('configuration', () => {
  const work = mkdtempSync(join(tmpdir(), 'memrl-bcb-fid-'));
  beforeAll(assertBuilt);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("defaults to the full subset and accepts the reference's --memory_budget_tokens spelling", async () => {
    const r = await runMemrl(['config', '--memory_budget_tokens', '300'], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^\s+subset: full$/m);
    expect(r.stdout).toMatch(/^\s+memory_budget: 300$/m);
  });
});
