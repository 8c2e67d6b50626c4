/** The instance behind none, rag, memp, memrl and passk: the shared engine memory, configured. */
import type { TaskBase } from '../core/benchmark.js';
import type { Experience, FinishedEpisode, MethodContext, MethodInstance, Retrieval, RetrievalQuery } from '../core/method.js';
import type { BuildStrategy, MemoryMethod } from '../memory/types.js';
import { EngineMemory, type EngineState } from './engine-memory.js';

export interface EngineMethodOptions {
  engine: MemoryMethod;
  /** Each finished training episode writes a memory. */
  writes: boolean;
  /** Train only the tasks not solved in an earlier epoch (passk). */
  retryUnsolved?: boolean;
  buildStrategy?: BuildStrategy;
}

export function engineMethod(ctx: MethodContext, opts: EngineMethodOptions): MethodInstance {
  const memory = new EngineMemory(ctx, opts);
  const instance: MethodInstance = {
    prepare: (tasks, signal) => memory.prepare(tasks, signal),
    retrieve: async (tasks: readonly TaskBase[], query: RetrievalQuery): Promise<Retrieval[]> => memory.select(tasks, query).map((sel) => memory.retrieval(sel)),
    commit: (experiences: readonly Experience[], at: number) => memory.commit(experiences, at) ?? undefined,
    snapshot: (): EngineState => memory.snapshot(),
    records: () => memory.engine.records(),
    stats: () => ({ ...memory.engine.stats() }),
    get size() {
      return memory.engine.size;
    },
  };
  if (opts.writes) instance.learn = (ep: FinishedEpisode) => memory.write(ep);
  if (opts.retryUnsolved) instance.trainTasks = (tasks, { solved }) => tasks.filter((t) => !solved.has(t.id));
  return instance;
}
