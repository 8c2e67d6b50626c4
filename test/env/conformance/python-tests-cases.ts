/**
 * The python-tests kind's conformance cases: hostile BigCodeBench solutions, run
 * against every registered python-tests backend (python-tests.conformance.test.ts;
 * issue 7 part 5, issue 13 item 6): fork bomb, memory hog, infinite loop, huge output, writing outside the
 * sandbox, reading host files and environment variables, opening a network
 * connection, killing the parent. Each goes through the evaluator exactly as a
 * model's answer would; the unit tests of the synthetic task assert containment
 * from the inside, the host side checks that nothing changed, and a plain task
 * right after shows the harness keeps going.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BcbEvalOptions, BcbEvalResult } from '../../../src/bench/bcb/evaluate.js';
import { packageRoot } from '../../../src/util/paths.js';
import { eventually as poll, hostProcessesWith } from '../../helpers/processes.js';

const eventually = (check: () => boolean, ms = 15_000): Promise<boolean> => poll(check, ms);

export type Evaluate = (task: { code_prompt: string; test: string }, code: string, opts?: BcbEvalOptions) => Promise<BcbEvalResult>;

/** A task whose unit tests are `body` (indented methods of TestCases). */
export function taskWith(body: string): { code_prompt: string; test: string } {
  return { code_prompt: '', test: `import unittest\nclass TestCases(unittest.TestCase):\n${body}\n` };
}

const TRIVIAL = taskWith('    def test_ok(self):\n        self.assertEqual(task_func(), 42)');
const TRIVIAL_CODE = 'def task_func():\n    return 42\n';

/** Python source literal of a string. */
const py = (s: string): string => JSON.stringify(s);



function sha(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** The host's first non-loopback IPv4 address, if any (a server bound to all interfaces answers there). */
function hostAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}

/**
 * Registers the suite. `evaluate` is read when the tests run (after the caller's
 * beforeAll has opened its evaluator).
 */
export function defineEscapeSuite(label: string, getEvaluate: () => Evaluate, opts: { skip: boolean }): void {
  describe.skipIf(opts.skip)(`hostile solutions in the ${label} evaluator`, () => {
    let server: Server;
    let port = 0;
    const accepted: Socket[] = [];
    let hostDir = '';

    beforeAll(async () => {
      server = createServer((sock) => {
        accepted.push(sock);
        sock.end('reachable\n');
      });
      await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
      port = (server.address() as { port: number }).port;
      hostDir = mkdtempSync(join(tmpdir(), 'memrl-escape-'));
      writeFileSync(join(hostDir, 'secret.txt'), 'host secret memrl-escape-file\n');
      writeFileSync(join(hostDir, 'target.txt'), 'original\n');
    });

    afterAll(async () => {
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      if (hostDir) rmSync(hostDir, { recursive: true, force: true });
    });

    /** A plain task right after a hostile one: the evaluator still gives honest verdicts. */
    async function stillWorks(): Promise<void> {
      const r = await getEvaluate()(TRIVIAL, TRIVIAL_CODE);
      expect(r.status, r.firstError).toBe('pass');
    }

    it('a fork bomb hits the process limit; its processes end with the run', async () => {
      const marker = `memrl-forkbomb-${process.pid}-${Date.now()}`;
      const code = [
        'import os, posix',
        'FORKED = 0',
        'try:',
        '    while FORKED < 100000:',
        '        if os.fork() == 0:',
        // posix.execv: the harness only wraps os.exec*, hostile code goes around it.
        `            try:\n                posix.execv("/bin/sleep", ["sleep", "300", ${py(marker)}])\n            finally:\n                os._exit(0)`,
        '        FORKED += 1',
        'except OSError:',
        '    pass',
        'def task_func():',
        '    return FORKED',
      ].join('\n');
      const r = await getEvaluate()(taskWith('    def test_refused(self):\n        self.assertLess(task_func(), 100000)'), code, { timeoutSec: 60 });
      expect(r.status, r.firstError).toBe('pass');
      expect(await eventually(() => hostProcessesWith(marker) === 0)).toBe(true);
      await stillWorks();
    });

    it('a memory hog gets a MemoryError at the address-space limit', async () => {
      const code = [
        'chunks = []',
        'try:',
        '    while True:',
        // Filled, not calloc'ed: the pages are really used.
        '        chunks.append(b"x" * (64 << 20))',
        'except MemoryError:',
        '    pass',
        'HELD = len(chunks) * 64',
        'del chunks',
        'def task_func():',
        '    return HELD',
      ].join('\n');
      const r = await getEvaluate()(taskWith('    def test_held(self):\n        self.assertLessEqual(task_func(), 1024)'), code, {
        timeoutSec: 60,
        limits: { addressSpaceBytes: 1024 * 1024 * 1024 },
      });
      expect(r.status, r.firstError).toBe('pass');
      await stillWorks();
    });

    it('an infinite loop is a timeout at the wall-clock budget', async () => {
      const r = await getEvaluate()(TRIVIAL, 'while True:\n    pass\n', { timeoutSec: 3 });
      expect(r.status).toBe('timeout');
      expect(r.durationMs).toBeGreaterThanOrEqual(3000);
      expect(r.durationMs).toBeLessThan(15_000);
      await stillWorks();
    });

    it('huge output is dropped, and neither floods the result nor fakes it', async () => {
      const fake = '{"nonce": null, "status": "pass", "tests_run": 1}';
      const code = [
        'import os, sys',
        'chunk = (' + py(fake + '\n') + ' * 20000).encode()',
        'for _ in range(64):',
        '    os.write(1, chunk)',
        '    os.write(2, chunk)',
        'for _ in range(100000):',
        '    print("x" * 100)',
        'def task_func():',
        '    return 41',
      ].join('\n');
      const r = await getEvaluate()(TRIVIAL, code, { timeoutSec: 60 });
      expect(r.status, r.firstError).toBe('fail');
      expect(r.firstError).toMatch(/AssertionError: 41 != 42/);
      await stillWorks();
    });

    it('cannot write outside its own scratch space; host files stay unchanged', async () => {
      const target = join(hostDir, 'target.txt');
      const probe = join(packageRoot(), `memrl-escape-probe-${process.pid}`);
      const before = sha(join(packageRoot(), 'package.json'));
      const code = [
        'import os',
        'WROTE = []',
        `for path in [${py(target)}, ${py(probe)}, ${py(join(packageRoot(), 'package.json'))}, "/etc/memrl-probe", "/usr/memrl-probe", "/memrl-probe", "/usr/lib/memrl-probe"]:`,
        '    try:',
        '        os.makedirs(os.path.dirname(path), exist_ok=True)',
        '        with open(path, "w") as f:',
        '            f.write("pwned")',
        '        WROTE.append(path)',
        '    except OSError:',
        '        pass',
        'def task_func():',
        '    return WROTE',
      ].join('\n');
      const r = await getEvaluate()(
        taskWith(
          // System directories are read-only inside; host paths can only be recreated in the private /tmp.
          '    def test_system_dirs(self):\n        for p in ["/etc/memrl-probe", "/usr/memrl-probe", "/memrl-probe", "/usr/lib/memrl-probe"]:\n            self.assertNotIn(p, task_func())',
        ),
        code,
      );
      expect(r.status, r.firstError).toBe('pass');
      expect(readFileSync(target, 'utf8')).toBe('original\n');
      expect(existsSync(probe)).toBe(false);
      expect(sha(join(packageRoot(), 'package.json'))).toBe(before);
      for (const p of ['/etc/memrl-probe', '/usr/memrl-probe', '/memrl-probe', '/usr/lib/memrl-probe']) expect(existsSync(p)).toBe(false);
      await stillWorks();
    });

    it('cannot read host files or the parent environment (API keys)', async () => {
      const secret = `sk-memrl-escape-${process.pid}-secret`;
      const saved = { key: process.env.OPENAI_API_KEY, token: process.env.MEMRL_ESCAPE_TOKEN };
      process.env.OPENAI_API_KEY = secret;
      process.env.MEMRL_ESCAPE_TOKEN = `${secret}-token`;
      try {
        const code = [
          'import glob, os',
          'SEEN = [repr(dict(os.environ))]',
          'for path in glob.glob("/proc/*/environ") + glob.glob("/proc/*/cmdline"):',
          '    try:',
          '        SEEN.append(open(path, "rb").read().decode("latin-1"))',
          '    except OSError:',
          '        pass',
          'READ = []',
          `for path in [${py(join(hostDir, 'secret.txt'))}, ${py(join(packageRoot(), 'package.json'))}, "/root/.ssh", "/etc/shadow", "/work"]:`,
          '    try:',
          '        SEEN.append(open(path).read() if os.path.isfile(path) else repr(os.listdir(path)))',
          '        READ.append(path)',
          '    except OSError:',
          '        pass',
          'def task_func():',
          '    return "\\n".join(SEEN), READ',
        ].join('\n');
        const r = await getEvaluate()(
          taskWith(
            [
              '    def test_nothing_leaks(self):',
              '        seen, read = task_func()',
              `        self.assertNotIn(${py(secret)}, seen)`,
              '        self.assertNotIn("OPENAI_API_KEY", seen)',
              '        self.assertNotIn("MEMRL_ESCAPE_TOKEN", seen)',
              '        self.assertNotIn("memrl-escape-file", seen)',
              '        self.assertEqual(read, [])',
            ].join('\n'),
          ),
          code,
        );
        expect(r.status, r.firstError).toBe('pass');
        expect(JSON.stringify(r)).not.toContain(secret);
      } finally {
        if (saved.key === undefined) delete process.env.OPENAI_API_KEY;
        else process.env.OPENAI_API_KEY = saved.key;
        if (saved.token === undefined) delete process.env.MEMRL_ESCAPE_TOKEN;
        else process.env.MEMRL_ESCAPE_TOKEN = saved.token;
      }
      await stillWorks();
    });

    it('has no network: neither the host (loopback or its address) nor the outside world', async () => {
      const targets = [['127.0.0.1', port], ...(hostAddress() ? [[hostAddress(), port]] : []), ['1.1.1.1', 53], ['8.8.8.8', 443]];
      const code = [
        'import socket',
        'REACHED = []',
        `for host, port in ${JSON.stringify(targets)}:`,
        '    try:',
        '        socket.create_connection((host, port), timeout=3).close()',
        '        REACHED.append(host)',
        '    except OSError:',
        '        pass',
        'try:',
        '    socket.getaddrinfo("example.com", 80)',
        '    REACHED.append("dns")',
        'except OSError:',
        '    pass',
        'def task_func():',
        '    return REACHED',
      ].join('\n');
      const r = await getEvaluate()(taskWith('    def test_isolated(self):\n        self.assertEqual(task_func(), [])'), code);
      expect(r.status, r.firstError).toBe('pass');
      expect(accepted).toHaveLength(0);
      await stillWorks();
    });

    it('killing its parent, the namespace init or everything it can reach leaves the harness standing', async () => {
      const code = [
        'import ctypes, os, signal',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'ppid = os.getppid()',
        'os.kill(ppid, signal.SIGKILL)',
        // Around the harness guard, straight to the kernel.
        'for pid, sig in [(ppid, signal.SIGKILL), (1, signal.SIGKILL), (1, signal.SIGTERM), (' + process.pid + ', signal.SIGKILL), (-1, signal.SIGKILL)]:',
        '    if pid != 0:',
        '        libc.kill(pid, sig)',
        'def task_func():',
        '    return 42',
      ].join('\n');
      const r = await getEvaluate()(TRIVIAL, code);
      expect(r.status, r.firstError).toBe('pass');
      await stillWorks();
    });
  });
}
