/**
 * What a worker says it can serve: a need turned off with `--without` is not probed at
 * all (a busy container engine cannot hold the worker's start), and one that is probed
 * and fails is missing with the reason. The engine here is a loopback port that drops
 * every connection it gets, so the test sees whether it was contacted.
 */
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectCapabilities } from '../../src/sweep/worker.js';

describe('worker capabilities', () => {
  let server: Server;
  let connections = 0;
  let saved: string | undefined;
  beforeAll(async () => {
    server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    saved = process.env.DOCKER_HOST;
    const { port } = server.address() as { port: number };
    process.env.DOCKER_HOST = `tcp://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.DOCKER_HOST;
    else process.env.DOCKER_HOST = saved;
    await new Promise((r) => server.close(r));
  });

  it('does not contact the container engine when containers are turned off', async () => {
    const caps = await detectCapabilities(['containers']);
    expect(connections).toBe(0);
    expect(caps.have.has('containers')).toBe(false);
    expect(caps.missing.get('containers')).toBe('turned off with --without');
  });

  it('probes the engine otherwise, and names it when it does not answer', async () => {
    const caps = await detectCapabilities(['bwrap', 'mariadb']);
    expect(connections).toBeGreaterThan(0);
    expect(caps.have.size).toBe(0);
    expect(caps.missing.get('containers')).toMatch(/^no container engine at tcp:\/\/127\.0\.0\.1:\d+ \(/);
    expect(caps.missing.get('bwrap')).toBe('turned off with --without');
  }, 30_000);
});
