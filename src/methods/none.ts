/** No memory: every task is attempted on its own, every epoch. The floor every method is compared to. */
import type { MethodModule } from '../core/method.js';

export const none: MethodModule = {
  kind: 'method',
  name: 'none',
  displayName: 'No memory',
  description: 'no memory: each task attempted alone, every epoch',
  create: async (ctx) => (await import('./engine-method.js')).engineMethod(ctx, { engine: 'none', writes: false }),
};
