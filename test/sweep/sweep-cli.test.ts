/**
 * `memrl sweep` as a user runs it (sim model, BigCodeBench tests in the sandbox): a grid
 * of 2 methods × 2 seeds in one process and across two `memrl worker` processes on a
 * real Redis; a sweep killed mid-cell and run again finishes only what was unfinished;
 * a worker killed mid-cell leaves its cell to another worker, which resumes the same run.
 * Before a local sweep starts it says, per cell, whether it is done, resumes (from which
 * epoch, with how many journaled episodes) or starts fresh.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SweepState } from '../../src/sweep/state.js';
import { assertBuilt, MEMRL_BIN, runMemrl } from '../helpers/cli.js';
import { eventually } from '../helpers/processes.js';
import { SKIP_REDIS, startRedis, type RedisServer } from '../helpers/redis.js';
import { tempDir } from '../helpers/temp.js';

const sweep = (args: string[], cwd: string) => runMemrl(['sweep', ...args], { cwd });
const work = tempDir('memrl-sweep-cli-');
const sweepFile = (name: string, limit: number, epochs: number): string => {
  const p = join(work, `${name}.yaml`);
  writeFileSync(p, [`name: ${name}`, 'base: ' + join(process.cwd(), 'configs/quickstart.yaml'), 'set:', `  memrl.limit: ${limit}`, `  experiment.num_sections: ${epochs}`, 'axes:', '  benchmark: [bcb]', '  method: [none, memrl]', '  seed: [1, 2]', ''].join('\n'));
  return p;
};
const state = (dir: string): SweepState => JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8')) as SweepState;
const runFolders = (dir: string): string[] =>
  readdirSync(join(dir, 'cells')).flatMap((cell) => {
    const b = join(dir, 'cells', cell, 'bcb');
    try {
      return readdirSync(b).map((r) => join(b, r));
    } catch {
      return [];
    }
  });
const rowsOf = (runDir: string): { taskId: string; epoch: number }[] => readFileSync(join(runDir, 'outcomes.jsonl'), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
const noDuplicateRows = (runDir: string): boolean => {
  const keys = rowsOf(runDir).map((r) => `${r.taskId}@${r.epoch}`);
  return new Set(keys).size === keys.length;
};

beforeAll(() => assertBuilt());

describe('memrl sweep, in one process', () => {
  it('runs every cell to the end, and a second run of the command runs nothing', async () => {
    const file = sweepFile('local', 3, 2);
    const out = join(work, 'out');
    const r = await sweep([file, '--output-dir', out, '--max-runs', '2'], work);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`4 cells, 4 to run (${join(out, 'local')})\n  every cell starts fresh\n`);
    const dir = join(out, 'local');
    expect(r.stdout.trim()).toBe(`sweep: ${dir}`);
    const s = state(dir);
    expect(s.cells.map((c) => [c.id, c.status, c.epochsDone])).toEqual([
      ['bcb-none-s1', 'complete', 2],
      ['bcb-none-s2', 'complete', 2],
      ['bcb-memrl-s1', 'complete', 2],
      ['bcb-memrl-s2', 'complete', 2],
    ]);
    const folders = runFolders(dir);
    expect(folders).toHaveLength(4);
    const manifest = JSON.parse(readFileSync(join(dir, s.cells[3]!.runDir!, 'run.json'), 'utf8')) as { method: string; seed: number };
    expect(manifest).toMatchObject({ method: 'memrl', seed: 2 });
    const before = folders.map((f) => statSync(join(f, 'outcomes.jsonl')).mtimeMs);
    const again = await sweep([file, '--output-dir', out], work);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('4 cells, 0 to run');
    // Before starting, what happens to each cell.
    for (const c of s.cells) expect(again.stderr).toContain(`  ${c.id.padEnd(12)}  done (2 epochs), not run again\n`);
    expect(runFolders(dir)).toEqual(folders);
    expect(runFolders(dir).map((f) => statSync(join(f, 'outcomes.jsonl')).mtimeMs)).toEqual(before);
    // The folder is an ordinary results tree for the table.
    const table = await runMemrl(['table', dir], { cwd: work });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/\| MemRL \| .*\(n=2\)/);
    const status = await runMemrl(['sweep', 'status', dir], { cwd: work });
    expect(status.stdout).toMatch(/4 complete of 4 cells/);
  }, 300_000);

  it('killed mid-cell and run again, it finishes only the unfinished cells and resumes the killed run', async () => {
    const file = sweepFile('killed', 4, 3);
    const out = join(work, 'out');
    const dir = join(out, 'killed');
    const child = spawn(process.execPath, [MEMRL_BIN, 'sweep', file, '--output-dir', out, '--max-runs', '1'], { cwd: work, stdio: 'ignore', env: { ...process.env, OPENAI_API_KEY: '' } });
    // Kill once the first cell is done and the second has journaled an episode or written rows.
    const killedAt = await eventually(
      () => {
        try {
          const s = state(dir);
          return s.cells[0]!.status === 'complete' && s.cells[1]!.status === 'running' && runFolders(dir).length === 2;
        } catch {
          return false;
        }
      },
      120_000,
      100,
    );
    expect(killedAt).toBe(true);
    await new Promise((r) => setTimeout(r, 1500));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const first = runFolders(dir).sort();
    const done = join(dir, state(dir).cells[0]!.runDir!);
    const doneRows = readFileSync(join(done, 'outcomes.jsonl'), 'utf8');
    const r = await sweep([file, '--output-dir', out], work);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('4 cells, 3 to run');
    // Said before starting: the done cell, where the killed one resumes (as its run then recorded it), the fresh ones.
    const killed = state(dir).cells[1]!;
    const resumes = (JSON.parse(readFileSync(join(dir, killed.runDir!, 'run.json'), 'utf8')) as { resumes: { fromEpoch: number; journaled: number }[] }).resumes;
    expect(resumes).toHaveLength(1);
    const { fromEpoch, journaled } = resumes[0]!;
    expect(r.stderr).toContain(
      [
        '  bcb-none-s1   done (3 epochs), not run again',
        `  bcb-none-s2   resumes from epoch ${fromEpoch + 1} of 3 with ${journaled} journaled episode${journaled === 1 ? '' : 's'}`,
        '  bcb-memrl-s1  starts fresh',
        '  bcb-memrl-s2  starts fresh',
      ].join('\n'),
    );
    expect(state(dir).cells.every((c) => c.status === 'complete')).toBe(true);
    // The finished cell was not run again; the killed one continued in its own folder.
    expect(readFileSync(join(done, 'outcomes.jsonl'), 'utf8')).toBe(doneRows);
    const all = runFolders(dir).sort();
    expect(all).toHaveLength(4);
    for (const f of first) expect(all).toContain(f);
    for (const f of all) {
      expect(rowsOf(f)).toHaveLength(4 * 3);
      expect(noDuplicateRows(f), f).toBe(true);
    }
  }, 300_000);
});

describe.skipIf(SKIP_REDIS)('memrl sweep --queue with memrl workers on Redis', () => {
  let redis: RedisServer;
  const workers: ChildProcess[] = [];
  const logs = new Map<string, string>();
  const startWorker = (name: string): ChildProcess => {
    const w = spawn(process.execPath, [MEMRL_BIN, 'worker', '--queue', redis.url, '--name', name], { cwd: work, env: { ...process.env, OPENAI_API_KEY: '' } });
    logs.set(name, '');
    w.stderr!.on('data', (d: Buffer) => logs.set(name, logs.get(name)! + d.toString()));
    workers.push(w);
    return w;
  };
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => {
    for (const w of workers) w.kill('SIGKILL');
  });

  it('an unreachable Redis is one line naming the URL, within 10 s, and no sweep folder', async () => {
    const started = Date.now();
    const r = await runMemrl(['sweep', sweepFile('nowhere', 2, 1), '--output-dir', join(work, 'q0'), '--queue', 'redis://:secret@127.0.0.1:9'], { cwd: work });
    expect(r.code).toBe(2);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.stderr.trim().split('\n')).toEqual(['memrl: redis://:***@127.0.0.1:9: Redis not reachable (ECONNREFUSED); start it (bash scripts/setup.sh redis) or fix the URL']);
    expect(() => readdirSync(join(work, 'q0'))).toThrow();
  });

  it('two workers run the grid; a worker killed mid-cell leaves it to the other, which resumes the same run', async () => {
    const w1 = startWorker('w1');
    startWorker('w2');
    await eventually(() => [...logs.values()].every((l) => l.includes('taking cells')), 20_000, 100);
    const file = sweepFile('queued', 4, 3);
    const out = join(work, 'q');
    const dir = join(out, 'queued');
    const coordinator = spawn(process.execPath, [MEMRL_BIN, 'sweep', file, '--output-dir', out, '--queue', redis.url], { cwd: work, env: { ...process.env, OPENAI_API_KEY: '' } });
    let coordinatorErr = '';
    coordinator.stderr!.on('data', (d: Buffer) => (coordinatorErr += d.toString()));
    // Kill w1 as soon as it has started a cell's run.
    const w1Cell = await eventually(() => /cell (\S+) of queued/.test(logs.get('w1')!) && /epoch 1\/3/.test(logs.get('w1')!), 120_000, 100);
    expect(w1Cell).toBe(true);
    const cellId = /cell (\S+) of queued/.exec(logs.get('w1')!)![1]!;
    w1.kill('SIGKILL');
    const code = await new Promise<number | null>((r) => coordinator.once('exit', r));
    expect(code, coordinatorErr).toBe(0);
    const s = state(dir);
    expect(s.cells.every((c) => c.status === 'complete')).toBe(true);
    const killed = s.cells.find((c) => c.id === cellId)!;
    expect(killed.worker).toBe('w2');
    // One run folder per cell: the retried cell continued the run w1 had started.
    expect(runFolders(dir)).toHaveLength(4);
    for (const f of runFolders(dir)) {
      expect(rowsOf(f)).toHaveLength(4 * 3);
      expect(noDuplicateRows(f), f).toBe(true);
    }
    expect(logs.get('w2')).toContain(`cell ${cellId} of queued (attempt`);
  }, 300_000);
});
