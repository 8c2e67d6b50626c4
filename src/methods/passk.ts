/**
 * Pass@k: no memory; each epoch retries only the tasks not solved in an earlier
 * epoch, so the CSR after k epochs is pass@k.
 */
import type { MethodModule } from '../core/method.js';

export const passk: MethodModule = {
  kind: 'method',
  name: 'passk',
  displayName: 'Pass@k',
  description: 'no memory; each epoch retries only the tasks not solved yet',
  create: async (ctx) => (await import('./engine-method.js')).engineMethod(ctx, { engine: 'none', writes: false, retryUnsolved: true }),
};
