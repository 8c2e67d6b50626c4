import { totalmem } from 'node:os';
import { describe, expect, it } from 'vitest';
import { BCB_LIMITS } from '../../src/bench/bcb/evaluate.js';
import { defaultLimits, prlimitPrefix, resolveLimits } from '../../src/env/limits.js';

describe('sandbox limits', () => {
  it('defaults keep memory well under the machine and within BigCodeBench 30 GiB', () => {
    const l = defaultLimits(60);
    expect(l.addressSpaceBytes).toBeLessThanOrEqual(BCB_LIMITS.addressSpaceBytes);
    expect(l.addressSpaceBytes).toBeLessThanOrEqual(Math.max(4 * 1024 ** 3, totalmem() / 4));
    expect(l.cpuSeconds).toBeGreaterThan(60); // the wall clock decides first
    expect(l.maxProcesses).toBeGreaterThan(0);
  });

  it('rejects nonsense overrides', () => {
    expect(() => resolveLimits(10, { maxProcesses: 0 })).toThrow(/maxProcesses/);
    expect(() => resolveLimits(10, { addressSpaceBytes: Number.NaN })).toThrow(/addressSpaceBytes/);
    expect(resolveLimits(10, { maxProcesses: 7 }).maxProcesses).toBe(7);
  });

  it('sets soft and hard limits together, then hands over to the command', () => {
    const args = prlimitPrefix(resolveLimits(10, { maxProcesses: 7, addressSpaceBytes: 1000 }));
    expect(args[0]).toBe('/usr/bin/prlimit');
    expect(args).toContain('--nproc=7:7');
    expect(args).toContain('--as=1000:1000');
    expect(args).toContain('--core=0:0');
    expect(args[args.length - 1]).toBe('--');
  });
});
