/**
 * MemRL (the paper's method): two-phase retrieval (cosine recall, then z-scored
 * similarity + learned utility Q, with epsilon exploration), Q updated from each
 * episode's reward at the batch barrier, and every experience written back as a
 * memory (a script on success, a reflection on failure).
 */
import type { MethodModule } from '../core/method.js';

export const memrl: MethodModule = {
  kind: 'method',
  name: 'memrl',
  displayName: 'MemRL',
  description: 'two-phase retrieval with a learned utility Q, updated from rewards; every episode written back as a memory',
  engine: 'memrl',
  create: async (ctx) => (await import('./engine-method.js')).engineMethod(ctx, { engine: 'memrl', writes: true }),
};
