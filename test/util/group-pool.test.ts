import { describe, expect, it } from 'vitest';
import { mapPoolByGroup, type GroupPlacement } from '../../src/util/group-pool.js';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function play(items: string[], limit: number, ms: (item: string) => number = () => 5) {
  const log: { item: string; placement: GroupPlacement }[] = [];
  let inFlight = 0;
  let most = 0;
  const results = await mapPoolByGroup(
    items,
    limit,
    (item) => (item.includes(':') ? item.split(':')[0] : undefined),
    async (item, placement) => {
      log.push({ item, placement });
      most = Math.max(most, ++inFlight);
      await tick(ms(item));
      inFlight--;
      return item.toUpperCase();
    },
  );
  return { results, log, most };
}

describe('mapPoolByGroup', () => {
  it('keeps input order in its results and at most `limit` items in flight', async () => {
    const items = ['a:1', 'b:1', 'x', 'a:2', 'b:2', 'y', 'a:3'];
    const { results, most } = await play(items, 2);
    expect(results).toEqual(items.map((i) => i.toUpperCase()));
    expect(most).toBe(2);
  });

  it("runs a group's items on the worker that started it while the others have work of their own", async () => {
    const { log } = await play(['a:1', 'b:1', 'a:2', 'b:2', 'a:3', 'b:3'], 2);
    const workerOf = (item: string) => log.find((l) => l.item === item)!.placement.worker;
    expect(new Set(['a:1', 'a:2', 'a:3'].map(workerOf)).size).toBe(1);
    expect(new Set(['b:1', 'b:2', 'b:3'].map(workerOf)).size).toBe(1);
    expect(workerOf('a:1')).not.toBe(workerOf('b:1'));
    // Each says how many of its group are still to come.
    expect(log.filter((l) => l.item.startsWith('a:')).map((l) => l.placement.groupAhead)).toEqual([2, 1, 0]);
  });

  it('takes items in their order otherwise, and leaves no worker idle while items wait', async () => {
    // One group only: the second worker takes its items too rather than wait.
    const { log } = await play(['a:1', 'a:2', 'a:3', 'a:4'], 2, () => 20);
    expect(log.map((l) => l.item)).toEqual(['a:1', 'a:2', 'a:3', 'a:4']);
    expect(new Set(log.map((l) => l.placement.worker)).size).toBe(2);
    // Items without a group go to whichever worker is free, first come first served.
    const plain = await play(['x', 'y', 'z'], 2);
    expect(plain.log.map((l) => l.item)).toEqual(['x', 'y', 'z']);
  });

  it('passes over another worker’s group for the next item of its own or of no one’s', async () => {
    // While worker 0 runs the long a:1, worker 1 takes b:1, then x, then b:2 (at 80 ms), and leaves
    // a:2 to worker 0 (free at 100 ms).
    const { log } = await play(['a:1', 'b:1', 'a:2', 'x', 'b:2'], 2, (i) => (i === 'a:1' ? 100 : 40));
    expect(log.map((l) => `${l.item}@${l.placement.worker}`)).toEqual(['a:1@0', 'b:1@1', 'x@1', 'b:2@1', 'a:2@0']);
  });
});
