/**
 * A batch's retrievals, as many tasks at a time as play at once: the first slice before
 * the episodes start, each later one after the one before, once the first calls are
 * out. At 32, retrieving 128 tasks at once held every slot 4-14 ms at each barrier
 * (bench:throughput); Self-RAG's decision calls, 4 at a time, held them for the whole
 * batch's decisions. One RNG stream in task order, as one call would draw it (the
 * method contract), so the retrievals are the same as one call's.
 */
import type { TaskBase } from '../core/benchmark.js';
import type { MethodInstance, Retrieval, RetrievalQuery } from '../core/method.js';
import { chunk } from '../util/pool.js';

/** The i-th task's retrieval, once its slice is in. */
export type RetrievalOf = (i: number) => Promise<Retrieval>;

/** What an episode gets whose retrieval was cut short by Ctrl-C: it starts cancelled, and is neither journaled nor committed. */
const cancelled = (): Retrieval => ({ memories: [], fields: { retrievedIds: [] } });

/**
 * Retrieves the first `size` tasks now (resolves once they are in) and the rest in
 * slices of `size`, each started on a later turn of the event loop than the one before.
 * A failed slice rejects the retrievals of its tasks, except once `aborted()`.
 */
export async function retrieveAhead(
  method: Pick<MethodInstance, 'retrieve'>,
  tasks: readonly TaskBase[],
  query: RetrievalQuery,
  size: number,
  aborted: () => boolean,
): Promise<RetrievalOf> {
  const retrieve = (slice: readonly TaskBase[]): Promise<Retrieval[]> => method.retrieve(slice, { ...query });
  const [first = [], ...later] = chunk(tasks, size);
  const head = await retrieve(first);
  if (later.length === 0) return async (i) => head[i] as Retrieval;
  let previous: Promise<unknown> = new Promise<void>((resolve) => setImmediate(resolve));
  const slices = later.map((slice) => {
    const retrieved = previous.then(() => retrieve(slice));
    retrieved.catch(() => undefined); // thrown to the episodes that wait for it
    previous = retrieved;
    return retrieved;
  });
  return async (i) => {
    if (i < size) return head[i] as Retrieval;
    try {
      return (await (slices[Math.floor(i / size) - 1] as Promise<Retrieval[]>))[i % size] as Retrieval;
    } catch (err) {
      if (aborted()) return cancelled();
      throw err;
    }
  };
}
