/** Slowest first: the order of a gold check from the durations of earlier ones (bench/bcb/gold-durations.ts). */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareTaskIds, readBcbTasks } from '../../src/bench/bcb/dataset.js';
import { readGoldDurations, readShippedGoldDurations, recordGoldDurations, slowestFirst, taskSha, type GoldDurations } from '../../src/bench/bcb/gold-durations.js';

const scratch = mkdtempSync(join(tmpdir(), 'memrl-durations-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const task = (n: number, test = `test ${n}`) => ({ id: `BigCodeBench/${n}`, canonical_solution: `return ${n}`, test });
const ids = (tasks: { id: string }[]): string[] => tasks.map((t) => t.id.split('/')[1] as string);

describe('slowest first', () => {
  const tasks = [1, 2, 3, 4, 5].map((n) => task(n));

  it('keeps id order when nothing was timed', () => {
    expect(ids(slowestFirst(tasks, {}))).toEqual(['1', '2', '3', '4', '5']);
  });

  it('starts the slowest first; an untimed task counts as the median of the timed ones', () => {
    const path = join(scratch, 'order.json');
    recordGoldDurations(path, tasks.slice(0, 4), new Map([['BigCodeBench/1', 100], ['BigCodeBench/2', 9000], ['BigCodeBench/3', 300], ['BigCodeBench/4', 2000]]));
    // Median of 100, 300, 2000, 9000 (the upper middle): 2000, the same as task 4, which keeps its place before 5.
    expect(ids(slowestFirst(tasks, readGoldDurations(path)))).toEqual(['2', '4', '5', '3', '1']);
  });

  it('times a task anew once its solution or tests changed', () => {
    const path = join(scratch, 'changed.json');
    recordGoldDurations(path, [task(1), task(2), task(3)], new Map([['BigCodeBench/1', 50], ['BigCodeBench/2', 20], ['BigCodeBench/3', 9000]]));
    const changed = [task(1), task(2), task(3, 'a new test')];
    // 3's kept time is for its old tests: it counts as the median of 1 and 2 (50).
    expect(ids(slowestFirst(changed, readGoldDurations(path)))).toEqual(['1', '3', '2']);
  });

  it("adds a check's durations to the kept ones and reads a broken file as none", () => {
    const path = join(scratch, 'merge.json');
    recordGoldDurations(path, [task(1), task(2)], new Map([['BigCodeBench/1', 10], ['BigCodeBench/2', 20]]));
    recordGoldDurations(path, [task(2), task(3)], new Map([['BigCodeBench/2', 25], ['BigCodeBench/3', 30]]));
    const kept = readGoldDurations(path);
    expect(Object.fromEntries(Object.entries(kept).map(([id, e]) => [id, e.ms]))).toEqual({ 'BigCodeBench/1': 10, 'BigCodeBench/2': 25, 'BigCodeBench/3': 30 });
    writeFileSync(path, '{not json');
    expect(readGoldDurations(path)).toEqual({});
    expect(readGoldDurations(join(scratch, 'missing.json'))).toEqual({});
    // A place that cannot be written: the check goes on without it.
    expect(recordGoldDurations(join(path, 'under-a-file.json'), [task(1)], new Map([['BigCodeBench/1', 1]]))).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe('{not json');
  });
});

describe('durations shipped with memrl', () => {
  const tasks = [1, 2, 3, 4, 5].map((n) => task(n));
  // Durations filed as a full check would file them: task number -> ms.
  const entries = (ms: Record<string, number>, of = tasks): GoldDurations =>
    Object.fromEntries(
      of.flatMap((t) => {
        const d = ms[ids([t])[0]!];
        return d === undefined ? [] : [[t.id, { sha: taskSha(t), ms: d }]];
      }),
    );

  it('order the tasks this machine has not timed', () => {
    expect(ids(slowestFirst(tasks, {}, entries({ 1: 10, 2: 50, 3: 30, 4: 40, 5: 20 })))).toEqual(['2', '4', '3', '5', '1']);
  });

  it("are scaled to this machine's speed before they meet its own times", () => {
    // This machine took twice the shipped time on 1 and 2; shipped 4 (40 ms) counts as 80 here, above this machine's 60 for 3.
    const kept = entries({ 1: 20, 2: 100, 3: 60 });
    expect(ids(slowestFirst(tasks, kept, entries({ 1: 10, 2: 50, 3: 100, 4: 40, 5: 20 })))).toEqual(['2', '4', '3', '5', '1']);
    // Unscaled, 4 (40) would have come after 3 (60).
    expect(ids(slowestFirst(tasks, { ...kept, ...entries({ 4: 40, 5: 20 }) }))).toEqual(['2', '3', '4', '1', '5']);
  });

  it("give way to this machine's times, but not to a time kept for a task's older tests", () => {
    const changed = [task(1), task(2), task(3, 'a new test')];
    const kept = entries({ 1: 10, 2: 20, 3: 9000 }, [task(1), task(2), task(3)]);
    // 3's kept 9000 ms was for its old tests; the shipped 15 ms is for the current ones.
    expect(ids(slowestFirst(changed, kept, entries({ 1: 10, 2: 20, 3: 15 }, changed)))).toEqual(['2', '3', '1']);
  });

  it("hold a time for every task of the dataset as it is now (else: node dist/scripts/ship-gold-durations.js)", () => {
    const shipped = readShippedGoldDurations();
    const all = readBcbTasks().tasks.sort((a, b) => compareTaskIds(a.id, b.id));
    const stale = all.filter((t) => shipped[t.id]?.sha !== taskSha(t)).map((t) => t.id);
    expect(stale).toEqual([]);
    expect(Object.keys(shipped).length).toBe(all.length);
  });
});
