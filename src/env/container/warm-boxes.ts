/**
 * Warm single-use containers: the shared Pool with the 'single-use' policy over Boxes.
 * `size` boxes are created and started ahead of need, a task takes one, uses it
 * alone and retires it, and a replacement starts in the background. Every task gets
 * a fresh container (no state crosses tasks) while the start-up time stays off the
 * task's critical path. Warm ones that died while waiting (killed from outside) are
 * thrown away; after `size` of those in a row the pool gives up with ContainerGoneError.
 */
import { Pool } from '../../util/pool.js';
import { Box, ContainerGoneError, type BoxSpec } from './box.js';
import type { Engine } from './engine.js';

export type BoxPool = Pool<Box>;

export function warmBoxPool(engine: Engine, spec: BoxSpec, size: number): BoxPool {
  return new Pool<Box>({
    policy: 'single-use',
    size,
    create: () => Box.start(engine, spec),
    destroy: (box) => box.remove(),
    check: async (box) => {
      const state = await box.state();
      if (!state.running) throw new ContainerGoneError(box.id, state.detail);
    },
  });
}
