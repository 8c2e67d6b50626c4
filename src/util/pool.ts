/**
 * Run `fn` over `items` with at most `limit` in flight; results keep input order,
 * so everything downstream is independent of completion order.
 */
export async function mapPool<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T, i);
    }
  };
  const n = Math.max(1, Math.min(limit, items.length));
  await Promise.all(Array.from({ length: n }, worker));
  return results;
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  const step = Math.max(1, size);
  for (let i = 0; i < items.length; i += step) out.push(items.slice(i, i + step));
  return out;
}

/**
 * How a Pool hands items out:
 * - 'reuse': at most `size` items exist, made when needed; a released item serves the
 *   next taker, and takers wait while all are busy (bridges, client sessions).
 * - 'single-use': `size` items are kept started ahead of need; every taker gets a fresh
 *   one and a released item is destroyed, so no state crosses takers while the start-up
 *   time stays off their critical path (task containers).
 */
export type PoolPolicy = 'reuse' | 'single-use';

export interface PoolOptions<T> {
  policy: PoolPolicy;
  size: number;
  create(): Promise<T>;
  /** Releases what an item holds. Should not throw. */
  destroy(item: T): Promise<void>;
  /**
   * Throws when an item about to be handed out can no longer be used (a container
   * that died while it waited, a session that ended): it is destroyed and another
   * taken. 'single-use' gives up after `size` bad ones in a row, with the last error.
   */
  check?(item: T): void | Promise<void>;
}

/** The one pool of things that are expensive to make: see PoolPolicy. */
export class Pool<T> {
  /** Released items waiting for the next taker ('reuse'). */
  private idle: T[] = [];
  /** Items being started ahead of need ('single-use'). */
  private ahead: Promise<T>[] = [];
  /** Every item made and not destroyed yet, idle or in use, in order of creation. */
  private readonly live = new Set<T>();
  private creating = 0;
  private waiters: (() => void)[] = [];
  private closed = false;

  constructor(private readonly opts: PoolOptions<T>) {}

  /** Items made and not destroyed yet, in order of creation. */
  get items(): readonly T[] {
    return [...this.live];
  }

  /** An item for the caller alone, until it gives it back with `release` (or `retire`). */
  acquire(): Promise<T> {
    return this.opts.policy === 'reuse' ? this.takeReused() : this.takeFresh();
  }

  /** Gives an item back: the next taker gets it ('reuse'), or it is destroyed ('single-use'). */
  async release(item: T): Promise<void> {
    if (this.opts.policy === 'single-use' || this.closed) return this.retire(item);
    this.idle.push(item);
    this.waiters.shift()?.();
  }

  /** Destroys an item now (single-use items after their use, or a broken one). */
  async retire(item: T): Promise<void> {
    if (!this.live.delete(item)) return;
    this.idle = this.idle.filter((i) => i !== item);
    try {
      await this.opts.destroy(item);
    } finally {
      this.waiters.shift()?.();
    }
  }

  async use<R>(fn: (item: T) => Promise<R>): Promise<R> {
    const item = await this.acquire();
    try {
      return await fn(item);
    } finally {
      await this.release(item);
    }
  }

  /** Destroys the idle items (others are destroyed when they come back broken or at close). */
  async retireIdle(): Promise<void> {
    const idle = this.idle;
    this.idle = [];
    await Promise.all(idle.map((i) => this.retire(i)));
  }

  /** Destroys every item, idle, in use or still starting; the pool hands out nothing more. */
  async close(): Promise<void> {
    this.closed = true;
    for (const wake of this.waiters.splice(0)) wake();
    const ahead = this.ahead;
    this.ahead = [];
    await Promise.all([...[...this.live].map((i) => this.retire(i)), ...ahead.map((p) => p.then((i) => this.retire(i), () => undefined))]);
  }

  private closedError(): Error {
    return new Error('the pool is closed');
  }

  private async takeReused(): Promise<T> {
    for (;;) {
      if (this.closed) throw this.closedError();
      const item = this.idle.pop();
      if (item !== undefined) {
        try {
          await this.opts.check?.(item);
          return item;
        } catch {
          await this.retire(item);
          continue;
        }
      }
      if (this.live.size + this.creating < this.opts.size) {
        this.creating++;
        try {
          const made = await this.opts.create();
          this.live.add(made);
          return made;
        } catch (err) {
          this.waiters.shift()?.();
          throw err;
        } finally {
          this.creating--;
        }
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  private async takeFresh(): Promise<T> {
    for (let skipped = 0; ; skipped++) {
      const item = await this.nextAhead();
      try {
        await this.opts.check?.(item);
        return item;
      } catch (err) {
        await this.retire(item);
        if (skipped >= this.opts.size) throw err;
      }
    }
  }

  private nextAhead(): Promise<T> {
    if (this.closed) return Promise.reject(this.closedError());
    while (this.ahead.length < this.opts.size) this.ahead.push(this.startOne());
    const next = this.ahead.shift()!;
    this.ahead.push(this.startOne());
    return next;
  }

  private startOne(): Promise<T> {
    const p = this.opts.create().then((item) => {
      this.live.add(item);
      if (this.closed) void this.retire(item);
      return item;
    });
    p.catch(() => undefined); // surfaced to whoever takes it
    return p;
  }
}
