/**
 * `memrl check-gold bcb --evaluator docker` against the real engine: the same
 * numbers, task by task, as the local sandbox; the report names the image; no
 * container is left behind.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { GoldReport } from '../../src/bench/bcb/check-gold.js';
import { registerCheckGoldCommand } from '../../src/cli/commands/check-gold.js';
import { requireBcbPython } from '../env/require-sandbox.js';
import { BCB_IMAGE, ourBcbContainers, requireBcbImage } from './require-bcb-docker.js';

const engineReq = await requireBcbImage();
const localReq = await requireBcbPython();
vi.setConfig({ testTimeout: 300_000 });
const scratch = mkdtempSync(join(tmpdir(), 'memrl-gold-docker-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const LIMIT = '8';

async function gold(args: string[]): Promise<{ report: GoldReport; printed: string }> {
  const out = join(scratch, `gold-${args.join('-').replace(/[^a-z0-9-]/gi, '')}.json`);
  const p = new Command('memrl').exitOverride();
  registerCheckGoldCommand(p);
  const writes: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    writes.push(String(chunk));
    return true;
  });
  try {
    await p.parseAsync(['check-gold', 'bcb', '--limit', LIMIT, '--concurrency', '2', '--quiet', '--out', out, ...args], { from: 'user' });
  } finally {
    spy.mockRestore();
  }
  return { report: JSON.parse(readFileSync(out, 'utf8')) as GoldReport, printed: writes.join('') };
}

describe.skipIf(engineReq.skip || localReq.skip)('check-gold bcb through containers', () => {
  it(`gives the local numbers on the first ${LIMIT} tasks, task by task`, async () => {
    expect(engineReq.ok, engineReq.reason).toBe(true);
    expect(localReq.ok, localReq.reason).toBe(true);
    const local = await gold([]);
    const docker = await gold(['--evaluator', 'docker']);

    expect(docker.report).toMatchObject({ backend: 'docker', image: { name: BCB_IMAGE }, total: Number(LIMIT) });
    expect(local.report.backend).toBe('local');
    for (const key of ['total', 'passed', 'passRate', 'byStatus', 'byCategory', 'pythonVersion', 'missingLibs', 'dataSha256'] as const) {
      expect(docker.report[key], key).toEqual(local.report[key]);
    }
    const shape = (r: GoldReport): unknown => r.results.map(({ id, status, firstError, testsRun }) => ({ id, status, firstError, testsRun }));
    expect(shape(docker.report)).toEqual(shape(local.report));
    expect(docker.printed).toMatch(new RegExp(`docker ${BCB_IMAGE.replace(/[/.]/g, '\\$&')} [0-9a-f]{12}`));

    expect(await ourBcbContainers(engineReq.engine!)).toEqual([]);
  });

  it('an unreachable engine stops the command with one line before any task runs', async () => {
    const p = new Command('memrl').exitOverride();
    registerCheckGoldCommand(p);
    await expect(
      p.parseAsync(['check-gold', 'bcb', '--limit', '1', '--quiet', '--evaluator', 'docker', '--docker-host', 'unix:///nonexistent/memrl.sock'], { from: 'user' }),
    ).rejects.toThrow(/no container engine at unix:\/\/\/nonexistent\/memrl.sock/);
  });
});
