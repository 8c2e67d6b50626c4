/**
 * The shell kind's conformance cases, run against every registered shell backend
 * (shell.conformance.test.ts): hostile commands an agent (an LLB os agent, say)
 * might run. Each is contained, the harness keeps going, and nothing outside the
 * task's environment changes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShellEnvironment } from '../../../src/env/shell/contract.js';

export const FAKE_KEY = 'sk-memrl-escape-test-4f1d2c';

export interface OsEscapeOptions {
  skip: boolean;
  /** A fresh environment for one task. */
  create: () => Promise<ShellEnvironment>;
  /** Bytes of output a command may return at most (the backend's cap plus slack). */
  maxOutputBytes: number;
}

/** The command's result, or the error the environment threw (a clean evaluator error is acceptable, a hang is not). */
async function settle(p: Promise<{ output: string }>): Promise<string> {
  try {
    return (await p).output;
  } catch (err) {
    return `THREW ${(err as Error).message}`;
  }
}

export function defineOsEscapes(label: string, opts: OsEscapeOptions): void {
  describe.skipIf(opts.skip)(`os escapes: ${label}`, () => {
    let env: ShellEnvironment;
    let server: Server;
    let port = 0;
    let hostDir = '';
    let hostChild: ChildProcess;
    const savedKey = process.env.OPENAI_API_KEY;

    beforeAll(async () => {
      process.env.OPENAI_API_KEY = FAKE_KEY;
      process.env.MEMRL_ESCAPE_SECRET = FAKE_KEY;
      hostDir = mkdtempSync(join(tmpdir(), 'memrl-os-escape-'));
      server = createServer((s) => s.end('hello from host\n'));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      port = (server.address() as { port: number }).port;
      hostChild = spawn('sleep', ['987321'], { stdio: 'ignore' });
      env = await opts.create();
    });

    afterAll(async () => {
      if (savedKey === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = savedKey;
      delete process.env.MEMRL_ESCAPE_SECRET;
      await env?.dispose();
      server?.close();
      hostChild?.kill('SIGKILL');
      if (hostDir) rmSync(hostDir, { recursive: true, force: true });
    });

    it('cannot read our environment variables (a fake API key) or host processes', async () => {
      const r = await env.exec('env; cat /proc/[0-9]*/environ 2>/dev/null | tr "\\0" "\\n"; cat /proc/[0-9]*/cmdline 2>/dev/null | tr "\\0" " "', 20);
      expect(r.output).toContain('PATH=');
      expect(r.output).not.toContain(FAKE_KEY);
      expect(r.output).not.toContain('MEMRL_ESCAPE_SECRET');
      expect(r.output).not.toMatch(/vitest|node /);
    });

    it('cannot write to the host: a path that exists on the host is a different one inside', async () => {
      const r = await env.exec(`mkdir -p ${hostDir} && echo pwned > ${hostDir}/pwned && echo wrote; ls /work 2>&1 | head -1`, 20);
      expect(r.output).toContain('wrote');
      expect(r.output).toMatch(/No such file or directory/);
      expect(existsSync(join(hostDir, 'pwned'))).toBe(false);
    });

    it('has no network, not even to a server on the host loopback', async () => {
      const r = await env.exec(`timeout 5 bash -c 'cat < /dev/tcp/127.0.0.1/${port}'; getent hosts example.com || echo no-dns; cat /proc/net/dev`, 20);
      expect(r.output).not.toContain('hello from host');
      expect(r.output).toContain('no-dns');
      const ifaces = r.output.split('\n').filter((l) => /^\s*[\w.-]+:\s+\d/.test(l)).map((l) => l.trim().split(':')[0]);
      expect(ifaces).toEqual(['lo']);
    });

    it('cannot kill the harness or host processes', async () => {
      const pid = hostChild.pid!;
      const out = await settle(env.exec(`kill -9 ${pid} ${process.pid} ${process.ppid}; pkill -9 -f 987321; pkill -9 node; kill -9 $PPID; kill -9 -1; echo after`, 20));
      expect(out).not.toContain('THREW');
      expect(hostChild.exitCode).toBeNull();
      expect(hostChild.signalCode).toBeNull();
      expect(() => process.kill(pid, 0)).not.toThrow();
      // The task may have broken its own environment; the next task's is fine.
      const fresh = await opts.create();
      try {
        expect((await fresh.exec('echo alive', 20)).output).toBe('alive\n');
      } finally {
        await fresh.dispose();
      }
    });

    describe('runaway commands end, and the task goes on', () => {
      let task: ShellEnvironment;
      beforeAll(async () => {
        task = await opts.create();
      });
      afterAll(async () => {
        await task?.dispose();
      });

      it('an infinite loop is killed at its time limit', async () => {
        const t0 = Date.now();
        const r = await task.exec('while :; do :; done', 2);
        expect(r.timedOut).toBe(true);
        expect(r.exitCode).toBeNull();
        expect(Date.now() - t0).toBeLessThan(10_000);
        expect((await task.exec('echo alive', 20)).output).toBe('alive\n');
      });

      it('a fork bomb is stopped by the process limit and killed at the time limit', async () => {
        const t0 = Date.now();
        const r = await task.exec(':(){ :|:& };:; sleep 60; echo not-reached', 5);
        expect(r.timedOut).toBe(true);
        expect(r.output).not.toContain('not-reached');
        expect(Date.now() - t0).toBeLessThan(20_000);
        await new Promise((res) => setTimeout(res, 500));
        expect((await task.exec('echo alive', 20)).output).toBe('alive\n');
      }, 60_000);

      it('a memory hog is stopped by the memory limit', async () => {
        const r = await task.exec('head -c 6G /dev/zero | tail -n 1 > /dev/null && echo survived; echo done', 30);
        expect(r.output).not.toContain('survived');
        expect((await task.exec('echo alive', 20)).output).toBe('alive\n');
      }, 60_000);

      it('huge output is cut to the output cap, and endless output ends at the time limit', async () => {
        const big = await task.exec('yes | head -c 50000000; echo; echo end', 20);
        expect(big.timedOut).toBe(false);
        expect(big.exitCode).toBe(0);
        expect(big.output.length).toBeLessThanOrEqual(opts.maxOutputBytes);
        expect(big.output.startsWith('y\ny\n')).toBe(true);
        const endless = await task.exec('yes', 3);
        expect(endless.timedOut).toBe(true);
        expect(endless.output.length).toBeLessThanOrEqual(opts.maxOutputBytes);
        expect((await task.exec('echo alive', 20)).output).toBe('alive\n');
      }, 60_000);

      it('one file cannot grow past the file-size cap', async () => {
        const r = await task.exec('head -c 300M /dev/zero > /root/big; echo rc=$?; stat -c %s /root/big; rm -f /root/big', 30);
        expect(r.output).toMatch(/File too large|rc=1\d\d/);
        expect(r.output).toContain(String(256 * 1024 * 1024));
      }, 60_000);
    });
  });
}
