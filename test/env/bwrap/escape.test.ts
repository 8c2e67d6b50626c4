/**
 * Untrusted code in the local sandbox: what it must not reach, and runaway
 * programs that must end without harming the host.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bwrapArgs, allowedEtcEntries, parseBwrapFeatures } from '../../../src/env/bwrap/bwrap-args.js';
import { resolveLimits } from '../../../src/env/limits.js';
import { runSandboxed } from '../../../src/env/bwrap/run.js';
import { packageRoot } from '../../../src/util/paths.js';
import { requireBwrap } from '../require-sandbox.js';
import { eventually, hostProcessesWith } from '../../helpers/processes.js';

const PY = '/usr/bin/python3';
const sandbox = await requireBwrap();

function py(code: string, timeoutSec = 20, limits: Parameters<typeof resolveLimits>[1] = {}) {
  return runSandboxed({ command: [PY, '-c', code], timeoutMs: timeoutSec * 1000, limits: resolveLimits(timeoutSec, limits) });
}

function sh(script: string, timeoutSec = 20) {
  return runSandboxed({ command: ['/bin/sh', '-c', script], timeoutMs: timeoutSec * 1000, limits: resolveLimits(timeoutSec) });
}



describe('bwrap command line', () => {
  const args = bwrapArgs({
    command: ['/bin/true'],
    env: { PATH: '/usr/bin' },
    tmpfsBytes: 1 << 20,
    features: { tmpfsSize: true, disableUserns: true },
  });

  it('unshares everything, clears the environment and dies with its parent', () => {
    for (const flag of ['--unshare-all', '--die-with-parent', '--new-session', '--clearenv', '--disable-userns']) expect(args).toContain(flag);
  });

  it('makes the root read-only after mounting, and runs the command last', () => {
    const remount = args.indexOf('--remount-ro');
    expect(args[remount + 1]).toBe('/');
    expect(remount).toBeGreaterThan(args.lastIndexOf('--tmpfs'));
    expect(args.slice(-2)).toEqual(['--', '/bin/true']);
  });

  it('binds neither the project, nor home, nor all of /etc', () => {
    const binds = args.flatMap((a, i) => (a === '--ro-bind' || a === '--bind' ? [args[i + 1] as string] : []));
    expect(binds).not.toContain('/');
    expect(binds).not.toContain('/etc');
    expect(binds.some((b) => b.startsWith(packageRoot()))).toBe(false);
    expect(binds.some((b) => b === homedir() || b.startsWith(homedir() + '/'))).toBe(false);
    expect(args).not.toContain('--bind'); // nothing of the host is writable
  });

  it('lets through only harmless /etc entries', () => {
    const etc = allowedEtcEntries();
    for (const secret of ['shadow', 'gshadow', 'npmrc', 'pip.conf', 'ssh', 'sudoers', 'machine-id']) expect(etc).not.toContain(secret);
  });

  it('reads optional features from bwrap --help', () => {
    expect(parseBwrapFeatures('  --size BYTES  Set size\n  --disable-userns  x')).toEqual({ tmpfsSize: true, disableUserns: true });
    expect(parseBwrapFeatures('  --tmpfs DEST')).toEqual({ tmpfsSize: false, disableUserns: false });
  });
});

describe.skipIf(sandbox.skip)('sandbox containment', () => {
  let server: Server;
  let port = 0;
  let hostDir: string;

  beforeAll(async () => {
    expect(sandbox.ok, sandbox.reason).toBe(true);
    server = createServer((sock) => sock.end('reachable\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
    hostDir = mkdtempSync(join(tmpdir(), 'memrl-escape-'));
    writeFileSync(join(hostDir, 'secret.txt'), 'host secret\n');
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    if (hostDir) rmSync(hostDir, { recursive: true, force: true });
  });

  it('has no network: neither the host loopback nor the outside world', async () => {
    const r = await py(
      [
        'import socket',
        'for host, port in [("127.0.0.1", ' + port + '), ("1.1.1.1", 53), ("8.8.8.8", 443)]:',
        '    try:',
        '        s = socket.create_connection((host, port), timeout=3)',
        '        print("CONNECTED", host, s.recv(100))',
        '    except OSError as e:',
        '        print("blocked", host, type(e).__name__)',
        'try:',
        '    socket.getaddrinfo("example.com", 80)',
        '    print("RESOLVED")',
        'except OSError:',
        '    print("no dns")',
      ].join('\n'),
    );
    expect(r.exitCode).toBe(0);
    expect(r.stdout).not.toContain('CONNECTED');
    expect(r.stdout).not.toContain('RESOLVED');
    expect(r.stdout.match(/blocked/g)).toHaveLength(3);
  });

  it('cannot read the project, $HOME or the host /tmp', async () => {
    const targets = [join(packageRoot(), 'package.json'), homedir(), join(hostDir, 'secret.txt'), '/work', '/root/.ssh'];
    const reader = [
      'import json, os, sys',
      'for p in json.loads(sys.argv[1]):',
      '    try:',
      '        data = open(p).read() if os.path.isfile(p) else os.listdir(p)',
      '        print("READ", p)',
      '    except OSError as e:',
      '        print("denied", p, type(e).__name__)',
    ].join('\n');
    const r = await runSandboxed({ command: [PY, '-c', reader, JSON.stringify(targets)], timeoutMs: 20_000, limits: resolveLimits(20) });
    expect(r.stdout).not.toContain('READ');
    expect(r.stdout.match(/denied/g)).toHaveLength(targets.length);
  });

  it('cannot write outside its own tmpfs', async () => {
    const r = await sh('for d in /usr /etc / /var /tmp/work /dev/shm; do (echo x > $d/memrl-probe && echo "WROTE $d") 2>/dev/null || echo "refused $d"; done');
    expect(r.stdout).toContain('refused /usr');
    expect(r.stdout).toContain('refused /etc');
    expect(r.stdout).toContain('refused /\n');
    expect(r.stdout).toContain('refused /var');
    expect(r.stdout).toContain('WROTE /tmp/work');
    expect(r.stdout).toContain('WROTE /dev/shm');
  });

  it('does not see secrets from the parent environment', async () => {
    process.env.OPENAI_API_KEY = 'sk-memrl-test-secret';
    process.env.MEMRL_TEST_TOKEN = 'token-memrl-test-secret';
    try {
      const r = await sh('env; cat /proc/self/environ | tr "\\0" "\\n"; cat /proc/1/environ 2>/dev/null | tr "\\0" "\\n"');
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain('HOME=/tmp');
      expect(r.stdout).not.toContain('memrl-test-secret');
      expect(r.stdout).not.toContain('OPENAI_API_KEY');
    } finally {
      delete process.env.OPENAI_API_KEY;
      delete process.env.MEMRL_TEST_TOKEN;
    }
  });

  it('sees only its own processes and holds no capabilities', async () => {
    const r = await sh('ls /proc | grep -c "^[0-9]"; grep CapEff /proc/self/status; id -u');
    const [count, cap, uid] = r.stdout.trim().split('\n');
    expect(Number(count)).toBeLessThan(10);
    expect(cap).toMatch(/CapEff:\s+0+$/);
    expect(uid).toBe('65534');
  });

  it('stops a fork bomb at the process limit and leaves nothing behind', async () => {
    const marker = `memrl-forkbomb-${process.pid}-${Date.now()}`;
    const r = await runSandboxed({
      command: [
        PY,
        '-c',
        [
          'import os, sys, time',
          'n = 0',
          'while True:',
          '    try:',
          '        if os.fork() == 0:',
          '            time.sleep(60)',
          '            os._exit(0)',
          '        n += 1',
          '    except OSError:',
          '        print("fork refused after", n, flush=True)',
          '        time.sleep(60)',
        ].join('\n'),
        marker,
      ],
      timeoutMs: 4000,
      limits: resolveLimits(4, { maxProcesses: 64 }),
    });
    expect(r.timedOut).toBe(true);
    const refused = /fork refused after (\d+)/.exec(r.stdout);
    expect(refused, r.stdout + r.stderr).not.toBeNull();
    expect(Number(refused?.[1])).toBeLessThanOrEqual(64);
    expect(await eventually(() => hostProcessesWith(marker) === 0)).toBe(true);
  });

  it('turns a memory hog into a MemoryError, not host memory pressure', async () => {
    const r = await py(
      [
        'chunks = []',
        'try:',
        '    while True:',
        '        chunks.append(bytearray(64 << 20))',
        'except MemoryError:',
        '    print("MemoryError after", len(chunks) * 64, "MiB")',
      ].join('\n'),
      30,
      { addressSpaceBytes: 1 << 30 },
    );
    const m = /MemoryError after (\d+) MiB/.exec(r.stdout);
    expect(m, r.stdout + r.stderr).not.toBeNull();
    expect(Number(m?.[1])).toBeLessThanOrEqual(1024);
  });

  it('ends an infinite loop at the wall-clock limit', async () => {
    const r = await py('while True:\n    pass\n', 2);
    expect(r.timedOut).toBe(true);
    expect(r.durationMs).toBeLessThan(8000);
  });

  it('bounds huge output', async () => {
    const r = await runSandboxed({
      command: [PY, '-c', 'import os\nfor _ in range(200):\n    os.write(1, b"x" * (1 << 20))\nprint("end")'],
      timeoutMs: 30_000,
      limits: resolveLimits(30),
      maxOutputBytes: 4096,
    });
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.length).toBe(4096);
    expect(r.stdoutTruncated).toBe(true);
  });

  it('kills grandchildren that started their own session when the run times out', async () => {
    const marker = `memrl-orphan-${process.pid}-${Date.now()}`;
    const r = await runSandboxed({
      command: [
        PY,
        '-c',
        'import subprocess, sys, time\nsubprocess.Popen(["/bin/sleep", "300", sys.argv[1]], start_new_session=True)\ntime.sleep(300)',
        marker,
      ],
      timeoutMs: 1500,
      limits: resolveLimits(2),
    });
    expect(r.timedOut).toBe(true);
    expect(await eventually(() => hostProcessesWith(marker) === 0)).toBe(true);
  });
});
