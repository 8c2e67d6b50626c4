/** `memrl run llb --task db` and `memrl check-gold llb` as a user runs them (built bin/memrl.js; npm test builds). */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedDataDir } from '../../src/util/paths.js';
import { requireMariadb } from './require-mariadb.js';
import { assertBuilt, runMemrl } from '../helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'memrl-llb-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const req = await requireMariadb();

function memrl(args: string[], env: Record<string, string> = {}) {
  return runMemrl(args, { cwd: work, env });
}

function jsonl(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

beforeAll(assertBuilt);

describe('memrl run llb (no server needed)', () => {
  it('says how to start MariaDB when it is down', async () => {
    const r = await memrl(['run', 'llb', '--task', 'db', '--limit', '2', '--epochs', '1', '--output-dir', 'out-down'], { MEMRL_MYSQL_SOCKET: join(work, 'no.sock') });
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/MariaDB is not running.*bash scripts\/setup\.sh mariadb/);
  });

  it('rejects a Python-repr data file naming the usable files', async () => {
    const r = await memrl(['run', 'llb', '--task', 'db', '--split-file', join(sharedDataDir(), 'llb', 'db_bench_data.json'), '--limit', '2', '--epochs', '1']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/db_train\.json, db_val\.json or db_bench_runtime_learning_data\.json/);
  });
});

describe.skipIf(req.skip)('memrl run llb --task db with the sim', () => {
  it('runs 2 epochs of 5 tasks with validation; writes steps, tags and transcripts', async () => {
    const r = await memrl(['run', 'llb', '--task', 'db', '--limit', '5', '--epochs', '2', '--run-validation', '--output-dir', 'out']);
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    const runs = readdirSync(join(work, 'out', 'llb'));
    expect(runs).toHaveLength(1);
    const dir = join(work, 'out', 'llb', runs[0]!);
    const outcomes = jsonl(join(dir, 'outcomes.jsonl'));
    const train = outcomes.filter((o) => o.phase === 'train');
    expect(train).toHaveLength(10);
    expect(outcomes.some((o) => o.phase !== 'train')).toBe(true);
    for (const o of train) {
      expect(o.steps).toBeGreaterThanOrEqual(1);
      expect(o.status === 'pass' || o.status === 'fail').toBe(true);
    }
    const traces = jsonl(join(dir, 'traces.jsonl'));
    const t0 = traces[0]!.transcript as { action: string; command?: string }[];
    expect(t0[0]!.action).toBe('operation');
    expect(t0.at(-1)!.action).toBe('answer');
    const tb = readdirSync(join(dir, 'tb'));
    const events = readFileSync(join(dir, 'tb', tb[0]!)).toString('latin1');
    for (const tag of ['Train/Section_Success_Rate', 'Train/Section_Avg_Steps', 'Evaluation/Success_Rate/Validation']) expect(events).toContain(tag);
  });

  it('check-gold llb --task db reports pass rate and vacuous checks', async () => {
    const r = await memrl(['check-gold', 'llb', '--task', 'db', '--limit', '20', '-q']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/passed \d+\/20/);
    expect(r.stdout).toMatch(/vacuous checks \(pass on an untouched environment\): 0/);
  });
});

describe('memrl run llb --task os with the sim (real rootfs sandbox)', () => {
  beforeAll(async () => {
    const { checkShellSandbox } = await import('../../src/env/shell/local.js');
    const ok = await checkShellSandbox();
    if (!ok.ok) {
      if (process.env.CI) throw new Error(`os sandbox unavailable under CI: ${ok.reason}`);
      console.warn(`skipping os end-to-end: ${ok.reason}`);
    }
  });

  it('runs shell episodes in the sandbox, scores them with the evaluation script, and writes transcripts', async () => {
    const { checkShellSandbox } = await import('../../src/env/shell/local.js');
    if (!(await checkShellSandbox()).ok) return;
    const r = await memrl(['run', 'llb', '--task', 'os', '--limit', '3', '--epochs', '2', '--output-dir', 'out-os']);
    expect(r.code).toBe(0);
    const dir = join(work, 'out-os', 'llb', readdirSync(join(work, 'out-os', 'llb'))[0]!);
    const train = jsonl(join(dir, 'outcomes.jsonl')).filter((o) => o.phase === 'train');
    expect(train).toHaveLength(6);
    expect(train.every((o) => o.status === 'pass' || o.status === 'fail')).toBe(true);
    // The sim plays the ground truth with a memory-shaped probability (deterministic for the seed): some episodes must pass.
    expect(train.some((o) => o.status === 'pass')).toBe(true);
    const traces = jsonl(join(dir, 'traces.jsonl'));
    expect(traces).toHaveLength(6);
    expect(JSON.stringify(traces[0]!.transcript)).toMatch(/bash|finish/);
    const manifest = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { benchmark: string; simulated: boolean };
    expect(manifest).toMatchObject({ benchmark: 'llb', simulated: true });
  }, 300_000);
});
