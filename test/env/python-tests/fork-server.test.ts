/**
 * The local fork server (env/python-tests/fork-server.ts): BigCodeBench tests run as
 * children of one warm interpreter per sandbox, and each child must see what a
 * fresh sandbox and interpreter would: nothing of the tests before it, PID 1 as its
 * parent, fresh random seeds, and the same verdicts. The hostile solutions of the
 * conformance suite run through it too (python-tests.conformance.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { goldSolution } from '../../../src/bench/bcb/check-gold.js';
import { readBcbTasks, type BcbTask } from '../../../src/bench/bcb/dataset.js';
import { importGroup, taskImports } from '../../../src/bench/bcb/evaluate.js';
import { BcbEvaluator, defaultDockerSettings } from '../../../src/bench/bcb/evaluator.js';
import { DockerPythonTestRunner } from '../../../src/env/python-tests/docker.js';
import type { ForkServerStats } from '../../../src/env/python-tests/fork-server.js';
import { LocalPythonTestRunner } from '../../../src/env/python-tests/local.js';
import { BCB_IMAGE, requireBcbImage } from '../../bcb-eval/require-bcb-docker.js';
import { requireBcbPython } from '../require-sandbox.js';
import { taskWith } from '../conformance/python-tests-cases.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });

const env = await requireBcbPython();
const engineReq = await requireBcbImage();

describe('taskImports', () => {
  it('takes the unconditional imports of the code prompt and the tests', () => {
    const task = {
      code_prompt: 'import pandas as pd, numpy as np  # comment\nfrom sklearn.preprocessing import StandardScaler\nimport os.path\ndef task_func():\n',
      test: 'import unittest\nfrom unittest.mock import patch\ntry:\n    import faker\nexcept ImportError:\n    pass\nclass TestCases(unittest.TestCase):\n    def test(self):\n        import scipy\n',
    };
    expect(taskImports(task)).toEqual(['numpy', 'os.path', 'pandas', 'sklearn.preprocessing', 'unittest', 'unittest.mock']);
  });

  it("groups tasks by the imports a server would keep for them: third-party ones, not the warm-up's", () => {
    const task = (code_prompt: string) => ({ code_prompt, test: 'import unittest\nimport numpy as np\n' });
    expect(importGroup(task('import pandas as pd\nimport matplotlib.pyplot as plt\nfrom sklearn.cluster import KMeans\nimport os\n'))).toBe('pandas sklearn.cluster');
    expect(importGroup(task('import random\nimport matplotlib.pyplot as plt\n'))).toBeUndefined();
  });
});

/** A dirty test, then one that finds nothing of it, on the same server. */
async function expectNothingLeft(fast: BcbEvaluator, stats: () => ForkServerStats): Promise<void> {
  const dirty = [
    'import os, subprocess, numpy',
    'open("/tmp/memrl-leftover", "w").write("x")',
    'open("/dev/shm/memrl-leftover", "w").write("x")',
    'open("/var/tmp/memrl-leftover-var", "w").write("x")',
    'open("leftover-in-workdir", "w").write("x")',
    'subprocess.Popen(["/bin/sleep", "300"], start_new_session=True)',
    'os.environ["MEMRL_LEFTOVER"] = "1"',
    'numpy.sum = lambda *a, **k: 42',
    'def task_func():',
    '    return 42',
  ].join('\n');
  const check = taskWith(
    [
      '    def test_clean(self):',
      '        import os, numpy',
      '        self.assertFalse(os.path.exists("/tmp/memrl-leftover"))',
      '        self.assertFalse(os.path.exists("/var/tmp/memrl-leftover-var"))',
      '        self.assertEqual(os.listdir("/dev/shm"), [])',
      '        self.assertEqual(os.listdir("."), [])',
      // Besides itself only the server (PID 1) and its templates, forks of it with its command line.
      '        server = open("/proc/1/cmdline", "rb").read()',
      '        others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]',
      '        self.assertEqual([p for p in others if open("/proc/%s/cmdline" % p, "rb").read() != server], [])',
      '        self.assertNotIn("MEMRL_LEFTOVER", os.environ)',
      '        self.assertEqual(numpy.sum([1, 2]), 3)',
    ].join('\n'),
  );
  const trivial = taskWith('    def test_ok(self):\n        self.assertEqual(task_func(), 42)');
  // A server up first: the two runs below must find the same one.
  expect((await fast.evaluate(trivial, 'def task_func():\n    return 42\n')).status).toBe('pass');
  const before = stats();
  const first = await fast.evaluate(trivial, dirty);
  expect(first.status, first.firstError).toBe('pass');
  const second = await fast.evaluate(check, 'def task_func():\n    return 42\n');
  expect(second.status, second.firstError).toBe('pass');
  const after = stats();
  // Both on the same server, or the check would prove nothing.
  expect(after.started).toBe(before.started);
  expect(after.served - before.served).toBe(2);
}

describe.skipIf(env.skip)('the fork server', () => {
  let warm: LocalPythonTestRunner;
  let fast: BcbEvaluator;
  let plain: BcbEvaluator;
  const { tasks } = readBcbTasks();
  const byId = (n: number): BcbTask => tasks.find((t) => t.id === `BigCodeBench/${n}`)!;

  beforeAll(() => {
    expect(env.ok, env.reason).toBe(true);
    warm = new LocalPythonTestRunner({});
    fast = new BcbEvaluator('local', Promise.resolve(warm));
    plain = new BcbEvaluator('local', Promise.resolve(new LocalPythonTestRunner({ forkServer: false })));
  });
  afterAll(async () => {
    await Promise.all([fast?.close(), plain?.close()]);
  });

  it('runs test after test in one warm server', async () => {
    const before = warm.forkServerStats();
    for (const n of [1, 4, 42]) {
      const r = await fast.evaluate(byId(n), goldSolution(byId(n)));
      expect(r.status, r.firstError).toBe('pass');
    }
    const after = warm.forkServerStats();
    expect(after.started - before.started).toBeLessThanOrEqual(1);
    expect(after.served - before.served).toBe(3);
    expect(after.missed).toBe(0);
  });

  it("an import list's first two runs import for themselves; from its third on, one template holds the list", async () => {
    // Most lists come once or twice in a benchmark, and a template then costs more than the imports it saves.
    const trivial = taskWith('    def test_ok(self):\n        self.assertEqual(task_func(), 42)');
    const task = { code_prompt: 'import wtforms\n', test: trivial.test }; // a list no other test here asks for
    const made: number[] = [];
    for (let i = 0; i < 4; i++) {
      const before = warm.forkServerStats().templates;
      const r = await fast.evaluate(task, 'import wtforms\ndef task_func():\n    return 42\n');
      expect(r.status, r.firstError).toBe('pass');
      made.push(warm.forkServerStats().templates - before);
    }
    expect(made).toEqual([0, 0, 1, 0]);
  });

  it('a list the caller says will come again gets its template at once, in the server its affinity names', async () => {
    const trivial = taskWith('    def test_ok(self):\n        self.assertEqual(task_func(), 42)');
    const task = { code_prompt: 'import natsort\n', test: trivial.test }; // a list no other test here asks for
    const code = 'import natsort\ndef task_func():\n    return 42\n';
    const made = async (worker: number, groupAhead: number): Promise<number> => {
      const before = warm.forkServerStats().templates;
      const r = await fast.evaluate(task, code, { placement: { worker, groupAhead } });
      expect(r.status, r.firstError).toBe('pass');
      return warm.forkServerStats().templates - before;
    };
    // Two servers at once: affinity 0 runs the list's first run (two more to come), affinity 1 something else.
    const before = warm.forkServerStats().templates;
    const other = fast.evaluate(byId(1), goldSolution(byId(1)), { placement: { worker: 1, groupAhead: 0 } });
    const first = await fast.evaluate(task, code, { placement: { worker: 0, groupAhead: 2 } });
    expect(first.status, first.firstError).toBe('pass');
    expect((await other).status).toBe('pass');
    expect(warm.forkServerStats().templates - before).toBe(1);
    // Affinity 1's server has not seen the list: told two more will come, it makes its own.
    expect(await made(1, 2)).toBe(1);
    // Affinity 0's server still holds its template.
    expect(await made(0, 0)).toBe(0);
  });

  it('leaves nothing of a test to the next: files, processes, environment, module state', async () => {
    await expectNothingLeft(fast, () => warm.forkServerStats());
  });

  it('each test is a fresh process: PID 1 is its parent, its own session, its own random seeds', async () => {
    // The second task imports pandas: its third run runs from a template holding pandas, then handed to PID 1.
    for (const prompt of ['', 'import pandas\n']) {
      const probe = { code_prompt: prompt, test: taskWith('    def test_seed(self):\n        import os, random, numpy\n        self.assertEqual(os.getppid(), 1)\n        self.assertEqual(os.getsid(0), os.getpid())\n        self.fail(repr((random.random(), numpy.random.rand())))').test };
      expect(taskImports(probe)).toContain(prompt ? 'pandas' : 'unittest');
      const seen = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const r = await fast.evaluate(probe, `${prompt}def task_func():\n    return 1\n`);
        expect(r.status).toBe('fail');
        expect(r.firstError).toMatch(/^test_seed: AssertionError: \(0\.\d+, 0\.\d+\)/);
        seen.add(r.firstError!);
      }
      expect(seen.size).toBe(3);
    }
    expect(warm.forkServerStats().missed).toBe(0);
  });

  it("a test's collector works as in a fresh interpreter and leaves the template's objects alone", async () => {
    // From the third run on a template holds pandas and matplotlib (~6000 pages of objects):
    // a collection that walked them would copy each page it writes to, as it did before gc.freeze.
    const probe = {
      code_prompt: 'import pandas\nimport matplotlib.pyplot as plt\n',
      test: taskWith(
        [
          '    def test_gc(self):',
          '        import gc, resource, weakref',
          '        self.assertTrue(gc.isenabled())',
          '        class Node: pass',
          '        a, b = Node(), Node()',
          '        a.other, b.other = b, a',
          '        alive = weakref.ref(a)',
          '        del a, b',
          '        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt',
          '        gc.collect()',
          '        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before',
          '        self.assertIsNone(alive())',
          '        self.assertLess(faults, 1000)',
        ].join('\n'),
      ).test,
    };
    for (let i = 0; i < 3; i++) {
      const r = await fast.evaluate(probe, `${probe.code_prompt}def task_func():\n    return 1\n`);
      expect(r.status, r.firstError).toBe('pass');
    }
  });

  it('keeps serving after a test killed everything it could reach, and after a timeout', async () => {
    const before = warm.forkServerStats();
    const killer = 'import ctypes, signal\nctypes.CDLL(None).kill(-1, signal.SIGKILL)\nimport pandas\ndef task_func():\n    return 42\n';
    const trivial = taskWith('    def test_ok(self):\n        self.assertEqual(task_func(), 42)');
    const pandasTask = { code_prompt: 'import pandas\n', test: trivial.test };
    expect((await fast.evaluate(pandasTask, killer)).status).toBe('pass');
    expect((await fast.evaluate(pandasTask, 'import pandas\ndef task_func():\n    return 42\n')).status).toBe('pass');
    const slow = await fast.evaluate(trivial, 'while True:\n    pass\n', { timeoutSec: 2 });
    expect(slow.status).toBe('timeout');
    expect((await fast.evaluate(trivial, 'def task_func():\n    return 42\n')).status).toBe('pass');
    const after = warm.forkServerStats();
    expect(after.started).toBe(before.started);
    expect(after.served - before.served).toBe(4);
  });

  it("later tests start with the pages earlier ones copied on write already copied; a test's own report is only a hint", async () => {
    // A server of its own, so that its first runs are the ones that report.
    const runner = new LocalPythonTestRunner({});
    const own = new BcbEvaluator('local', Promise.resolve(runner));
    try {
      // Counts the pages the test process holds alone when its test method starts (its
      // copies, its own allocations), then writes to objects all over the server's memory
      // (the reference counts of every module's globals), copying thousands of pages.
      const probe = taskWith(
        [
          '    def test_copied(self):',
          '        import sys',
          '        n = 0',
          '        with open("/proc/self/pagemap", "rb", buffering=0) as pm:',
          '            for line in open("/proc/self/maps"):',
          '                f = line.split()',
          '                if f[1].startswith("rw") and f[1][3] == "p":',
          '                    lo, hi = (int(x, 16) // 4096 for x in f[0].split("-"))',
          '                    pm.seek(lo * 8)',
          '                    n += sum(1 for b in pm.read((hi - lo) * 8)[7::8] if b & 0x81 == 0x81)',
          '        for module in list(sys.modules.values()):',
          '            for value in list(getattr(module, "__dict__", {}).values()):',
          '                pass',
          '        self.fail("copied %d" % n)',
        ].join('\n'),
      );
      const copied = async (code: string): Promise<number> => {
        const r = await own.evaluate(probe, code);
        expect(r.firstError).toMatch(/^test_copied: AssertionError: copied \d+$/);
        return Number(/copied (\d+)/.exec(r.firstError!)![1]);
      };
      const plainCode = 'def task_func():\n    return 1\n';
      // The two reporting runs: one forks a process that leaves through os._exit (only the
      // test process itself reports), one writes nonsense to its highest fd (the report's).
      const forking = 'import os\nif os.fork() == 0:\n    os._exit(0)\nos.wait()\n' + plainCode;
      const garbage = 'import os\nos.write(max(int(fd) for fd in os.listdir("/proc/self/fd")), b"[[0, 1099511627776]] not json")\n' + plainCode;
      const first = await copied(forking);
      const started = runner.forkServerStats().started; // its font list is read through a server of its own
      expect(runner.forkServerStats().copiedAheadRuns).toBe(0);
      // From the second run on: what the first reported (the second's nonsense is dropped).
      const later = [await copied(garbage), await copied(plainCode), await copied(plainCode)];
      const s = runner.forkServerStats();
      expect(s.started).toBe(started);
      expect(s.copiedAheadRuns).toBe(3);
      // Thousands of pages, MBs: the first report's, at most the cap.
      expect(s.copiedAheadKb / 3).toBeGreaterThan(4 * 1024);
      expect(s.copiedAheadKb / 3).toBeLessThanOrEqual(64 * 1024);
      // What the first run copied late, the later ones have copied before their test starts.
      for (const n of later) expect(n).toBeGreaterThan(2 * first);
    } finally {
      await own.close();
    }
  });

  it('a program that dies is reported as by a fresh interpreter', async () => {
    const trivial = taskWith('    def test_ok(self):\n        self.assertEqual(task_func(), 42)');
    for (const code of ['import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n', 'import os\nos._exit(3)\n', 'import sys\nsys.stderr.write("bye\\n")\nraise SystemExit("gone")\n']) {
      const [a, b] = await Promise.all([fast.evaluate(trivial, code), plain.evaluate(trivial, code)]);
      expect(a.status).toBe(b.status);
      expect(a.firstError).toBe(b.firstError);
    }
  });

  it('gives the verdicts of a fresh interpreter on real tasks', async () => {
    // Standard library, pandas, matplotlib, sklearn, scipy, seaborn, Django, a missing library, subprocesses, multiprocessing, failures.
    const ids = [1, 4, 9, 16, 31, 37, 42, 57, 59, 76, 85, 92, 101, 120, 241, 363];
    const differ: string[] = [];
    for (const n of ids) {
      const t = byId(n);
      const [a, b] = await Promise.all([fast.evaluate(t, goldSolution(t)), plain.evaluate(t, goldSolution(t))]);
      if (a.status !== b.status || a.firstError !== b.firstError || a.testsRun !== b.testsRun) differ.push(`${t.id}: ${a.status} ${a.firstError ?? ''} / ${b.status} ${b.firstError ?? ''}`);
    }
    expect(differ).toEqual([]);
    expect(warm.forkServerStats().missed).toBe(0);
  });

  it('a test finds the libraries loaded that its own imports load in a fresh interpreter, and no others', async () => {
    // Lists that share packages, so the server makes templates on the way (pandas, then
    // sklearn, …) and forks later lists from them: none may leave a module behind that a
    // fresh interpreter running the same task would not have loaded.
    const probe = taskWith(
      [
        '    def test_modules(self):',
        '        import hashlib, sys',
        '        third = sorted(m for m in sys.modules if m.split(".")[0] not in sys.stdlib_module_names)',
        '        self.fail("%d %s" % (len(third), hashlib.sha256(" ".join(third).encode()).hexdigest()[:16]))',
      ].join('\n'),
    );
    const lists = [
      ['pandas', 'sklearn.preprocessing'],
      ['pandas', 'sklearn.cluster'],
      ['sklearn.decomposition'],
      ['pandas', 'scipy.stats'],
      ['pandas'],
      ['scipy.stats', 'sklearn.preprocessing'],
      ['sklearn'],
      ['pandas', 'sklearn.preprocessing'], // again: now from a template of its own
    ];
    const before = warm.forkServerStats();
    const differ: string[] = [];
    for (const modules of lists) {
      const task = { ...probe, code_prompt: modules.map((m) => `import ${m}\n`).join('') };
      const code = `${task.code_prompt}def task_func():\n    return 1\n`;
      const [a, b] = await Promise.all([fast.evaluate(task, code), plain.evaluate(task, code)]);
      expect(b.firstError).toMatch(/^test_modules: AssertionError: \d+ [0-9a-f]{16}$/);
      if (a.firstError !== b.firstError) differ.push(`${modules.join(', ')}: ${a.firstError} / ${b.firstError}`);
    }
    expect(differ).toEqual([]);
    // One server ran them all, through the templates the earlier lists left.
    expect(warm.forkServerStats().started).toBe(before.started);
  });
});

describe.skipIf(engineReq.skip)('the fork server in a container', () => {
  let runner: DockerPythonTestRunner;
  let fast: BcbEvaluator;
  beforeAll(() => {
    expect(engineReq.ok, engineReq.reason).toBe(true);
    runner = new DockerPythonTestRunner({ docker: { settings: defaultDockerSettings(), image: BCB_IMAGE, role: 'bcb', concurrency: 1 } });
    fast = new BcbEvaluator('docker', Promise.resolve(runner));
  });
  afterAll(async () => {
    await fast?.close();
  });

  it('leaves nothing of a test to the next: files (/var/tmp too), processes, environment, module state', async () => {
    await expectNothingLeft(fast, () => runner.forkServerStats());
  });
});
