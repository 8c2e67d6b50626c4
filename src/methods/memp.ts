/** MemP: the same memories as MemRL (scripts and reflections), retrieved by similarity alone; Q plays no part. */
import type { MethodModule } from '../core/method.js';

export const memp: MethodModule = {
  kind: 'method',
  name: 'memp',
  displayName: 'MemP',
  description: 'procedural memories (scripts, reflections) retrieved by similarity only, no Q learning',
  engine: 'memp',
  create: async (ctx) => (await import('./engine-method.js')).engineMethod(ctx, { engine: 'memp', writes: true }),
};
