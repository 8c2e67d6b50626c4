/** RAG: store each raw trajectory, retrieve the most similar ones; no distillation, no Q. */
import type { MethodModule } from '../core/method.js';

export const rag: MethodModule = {
  kind: 'method',
  name: 'rag',
  displayName: 'RAG',
  description: 'raw trajectories retrieved by similarity',
  engine: 'rag',
  // RAG is defined as "store the raw trajectory, retrieve by similarity".
  buildStrategy: 'trajectory',
  create: async (ctx) => (await import('./engine-method.js')).engineMethod(ctx, { engine: 'rag', writes: true, buildStrategy: 'trajectory' }),
};
