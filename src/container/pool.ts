/**
 * Warm single-use containers: `size` boxes are created and started ahead of need, a
 * task takes one, uses it alone and throws it away, and a replacement starts in the
 * background. Every task gets a fresh container (no state crosses tasks) while the
 * start-up time stays off the task's critical path.
 */
import { Box, ContainerGoneError, type BoxSpec } from './box.js';
import type { Engine } from './engine.js';

export class WarmPool {
  private ready: Promise<Box>[] = [];
  private readonly live = new Set<Box>();
  private closed = false;

  constructor(
    private readonly engine: Engine,
    private readonly spec: BoxSpec,
    private readonly size: number,
  ) {}

  private spawn(): Promise<Box> {
    const p = Box.start(this.engine, this.spec).then((box) => {
      this.live.add(box);
      if (this.closed) void this.retire(box);
      return box;
    });
    p.catch(() => undefined); // surfaced to whoever takes it
    return p;
  }

  /**
   * A running container for one task. The caller must `retire` it. Warm ones that died
   * while waiting (killed from outside) are thrown away; after `size` of those in a row
   * it gives up with ContainerGoneError.
   */
  async acquire(): Promise<Box> {
    for (let skipped = 0; ; skipped++) {
      const box = await this.next();
      const state = await box.state();
      if (state.running) return box;
      await this.retire(box);
      if (skipped >= this.size) throw new ContainerGoneError(box.id, state.detail);
    }
  }

  private next(): Promise<Box> {
    if (this.closed) return Promise.reject(new Error('container pool is closed'));
    while (this.ready.length < this.size) this.ready.push(this.spawn());
    const next = this.ready.shift()!;
    this.ready.push(this.spawn());
    return next;
  }

  /** Removes a used container. */
  async retire(box: Box): Promise<void> {
    this.live.delete(box);
    await box.remove();
  }

  /** Removes every container of the pool, warm or in use. */
  async close(): Promise<void> {
    this.closed = true;
    const pending = this.ready;
    this.ready = [];
    const boxes = [...this.live];
    this.live.clear();
    await Promise.all([
      ...boxes.map((b) => b.remove()),
      ...pending.map((p) => p.then((b) => b.remove(), () => undefined)),
    ]);
  }
}
