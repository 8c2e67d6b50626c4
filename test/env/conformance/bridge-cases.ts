/**
 * The bridge kind's conformance cases, run against every registered bridge backend
 * (bridge.conformance.test.ts) with a bridge that misbehaves on request
 * (fake_bridge.py): it answers in order and its request errors keep their code; one
 * that hangs is stopped at the request timeout, one that dies mid-request fails that
 * request, one that floods its output cannot drown the answer or fill our memory;
 * each time the next request gets a new bridge, and nothing is left at the end.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BridgeClient } from '../../../src/env/bridge/client.js';
import type { BridgeTransport } from '../../../src/env/bridge/contract.js';
import { BridgeFault, BridgeRequestError } from '../../../src/env/bridge/faults.js';

export interface BridgeSuiteOptions {
  skip: boolean;
  transport: () => BridgeTransport;
  /** Whether every bridge of the transport is gone (no process, no container). */
  nothingLeft: () => Promise<boolean>;
}

const MiB = 1024 * 1024;

export function defineBridgeCases(label: string, opts: BridgeSuiteOptions): void {
  describe.skipIf(opts.skip)(`bridge conformance: ${label}`, () => {
    const clients: BridgeClient[] = [];
    const client = (timeoutMs = 30_000): BridgeClient => {
      const c = new BridgeClient({ transport: opts.transport(), label: 'the test bridge', logEvent: 'test_bridge', timeoutMs, maxLineBytes: 4 * MiB });
      clients.push(c);
      return c;
    };
    afterEach(async () => {
      await Promise.all(clients.splice(0).map((c) => c.close()));
    });
    afterAll(async () => {
      expect(await opts.nothingLeft()).toBe(true);
    });

    it('answers requests in order; a request error keeps the bridge code and the bridge serving', async () => {
      const c = client();
      const values = await Promise.all([1, 2, 3, 4, 5].map((v) => c.request<{ value: number }>({ cmd: 'echo', value: v })));
      expect(values.map((r) => r.value)).toEqual([1, 2, 3, 4, 5]);
      const err = await c.request({ cmd: 'fail' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BridgeRequestError);
      expect((err as BridgeRequestError).code).toBe('not_found');
      expect((await c.request<{ value: string }>({ cmd: 'echo', value: 'again' })).value).toBe('again');
      expect(c.starts).toBe(1);
    });

    it('a bridge that hangs is stopped at the request timeout and replaced by the next request', async () => {
      const c = client(2_000);
      await c.request({ cmd: 'echo', value: 0 });
      const t0 = Date.now();
      const err = await c.request({ cmd: 'hang' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BridgeFault);
      expect((err as Error).message).toMatch(/did not answer "hang" within 2 s/);
      expect(Date.now() - t0).toBeLessThan(15_000);
      expect((await c.request<{ value: number }>({ cmd: 'echo', value: 1 })).value).toBe(1);
      expect(c.starts).toBe(2);
    });

    it('a bridge that dies mid-request fails that request with a BridgeFault; the next request starts a new one', async () => {
      const c = client();
      const first = await c.request<{ pid: number }>({ cmd: 'echo', value: 0 });
      const err = await c.request({ cmd: 'die' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BridgeFault);
      const again = await c.request<{ pid: number; value: number }>({ cmd: 'echo', value: 1 });
      expect(again.value).toBe(1);
      expect(c.starts).toBe(2);
      if (typeof first.pid === 'number' && c.pid !== undefined) expect(c.pid).not.toBe(first.pid);
    });

    it('noise on stdout and a flood on stderr do not drown the answer', async () => {
      const c = client();
      expect((await c.request<{ value: string }>({ cmd: 'noise' })).value).toBe('after the noise');
      expect(c.starts).toBe(1);
    });

    it('an endless line is cut at the line cap (a BridgeFault, well before the timeout) and the bridge replaced', async () => {
      const c = client(60_000);
      await c.request({ cmd: 'echo', value: 0 });
      const t0 = Date.now();
      const err = await c.request({ cmd: 'flood' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BridgeFault);
      expect((err as Error).message).toMatch(/longer than/);
      expect(Date.now() - t0).toBeLessThan(30_000);
      expect((await c.request<{ value: number }>({ cmd: 'echo', value: 1 })).value).toBe(1);
      expect(c.starts).toBe(2);
    });
  });
}
