/**
 * Verdicts of the BigCodeBench evaluator on real tasks. Tasks chosen to pass with
 * Debian's libraries: 1 and 4 (standard library), 42 (pandas, matplotlib, sklearn),
 * 363 (multiprocessing.Pool).
 */
import { describe, expect, it } from 'vitest';
import { readBcbTasks, type BcbTask } from '../../src/bench/bcb/dataset.js';
import { programFor } from '../../src/bench/bcb/evaluate.js';
import { describeBcbEvaluator, evaluateBcb } from '../../src/bench/bcb/evaluator.js';
import { goldSolution } from '../../src/bench/bcb/check-gold.js';
import { requireBcbPython } from '../env/require-sandbox.js';

const env = await requireBcbPython();
const { tasks } = readBcbTasks();
const byId = (n: number): BcbTask => {
  const t = tasks.find((x) => x.id === `BigCodeBench/${n}`);
  if (!t) throw new Error(`task ${n} missing from the data file`);
  return t;
};

describe('programFor', () => {
  const t = { code_prompt: 'import os\ndef task_func(a):\n' };
  it('reference mode runs the answer as given', () => {
    expect(programFor(t, 'X = 1\n', 'reference')).toBe('X = 1\n');
  });
  it('calibrated mode puts the imports and a stub of the signature first', () => {
    expect(programFor(t, 'X = 1\n', 'calibrated')).toBe('import os\ndef task_func(a):\n\n    pass\nX = 1\n');
  });
});

describe.skipIf(env.skip)('evaluateBcb on real tasks', () => {
  it('the sandbox and its Python are available', () => {
    expect(env.ok, env.reason).toBe(true);
  });

  it('describes itself for the run manifest', async () => {
    const d = await describeBcbEvaluator();
    expect(d.python).toBe('/usr/bin/python3');
    expect(d.pythonVersion).toMatch(/^3\.\d+\.\d+$/);
    expect(Array.isArray(d.missingLibs)).toBe(true);
    expect(d.missingLibs).not.toContain('numpy');
    expect(d.harnessSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(d.timeoutSec).toBe(60);
  });

  it.each([1, 4, 42])('canonical solution of BigCodeBench/%i passes', async (n) => {
    const t = byId(n);
    const r = await evaluateBcb(t, goldSolution(t));
    expect(r.status, r.firstError).toBe('pass');
    expect(r.testsRun).toBeGreaterThan(0);
    expect(r.failures).toBe(0);
    expect(r.errors).toBe(0);
    expect(r.mode).toBe('reference');
  });

  it('a wrong answer fails and names the failing test', async () => {
    const t = byId(4);
    const r = await evaluateBcb(t, `${t.code_prompt}    return {}\n`);
    expect(r.status).toBe('fail');
    expect((r.failures ?? 0) + (r.errors ?? 0)).toBeGreaterThan(0);
    expect(r.firstError).toMatch(/^test_\w+: AssertionError/);
    expect(r.issues?.[0]?.kind).toBe('failure');
  });

  it('an answer that crashes inside a test fails with the exception', async () => {
    const t = byId(4);
    const r = await evaluateBcb(t, `${t.code_prompt}    return 1 / 0\n`);
    expect(r.status).toBe('fail');
    expect(r.firstError).toMatch(/ZeroDivisionError/);
  });

  it('a syntax error is syntax_error with the line', async () => {
    const t = byId(1);
    const r = await evaluateBcb(t, `${t.code_prompt}    return (\n`);
    expect(r.status).toBe('syntax_error');
    expect(r.firstError).toMatch(/SyntaxError: .*\(line \d+\)/);
  });

  it('an exception while defining the solution is runtime_error', async () => {
    const t = byId(1);
    const r = await evaluateBcb(t, `raise RuntimeError("boom at import")\n${goldSolution(t)}`);
    expect(r.status).toBe('runtime_error');
    expect(r.firstError).toBe('RuntimeError: boom at import');
  });

  it('a missing import of the solution is runtime_error', async () => {
    const t = byId(1);
    const r = await evaluateBcb(t, `import no_such_module_memrl\n${goldSolution(t)}`);
    expect(r.status).toBe('runtime_error');
    expect(r.firstError).toMatch(/ModuleNotFoundError: No module named 'no_such_module_memrl'/);
  });

  it('an infinite loop is a timeout', async () => {
    const t = byId(1);
    const r = await evaluateBcb(t, `${t.code_prompt}    while True:\n        pass\n`, { timeoutSec: 4 });
    expect(r.status).toBe('timeout');
    expect(r.durationMs).toBeGreaterThanOrEqual(4000);
    expect(r.durationMs).toBeLessThan(12_000);
  });

  it('printed output cannot fake a verdict, and exiting early is not a pass', async () => {
    const t = byId(4);
    const fake = '{"nonce": null, "status": "pass", "tests_run": 9, "failures": 0, "errors": 0}';
    const printing = await evaluateBcb(t, `import os\nos.write(1, b'${fake}\\n')\nprint('${fake}')\n${t.code_prompt}    return {}\n`);
    expect(printing.status).toBe('fail');
    const exiting = await evaluateBcb(t, `import os\nos._exit(0)\n`);
    expect(exiting.status).toBe('runtime_error');
    expect(exiting.firstError).toMatch(/without a test result/);
  });

  it('reference mode runs the code as given; calibrated mode adds the prompt', async () => {
    const t = byId(1);
    // A bare function body (what BigCodeBench calls the canonical solution).
    const bodyOnly = t.canonical_solution;
    expect((await evaluateBcb(t, bodyOnly, { mode: 'reference' })).status).toBe('syntax_error');
    const calibrated = await evaluateBcb(t, bodyOnly, { mode: 'calibrated' });
    expect(calibrated.status, calibrated.firstError).toBe('pass');
    expect(calibrated.mode).toBe('calibrated');

    // A full program that forgot its imports: only calibrated mode supplies them.
    const noImports = goldSolution(t)
      .split('\n')
      .filter((line) => !/^(import|from) /.test(line))
      .join('\n');
    expect((await evaluateBcb(t, noImports, { mode: 'reference' })).status).toBe('fail');
    expect((await evaluateBcb(t, noImports, { mode: 'calibrated' })).status).toBe('pass');
  });

  it('killing processes the code did not start is ignored, as in BigCodeBench; its own children it may kill', async () => {
    const t = byId(4);
    const prelude = [
      'import os, signal, subprocess',
      'os.kill(1, signal.SIGKILL)',
      'os.kill(-1, signal.SIGKILL)',
      'os.kill(0, signal.SIGKILL)',
      'child = subprocess.Popen(["/bin/sleep", "30"])',
      'child.kill()',
      'assert child.wait(timeout=5) != 0',
    ].join('\n');
    const r = await evaluateBcb(t, `${prelude}\n${goldSolution(t)}`);
    expect(r.status, r.firstError).toBe('pass');
  });

  it('multiprocessing pools shut down (their workers may be signalled): BigCodeBench/363 four times at once', async () => {
    const t = byId(363);
    const runs = await Promise.all([1, 2, 3, 4].map(() => evaluateBcb(t, goldSolution(t), { timeoutSec: 30 })));
    expect(runs.map((r) => r.status)).toEqual(['pass', 'pass', 'pass', 'pass']);
  });
});
