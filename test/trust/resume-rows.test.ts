/**
 * `--resume` checks the rows of every checkpointed epoch against run.json before it
 * continues: outcomes.jsonl deleted, or holding a broken line in the middle, is rebuilt
 * from outcomes.arrow when that holds the rows (the run then ends with the numbers of an
 * uninterrupted run), else refused in one line naming the file and what to do. Never a
 * "complete" run with wrong numbers; `memrl table` marks a complete run whose rows are
 * damaged. The built CLI, HLE's fixture questions, the simulator.
 */
import { appendFileSync, cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runMemrl } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const RUN = ['run', 'hle', '--num-train', '4', '--epochs', '3'];
let work: string;
let killed: string;
let full: string;

const runIn = (out: string): string => join(work, out, 'hle', readdirSync(join(work, out, 'hle'))[0]!);
const read = (dir: string, f: string): string => readFileSync(join(dir, f), 'utf8');
/** What the numbers come from: each row's cell and verdict, and the summary's headline. */
function numbers(dir: string): unknown {
  const rows = read(dir, 'outcomes.jsonl').trim().split('\n').map((l) => JSON.parse(l) as { taskId: string; epoch: number; phase: string; status: string });
  const summary = JSON.parse(read(dir, 'summary.json')) as { status: string; train: unknown; metrics: { train: { epochs: unknown[] } } };
  return { rows: rows.map((r) => `${r.phase}/${r.epoch}/${r.taskId}/${r.status}`), status: summary.status, train: summary.train, epochs: summary.metrics.train.epochs.length };
}

/** A copy of the run killed right after its second checkpoint, to damage. */
function copyOfKilled(name: string): string {
  const dir = join(work, name);
  cpSync(killed, dir, { recursive: true });
  return dir;
}

beforeAll(async () => {
  assertBuilt();
  work = tempDir('memrl-resume-rows-');
  const a = await runMemrl([...RUN, '--output-dir', 'full'], { cwd: work });
  expect(a.code, a.stderr).toBe(0);
  full = runIn('full');
  const b = await runMemrl([...RUN, '--output-dir', 'killed'], { cwd: work, env: { ...process.env, MEMRL_CRASH_AT: 'checkpoint:2' } });
  expect(b.code).toBe(null);
  killed = runIn('killed');
}, 120_000);

describe('--resume checks every checkpointed epoch has its rows: rebuilt where they really are, else refused', () => {
  it('outcomes.jsonl deleted: rebuilt from outcomes.arrow, said, and the run ends with the numbers of the uninterrupted one', async () => {
    const dir = copyOfKilled('deleted');
    rmSync(join(dir, 'outcomes.jsonl'));
    const r = await runMemrl(['run', 'hle', '--resume', dir], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`note: ${dir}/outcomes.jsonl is missing; rebuilt the rows of epochs up to 2 from outcomes.arrow`);
    expect(numbers(dir)).toEqual(numbers(full));
  }, 60_000);

  it('outcomes.jsonl and outcomes.arrow deleted: refused in one line, exit 2, nothing changed', async () => {
    const dir = copyOfKilled('both');
    rmSync(join(dir, 'outcomes.jsonl'));
    rmSync(join(dir, 'outcomes.arrow'));
    const before = read(dir, 'run.json');
    const r = await runMemrl(['run', 'hle', '--resume', dir], { cwd: work });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `memrl: --resume ${dir}: ${dir}/outcomes.jsonl is missing, and outcomes.arrow cannot rebuild them; the epochs after the checkpoint would be measured on wrong rows: restore outcomes.jsonl from a backup, or start the run again in a new folder`,
    ]);
    expect(read(dir, 'run.json')).toBe(before);
  }, 60_000);

  it('a broken line in the middle: rebuilt from outcomes.arrow when it holds the rows, else one line naming the file and line', async () => {
    const lines = read(killed, 'outcomes.jsonl').split('\n');
    const broken = [...lines.slice(0, 2), '{"taskId": "garbage', ...lines.slice(2)].join('\n');

    const rebuilt = copyOfKilled('garbage-arrow');
    writeFileSync(join(rebuilt, 'outcomes.jsonl'), broken);
    const r = await runMemrl(['run', 'hle', '--resume', rebuilt], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`note: ${rebuilt}/outcomes\\.jsonl:3: not JSON \\(.*\\) \\(a broken line in the middle\\); rebuilt the rows of epochs up to 2 from outcomes\\.arrow`));
    expect(numbers(rebuilt)).toEqual(numbers(full));

    const refused = copyOfKilled('garbage');
    writeFileSync(join(refused, 'outcomes.jsonl'), broken);
    rmSync(join(refused, 'outcomes.arrow'));
    const s = await runMemrl(['run', 'hle', '--resume', refused], { cwd: work });
    expect(s.code).toBe(2);
    const out = s.stderr.trim().split('\n');
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(new RegExp(`^memrl: --resume ${refused}: ${refused}/outcomes\\.jsonl:3: not JSON .*, and outcomes\\.arrow cannot rebuild them; .*restore outcomes\\.jsonl from a backup`));
  }, 60_000);

  it('a complete run whose outcomes.jsonl lost an epoch is failed in the table, not averaged unmarked', async () => {
    const dir = join(work, 'tables', 'hle', 'lost');
    cpSync(full, dir, { recursive: true });
    cpSync(full, join(work, 'tables', 'hle', 'intact'), { recursive: true });
    const rows = read(dir, 'outcomes.jsonl').trim().split('\n').filter((l) => (JSON.parse(l) as { epoch: number }).epoch !== 1);
    writeFileSync(join(dir, 'outcomes.jsonl'), '');
    for (const l of rows) appendFileSync(join(dir, 'outcomes.jsonl'), `${l}\n`);
    const t = await runMemrl(['table', join(work, 'tables')], { cwd: work });
    expect(t.code, t.stderr).toBe(0);
    // Two rows: the intact run alone, the damaged one apart and marked failed.
    expect(t.stdout).toMatch(/^\| MemRL \| \**0\.750\**† \|/m);
    expect(t.stdout).toMatch(/^\| MemRL \[failed\] \| \**[\d.]+\**†¶ \|/m);
    const c = await runMemrl(['compare', full, dir], { cwd: work });
    expect(c.code).toBe(2);
    expect(c.stderr).toContain('outcomes.jsonl lacks rows of epoch 1 (4 tasks): its numbers would be wrong');
  }, 60_000);
});
