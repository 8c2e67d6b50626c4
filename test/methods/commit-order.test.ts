/**
 * The batch barrier as the reference runs it (switches engine.commit-order and
 * engine.bucket-overwrite), through the memrl method: a memory injected into a whole
 * batch ends at the Q the reference's order gives, and identical new task texts keep
 * only the last memory.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { TaskBase } from '../../src/core/benchmark.js';
import type { CommitEffects, Experience, MethodContext, MethodInstance } from '../../src/core/method.js';
import type { Outcome } from '../../src/core/outcome.js';
import { LocalNgramEmbedder } from '../../src/embed/local.js';
import type { ChatModel } from '../../src/llm/types.js';
import { MemoryEngine } from '../../src/memory/engine.js';
import { BUCKET_OVERWRITE, COMMIT_ORDER, MEMORY_SWITCHES } from '../../src/memory/fidelity-switches.js';
import { defaultMemoryParams } from '../../src/memory/params.js';
import type { MemoryParams } from '../../src/memory/types.js';
import { memrl } from '../../src/methods/memrl.js';
import { makeFidelity, type SwitchSetting } from '../../src/util/fidelity.js';
import { Rng } from '../../src/util/rng.js';

const embedder = new LocalNgramEmbedder();
const PARAMS: MemoryParams = defaultMemoryParams({ alpha: 0.3, qInitPos: 0, qInitNeg: 0, epsilon: 0, simThreshold: -1, qMinThreshold: -10, k1: 5, k2: 3 });

const scriptModel: ChatModel = {
  label: 'script',
  simulated: true,
  async chat() {
    return { text: '1. look around 2. act', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 }, model: 'script', latencyMs: 0 };
  },
};

async function method(overrides: Record<string, SwitchSetting>, seeded?: { id: string; key: string }): Promise<MethodInstance> {
  let restored: unknown;
  if (seeded) {
    const engine = new MemoryEngine({ ...PARAMS, method: 'memrl' });
    const [embedding] = await embedder.embed([seeded.key]);
    engine.insertDirect({ id: seeded.id, key: seeded.key, embedding: embedding as Float32Array, q: 0, meta: { taskId: 'seed' } });
    restored = engine.snapshot();
  }
  const ctx: MethodContext = {
    benchmark: 'toy',
    settings: undefined,
    params: PARAMS,
    buildStrategy: 'proceduralization',
    model: scriptModel,
    embedder,
    fidelity: makeFidelity('reference', MEMORY_SWITCHES, overrides),
    log: pino({ level: 'silent' }),
    ...(restored ? { restored } : {}),
  };
  return memrl.create(ctx);
}

function outcome(success: boolean, finishRank: number): Outcome {
  return { status: success ? 'pass' : 'fail', success, steps: Math.min(finishRank, 30), finishRank, trajectory: `played ${finishRank} steps`, usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } };
}

/** One training batch: retrieve for every task, learn every episode, commit (experiences round-tripped through JSON like the journal). */
async function batch(m: MethodInstance, tasks: TaskBase[], outcomes: Outcome[]): Promise<{ effects: CommitEffects; injected: string[][] }> {
  await m.prepare!(tasks);
  const retrievals = await m.retrieve(tasks, { phase: 'train', epoch: 1, rng: new Rng(7) });
  const experiences: Experience[] = [];
  for (const [index, task] of tasks.entries()) {
    const exp = await m.learn!({ task, index, epoch: 1, retrieval: retrievals[index]!, outcome: outcomes[index]! });
    experiences.push(JSON.parse(JSON.stringify(exp)) as Experience);
  }
  const effects = ((await m.commit(experiences, 1000)) ?? {}) as CommitEffects;
  return { effects, injected: retrievals.map((r) => r.fields.retrievedIds) };
}

/** Q ← Q + α(r − Q) from 0 over rewards in the given order. */
function runningQ(successes: boolean[]): number {
  return successes.reduce((q, s) => q + PARAMS.alpha * ((s ? PARAMS.successReward : PARAMS.failureReward) - q), 0);
}

describe('engine.commit-order: a memory injected into 8 ALFWorld games, half of them won', () => {
  const tasks: TaskBase[] = Array.from({ length: 8 }, (_, i) => ({ id: `game-${i}`, key: `put a clean mug ${i} in the coffee machine` }));
  // Task order: lost, won, lost, won, ... The won games ended at steps 12, 9, 15, 7; the lost ones ran out of 30 steps.
  const won = [false, true, false, true, false, true, false, true];
  const ended = [31, 12, 31, 9, 31, 15, 31, 7];
  const outcomes = won.map((w, i) => outcome(w, ended[i]!));

  it('reference: updated in the order the games ended (wins first, then those that ran out): Q ends negative', async () => {
    const m = await method({}, { id: 'seed-mem', key: 'put a clean mug in the coffee machine' });
    const { effects, injected } = await batch(m, tasks, outcomes);
    expect(injected.every((ids) => ids.includes('seed-mem'))).toBe(true);
    const order = [7, 3, 1, 5, 0, 2, 4, 6];
    expect(effects.qUpdates!.filter((u) => u.memoryId === 'seed-mem').map((u) => u.experience)).toEqual(order);
    const q = m.records().find((r) => r.id === 'seed-mem')!.q;
    expect(q).toBeCloseTo(runningQ(order.map((i) => won[i]!)), 12);
    expect(q).toBeCloseTo(-0.57745, 5);
  });

  it('memrl (task order): the same batch ends near zero on the other side', async () => {
    const m = await method({ [COMMIT_ORDER]: 'memrl' }, { id: 'seed-mem', key: 'put a clean mug in the coffee machine' });
    const { effects } = await batch(m, tasks, outcomes);
    expect(effects.qUpdates!.filter((u) => u.memoryId === 'seed-mem').map((u) => u.experience)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const q = m.records().find((r) => r.id === 'seed-mem')!.q;
    expect(q).toBeCloseTo(runningQ(won), 12);
    expect(q).toBeCloseTo(0.16630, 4);
  });

  it('new memories are filed in the same order as the Q updates', async () => {
    const m = await method({});
    await batch(m, tasks, outcomes);
    expect(m.records().map((r) => r.meta.taskId)).toEqual(['game-7', 'game-3', 'game-1', 'game-5', 'game-0', 'game-2', 'game-4', 'game-6']);
  });

  it('episodes without a finish rank (BCB, HLE) keep task order', async () => {
    const m = await method({}, { id: 'seed-mem', key: 'put a clean mug in the coffee machine' });
    const plain = outcomes.map(({ finishRank: _, ...o }) => o);
    const { effects } = await batch(m, tasks, plain);
    expect(effects.qUpdates!.map((u) => u.experience)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});

describe('engine.bucket-overwrite: one new task text twice in a batch', () => {
  const tasks: TaskBase[] = [
    { id: 'a', key: 'count the rows of table t' },
    { id: 'b', key: 'count the rows of table t' },
  ];
  const outcomes = [outcome(true, 3), outcome(false, 5)];

  it('reference: only the last memory stays in the bucket; the first is stored but detached', async () => {
    const m = await method({});
    await batch(m, tasks, outcomes);
    const recs = m.records();
    expect(recs.map((r) => [r.meta.taskId, r.detached === true])).toEqual([
      ['a', true],
      ['b', false],
    ]);
    // The next retrieval for that text sees the last one only.
    const c = { id: 'c', key: 'count the rows of table t' };
    await m.prepare!([c]);
    const [r] = await m.retrieve([c], { phase: 'train', epoch: 2, rng: new Rng(1) });
    expect(r!.fields.retrievedIds).toEqual([recs[1]!.id]);
    // A checkpoint keeps the detached memory out of every bucket.
    const restored = MemoryEngine.restore(m.snapshot() as ReturnType<MemoryEngine['snapshot']>, { bucketOverwrite: true });
    expect(restored.keys()).toEqual([{ key: 'count the rows of table t', ids: [recs[1]!.id] }]);
    expect(restored.get(recs[0]!.id)!.detached).toBe(true);
  });

  it('memrl (fixed): both memories stay in the bucket', async () => {
    const m = await method({ [BUCKET_OVERWRITE]: 'memrl' });
    await batch(m, tasks, outcomes);
    expect(m.records().every((r) => r.detached !== true)).toBe(true);
    const c = { id: 'c', key: 'count the rows of table t' };
    await m.prepare!([c]);
    const [r] = await m.retrieve([c], { phase: 'train', epoch: 2, rng: new Rng(1) });
    expect(r!.fields.retrievedIds).toHaveLength(2);
  });
});
