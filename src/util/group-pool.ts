/**
 * mapPool for work whose items come in groups that a worker does faster once it has
 * done one of them (a fork server that keeps a group's imports in a template): each
 * of `limit` workers claims the groups it starts, and takes the next item of its own
 * groups or of an unclaimed one, in the items' order; only when none is left does it
 * take the next item of another worker's group. The items' order still decides what
 * starts first (a caller that sorts the slowest first keeps most of that).
 */
export interface GroupPlacement {
  /** Which worker runs the item (0 … limit-1): the same worker for a group's items, as far as it goes. */
  worker: number;
  /** Items of the same group still waiting after this one: this worker has claimed them, so they come to it unless another runs out of work first. */
  groupAhead: number;
}

/**
 * Run `fn` over `items` with at most `limit` in flight, as above; results keep input
 * order. `groupOf` returns undefined for an item that belongs to no group (any worker
 * takes it in turn).
 */
export async function mapPoolByGroup<T, R>(
  items: readonly T[],
  limit: number,
  groupOf: (item: T) => string | undefined,
  fn: (item: T, placement: GroupPlacement, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  const groups = items.map(groupOf);
  const pending: number[] = items.map((_, i) => i);
  const waiting = new Map<string, number>();
  for (const g of groups) if (g !== undefined) waiting.set(g, (waiting.get(g) ?? 0) + 1);
  const owner = new Map<string, number>();

  const next = (worker: number): number | undefined => {
    let at = pending.findIndex((i) => {
      const g = groups[i];
      const o = g === undefined ? undefined : owner.get(g);
      return o === undefined || o === worker;
    });
    if (at < 0 && pending.length > 0) at = 0;
    if (at < 0) return undefined;
    const [i] = pending.splice(at, 1) as [number];
    const g = groups[i];
    if (g !== undefined) {
      owner.set(g, worker);
      waiting.set(g, (waiting.get(g) as number) - 1);
    }
    return i;
  };

  const work = async (worker: number): Promise<void> => {
    for (let i = next(worker); i !== undefined; i = next(worker)) {
      const g = groups[i];
      results[i] = await fn(items[i] as T, { worker, groupAhead: g === undefined ? 0 : (waiting.get(g) as number) }, i);
    }
  };
  const n = Math.max(1, Math.min(limit, items.length));
  await Promise.all(Array.from({ length: n }, (_, w) => work(w)));
  return results;
}
