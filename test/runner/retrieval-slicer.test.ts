/**
 * The retrieval slicer with the real MemRL method over a memory that holds something:
 * a batch retrieved in slices draws the same retrievals as one call (one RNG stream in
 * task order); the first slice is in before it returns, each later one starts only after
 * the one before and a turn of the event loop; a failed slice fails its tasks and the
 * later ones', and after Ctrl-C they start cancelled.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { TaskBase } from '../../src/core/benchmark.js';
import type { MethodInstance, Retrieval, RetrievalQuery } from '../../src/core/method.js';
import { LocalNgramEmbedder } from '../../src/embed/local.js';
import { SimChatModel } from '../../src/llm/sim/model.js';
import { defaultMemoryParams } from '../../src/memory/params.js';
import { BUILTIN_METHODS } from '../../src/methods/registry.js';
import { retrieveAhead } from '../../src/runner/retrieval-slicer.js';
import { REFERENCE_FIDELITY } from '../../src/util/fidelity.js';
import { Rng } from '../../src/util/rng.js';
import { toyBenchmark, toyTasks } from '../helpers/toy-benchmark.js';

const tasks = toyTasks(10);

/** The MemRL method after one committed batch of every task (so retrievals have something to pick, and explore). */
async function memrlWithMemory(): Promise<MethodInstance> {
  const module = BUILTIN_METHODS.find((m) => m.name === 'memrl')!;
  const player = toyBenchmark({ train: 10 }).simPlayer(tasks);
  const method = await module.create({
    benchmark: 'toy',
    settings: undefined,
    params: defaultMemoryParams({ simNormMean: 0.6, simNormStd: 0.15, epsilon: 0.3, simThreshold: 0.1 }),
    buildStrategy: 'proceduralization',
    model: new SimChatModel({ seed: 3, players: { toy: player } }),
    embedder: new LocalNgramEmbedder(),
    fidelity: REFERENCE_FIDELITY,
    log: pino({ level: 'silent' }),
  });
  await method.prepare?.(tasks);
  const query = (): RetrievalQuery => ({ phase: 'train', epoch: 1, rng: new Rng(1) });
  const first = await method.retrieve(tasks, query());
  const experiences = [];
  for (const [i, task] of tasks.entries()) {
    const outcome = { status: i % 3 ? 'pass' : 'fail', success: i % 3 !== 0, steps: 1, trajectory: 'did it', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } } as const;
    const e = await method.learn!({ task, index: i, epoch: 1, retrieval: first[i]!, outcome });
    if (e) experiences.push(e);
  }
  await method.commit(experiences, 1_000);
  return method;
}

const all = async (of: (i: number) => Promise<Retrieval>, n: number): Promise<Retrieval[]> => Promise.all(Array.from({ length: n }, (_, i) => of(i)));
const never = (): boolean => false;

describe('retrieveAhead', () => {
  it('draws the same retrievals in slices as in one call, for every slice size', async () => {
    const method = await memrlWithMemory();
    const whole = await method.retrieve(tasks, { phase: 'train', epoch: 2, rng: Rng.derive(7, 'retrieve', 'train', 2) });
    expect(whole.some((r) => r.fields.retrievedIds.length > 0)).toBe(true);
    expect(whole.some((r) => r.fields.explored)).toBe(true);
    for (const size of [1, 3, 4, 10, 16]) {
      const of = await retrieveAhead(method, tasks, { phase: 'train', epoch: 2, rng: Rng.derive(7, 'retrieve', 'train', 2) }, size, never);
      expect(await all(of, tasks.length), `slices of ${size}`).toEqual(whole);
    }
  });

  it('has the first slice in when it returns, and starts each later slice after the one before, on a later turn of the event loop', async () => {
    const log: string[] = [];
    const method: Pick<MethodInstance, 'retrieve'> = {
      async retrieve(slice: readonly TaskBase[]) {
        log.push(`start ${slice.map((t) => t.id).join(',')}`);
        await new Promise((r) => setTimeout(r, 5));
        log.push(`end ${slice.map((t) => t.id).join(',')}`);
        return slice.map((t) => ({ memories: [], fields: { retrievedIds: [t.id] } }));
      },
    };
    const of = await retrieveAhead(method, tasks.slice(0, 7), { phase: 'train', epoch: 1, rng: new Rng(1) }, 3, never);
    expect(log).toEqual(['start toy/0,toy/1,toy/2', 'end toy/0,toy/1,toy/2']);
    // Work started now (an episode's first call) runs before the next slice starts.
    log.push('episode toy/0');
    expect((await of(6)).fields.retrievedIds).toEqual(['toy/6']);
    expect(log).toEqual([
      'start toy/0,toy/1,toy/2', 'end toy/0,toy/1,toy/2', 'episode toy/0',
      'start toy/3,toy/4,toy/5', 'end toy/3,toy/4,toy/5', 'start toy/6', 'end toy/6',
    ]);
  });

  it('fails the tasks of a slice that failed and of every later one, and gives them a cancelled retrieval once the run is stopping', async () => {
    const failing: Pick<MethodInstance, 'retrieve'> = {
      async retrieve(slice: readonly TaskBase[]) {
        if (slice.some((t) => t.id === 'toy/4')) throw new Error('retrieval failed');
        return slice.map((t) => ({ memories: [], fields: { retrievedIds: [t.id] } }));
      },
    };
    const query = { phase: 'train' as const, epoch: 1, rng: new Rng(1) };
    const of = await retrieveAhead(failing, tasks.slice(0, 8), query, 3, never);
    expect((await of(2)).fields.retrievedIds).toEqual(['toy/2']);
    await expect(of(3)).rejects.toThrow('retrieval failed');
    // The stream cannot go on past a slice that did not draw: later slices fail too.
    await expect(of(7)).rejects.toThrow('retrieval failed');
    const stopped = await retrieveAhead(failing, tasks.slice(0, 8), query, 3, () => true);
    expect(await stopped(4)).toEqual({ memories: [], fields: { retrievedIds: [] } });
  });
});
