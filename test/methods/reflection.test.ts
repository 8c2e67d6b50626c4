/**
 * The reflection baseline: under the reference a retried task sees a note on its own
 * previous attempt, made without any model call; with reflection.llm-reflection=memrl
 * it sees the writer's LLM reflection instead.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { TaskBase } from '../../src/core/benchmark.js';
import type { Experience, FinishedEpisode, MethodContext, MethodInstance } from '../../src/core/method.js';
import { LocalNgramEmbedder } from '../../src/embed/local.js';
import type { ChatModel, ChatRequest } from '../../src/llm/types.js';
import { defaultMemoryParams } from '../../src/memory/params.js';
import { LLM_REFLECTION, REFLECTION_SWITCHES, reflection } from '../../src/methods/reflection.js';
import { makeFidelity } from '../../src/util/fidelity.js';
import { MEMORY_SWITCHES } from '../../src/memory/fidelity-switches.js';
import { Rng } from '../../src/util/rng.js';

function recordingModel(): ChatModel & { calls: ChatRequest[] } {
  const calls: ChatRequest[] = [];
  return {
    label: 'fake',
    simulated: true,
    calls,
    async chat(req) {
      calls.push(req);
      return { text: 'Checked the wrong drawer first.', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } };
    },
  } as ChatModel & { calls: ChatRequest[] };
}

async function twoEpochs(setting: 'reference' | 'memrl'): Promise<{ model: ReturnType<typeof recordingModel>; instance: MethodInstance; task: TaskBase }> {
  const model = recordingModel();
  const ctx: MethodContext = {
    benchmark: 'toy',
    settings: undefined,
    params: defaultMemoryParams(),
    buildStrategy: 'proceduralization',
    model,
    embedder: new LocalNgramEmbedder(),
    fidelity: makeFidelity('reference', [...MEMORY_SWITCHES, ...REFLECTION_SWITCHES], { [LLM_REFLECTION]: setting }),
    log: pino({ level: 'silent' }),
  };
  const instance = await reflection.create(ctx);
  const task: TaskBase = { id: 'toy/1', key: 'put a mug in the drawer' };
  const first = await instance.retrieve([task], { phase: 'train', epoch: 1, rng: new Rng(1) });
  expect(first[0]!.memories).toEqual([]);
  const ep: FinishedEpisode = {
    task,
    index: 0,
    epoch: 1,
    retrieval: first[0]!,
    outcome: { status: 'fail', success: false, steps: 3, trajectory: 'went to the shelf; took nothing', usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } },
  };
  const exp = (await instance.learn!(ep)) as Experience;
  // The experience is journaled as JSON: it must survive a round trip.
  instance.commit([JSON.parse(JSON.stringify(exp)) as Experience], 1);
  return { model, instance, task };
}

describe('reflection method', () => {
  it('reference: the retried task sees a note on its previous attempt, and no model call was made', async () => {
    const { model, instance, task } = await twoEpochs('reference');
    expect(model.calls).toHaveLength(0);
    const [r] = await instance.retrieve([task], { phase: 'train', epoch: 2, rng: new Rng(2) });
    expect(r!.memories).toHaveLength(1);
    const m = r!.memories[0]!;
    expect(m.attempt).toEqual({ trajectory: 'went to the shelf; took nothing' });
    expect(m.success).toBe(false);
    expect(m.content).toContain('INCORRECT');
    expect(m.content).toContain('went to the shelf; took nothing');
    expect(r!.fields.retrievedIds).toEqual(['mem-e1-t0']);
    // Validation never sees it.
    const [v] = await instance.retrieve([task], { phase: 'valid', epoch: 2, rng: new Rng(3) });
    expect(v!.memories).toEqual([]);
  });

  it('reflection.llm-reflection=memrl: the writer reflects on the failure with the model, and that memory is shown', async () => {
    const { model, instance, task } = await twoEpochs('memrl');
    expect(model.calls.map((c) => c.tags.purpose)).toEqual(['reflection']);
    const [r] = await instance.retrieve([task], { phase: 'train', epoch: 2, rng: new Rng(2) });
    const m = r!.memories[0]!;
    expect(m.attempt).toBeUndefined();
    expect(m.content).toContain('What went wrong:\nChecked the wrong drawer first.');
    expect(m.content).toContain('Failed approach:\nwent to the shelf; took nothing');
  });

  it('keeps the attempts across a checkpoint', async () => {
    const { instance, task } = await twoEpochs('reference');
    const snap = JSON.parse(JSON.stringify(instance.snapshot()));
    const model = recordingModel();
    const restored = await reflection.create({
      benchmark: 'toy',
      settings: undefined,
      params: defaultMemoryParams(),
      buildStrategy: 'proceduralization',
      model,
      embedder: new LocalNgramEmbedder(),
      fidelity: makeFidelity('reference', [...MEMORY_SWITCHES, ...REFLECTION_SWITCHES]),
      log: pino({ level: 'silent' }),
      restored: snap,
    });
    const [r] = await restored.retrieve([task], { phase: 'train', epoch: 2, rng: new Rng(2) });
    expect(r!.memories[0]!.attempt?.trajectory).toBe('went to the shelf; took nothing');
  });
});
