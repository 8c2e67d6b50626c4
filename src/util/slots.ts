/**
 * A counting semaphore: at most `size` callers inside `run` at once, served in arrival
 * order. A sweep hands one to all its runs so they share one episode budget.
 */
export class Slots {
  private busy = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`Slots: size must be a positive integer, got ${size}`);
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.busy >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.busy++;
    try {
      return await fn();
    } finally {
      // Hand the slot straight to the next waiter (busy stays the same), else free it.
      const next = this.waiting.shift();
      if (next) next();
      else this.busy--;
    }
  }

  get inUse(): number {
    return this.busy;
  }
}
