import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../../../src/env/bwrap/process.js';
import { eventually as poll } from '../../helpers/processes.js';

const eventually = (check: () => boolean, ms = 3000): Promise<boolean> => poll(check, ms);

const ENV = { PATH: '/usr/bin:/bin' };

/** Host processes whose command line contains `marker`. */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}


describe('runProcess', () => {
  it('returns output and exit code of a normal run', async () => {
    const r = await runProcess('/bin/sh', ['-c', 'echo out; echo err >&2; exit 3'], { env: ENV, timeoutMs: 10_000 });
    expect(r).toMatchObject({ exitCode: 3, stdout: 'out\n', stderr: 'err\n', timedOut: false });
  });

  it('passes stdin and starts from exactly the given environment', async () => {
    process.env.MEMRL_TEST_PARENT_ONLY = 'leak';
    try {
      const r = await runProcess('/bin/sh', ['-c', 'cat; env'], { env: { ...ENV, ONLY: 'this' }, input: 'hello\n', timeoutMs: 10_000 });
      expect(r.stdout).toContain('hello\n');
      expect(r.stdout).toContain('ONLY=this');
      expect(r.stdout).not.toContain('MEMRL_TEST_PARENT_ONLY');
    } finally {
      delete process.env.MEMRL_TEST_PARENT_ONLY;
    }
  });

  it('kills the whole process group at the timeout, grandchildren included', async () => {
    const marker = `memrl-gc-${process.pid}-${Date.now()}`;
    const started = Date.now();
    // The grandchild ignores the parent's death; only a group kill reaches it.
    const r = await runProcess('/bin/sh', ['-c', `(exec -a ${marker} sleep 300) & sleep 300`], { env: ENV, timeoutMs: 500 });
    expect(r.timedOut).toBe(true);
    expect(r.exitSignal).toBe('SIGKILL');
    expect(Date.now() - started).toBeLessThan(8000);
    expect(await eventually(() => processesWith(marker).length === 0)).toBe(true);
  });

  it('keeps only the first bytes of huge output and still finishes', async () => {
    const r = await runProcess('/bin/sh', ['-c', 'head -c 50000000 /dev/zero | tr "\\0" x; echo done >&2'], {
      env: ENV,
      timeoutMs: 30_000,
      maxOutputBytes: 1000,
    });
    expect(r.timedOut).toBe(false);
    expect(r.stdout.length).toBe(1000);
    expect(r.stdoutTruncated).toBe(true);
    expect(r.stderr).toBe('done\n');
  });

  it('captures fd 3 separately when asked', async () => {
    const r = await runProcess('/bin/sh', ['-c', 'echo noise; echo result >&3'], { env: ENV, timeoutMs: 10_000, resultFdBytes: 100 });
    expect(r.result).toBe('result\n');
    expect(r.stdout).toBe('noise\n');
  });

  it('stops on abort', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    const r = await runProcess('/bin/sleep', ['300'], { env: ENV, timeoutMs: 60_000, signal: ac.signal });
    expect(r.aborted).toBe(true);
    expect(r.durationMs).toBeLessThan(6000);
  });

  it('reports a program that cannot be started', async () => {
    const r = await runProcess('/nonexistent/program', [], { env: ENV, timeoutMs: 5000 });
    expect(r.spawnError).toMatch(/ENOENT/);
    expect(r.exitCode).toBeNull();
  });
});
