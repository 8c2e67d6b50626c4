/**
 * Episode records with the real parts around them (toy benchmark, sim model, a memory
 * method that writes through the model, a journal): each training episode's row carries
 * the retrieval's fields and the method's calls around the episode's own, and what the
 * method learned; an episode that ended in error teaches nothing; --reward-noise flips
 * what the method is told, never the row; validation teaches nothing.
 */
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { FinishedEpisode, MethodInstance, Retrieval } from '../../src/core/method.js';
import { UsageLedger } from '../../src/llm/ledger.js';
import { SimChatModel } from '../../src/llm/sim/model.js';
import type { ChatModel } from '../../src/llm/types.js';
import type { RecordedCall } from '../../src/metrics/transcripts.js';
import { AttemptUsage, Attempts } from '../../src/runner/attempts.js';
import { EpisodeRecords, outcomeRow } from '../../src/runner/episode-records.js';
import { Journal } from '../../src/runner/journal.js';
import { LocalDispatcher } from '../../src/runner/local-dispatcher.js';
import { MethodCalls } from '../../src/runner/method-calls.js';
import { tempDir } from '../helpers/temp.js';
import { toyBenchmark, type ToyOptions } from '../helpers/toy-benchmark.js';

const log = pino({ level: 'silent' });

/**
 * A method that asks the model once at retrieval and once in learn (as Self-RAG's gate
 * and the memory writer do), and keeps what learn was told.
 */
function askingMethod(model: ChatModel, told: FinishedEpisode[]): MethodInstance {
  const ask = (taskId: string, epoch: number, phase: 'train' | 'valid', purpose: string) =>
    model.chat({ messages: [{ role: 'user', content: purpose }], tags: { benchmark: 'toy', taskId, epoch, phase, role: 'memory', purpose } });
  return {
    async retrieve(tasks, q) {
      return Promise.all(tasks.map(async (t) => {
        await ask(t.id, q.epoch, q.phase === 'valid' ? 'valid' : 'train', 'gate');
        return { memories: [], fields: { retrievedIds: [`m-${t.id}`], retrievedQ: [0.5] }, record: { gate: 'yes' } };
      }));
    },
    async learn(e) {
      told.push(e);
      await ask(e.task.id, e.epoch, 'train', 'write');
      return { memoryId: `new-${e.task.id}` };
    },
    commit: () => undefined,
    snapshot: () => ({}),
    records: () => [],
    stats: () => ({}),
    size: 0,
  };
}

async function setup(toy: ToyOptions, rewardNoise = 0) {
  const bench = toyBenchmark({ train: 4, valid: 2, ...toy });
  const loaded = await bench.load();
  const model = new SimChatModel({ seed: 2, players: { toy: bench.simPlayer([...loaded.train, ...loaded.valid]) } });
  const calls = new MethodCalls();
  const told: FinishedEpisode[] = [];
  const method = askingMethod(calls.recording(model), told);
  const usage = new AttemptUsage(new UsageLedger());
  const journal = new Journal(join(tempDir('memrl-records-'), 'journal.jsonl'), () => false);
  const attempts = new Attempts(journal, usage, { onEpisode: () => {}, onTakenOver: () => {}, journaling: () => true, log });
  const dispatcher = new LocalDispatcher(bench, { model }, { concurrency: 2, log });
  const records = new EpisodeRecords({ bench, method, dispatcher, attempts, calls, seed: 1, rewardNoise, aborted: () => false, now: () => Date.UTC(2026, 0, 1) });
  const play = async (phase: 'train' | 'valid') => {
    const items = (phase === 'train' ? loaded.train : loaded.valid).map((task, index) => ({ task, index }));
    const retrieved = await method.retrieve(items.map((it) => it.task), { phase, epoch: 1, rng: undefined as never });
    return records.playAll(items, async (i) => retrieved[i] as Retrieval, phase, 1, 0);
  };
  return { play, told };
}

const roles = (calls: unknown): string[] => (calls as RecordedCall[]).map((c) => `${c.role}:${c.purpose ?? ''}`);

describe('EpisodeRecords', () => {
  it("records each training episode with the retrieval's fields, the method's calls around its own, and what the method learned", async () => {
    const { play, told } = await setup({});
    const recs = await play('train');
    expect(recs.map((r) => r.row.taskId)).toEqual(['toy/0', 'toy/1', 'toy/2', 'toy/3']);
    for (const [i, r] of recs.entries()) {
      expect(r.experience).toEqual({ memoryId: `new-toy/${i}` });
      expect(r.row).toMatchObject({ phase: 'train', epoch: 1, taskIndex: i, retrievedIds: [`m-toy/${i}`], retrievedQ: [0.5], memoryId: `new-toy/${i}`, finishedAt: '2026-01-01T00:00:00.000Z' });
      expect(r.row.extra?.retrieval).toEqual({ gate: 'yes' });
      expect(roles(r.row.extra?.calls)).toEqual(['memory:gate', 'agent:', 'memory:write']);
    }
    // Learned as each episode ended (in any order), once each.
    expect(told.map((e) => e.task.id).sort()).toEqual(['toy/0', 'toy/1', 'toy/2', 'toy/3']);
  });

  it('teaches nothing from an episode that ended in error, and nothing in validation', async () => {
    const { play, told } = await setup({ crash: new Set(['toy/1', 'toy/1001']) });
    const train = await play('train');
    expect(train[1]!.row).toMatchObject({ status: 'error', error: 'episode crashed: toy crash in toy/1' });
    expect(train[1]!.experience).toBeUndefined();
    expect(train[1]!.row.memoryId).toBeUndefined();
    expect(told.map((e) => e.task.id).sort()).toEqual(['toy/0', 'toy/2', 'toy/3']);
    const valid = await play('valid');
    expect(valid.map((r) => [r.row.phase, r.row.status, r.experience])).toEqual([['valid', expect.any(String), undefined], ['valid', 'error', undefined]]);
    expect(roles(valid[0]!.row.extra?.calls)).toEqual(['memory:gate', 'agent:']);
    expect(told).toHaveLength(3);
  });

  it('with --reward-noise 1 tells the method the flipped reward and keeps the true one in the row', async () => {
    const { play, told } = await setup({}, 1);
    const recs = await play('train');
    for (const r of recs) {
      const learned = told.find((e) => e.task.id === r.row.taskId)!;
      expect(learned.outcome.success).toBe(!r.row.success);
      expect(r.row.extra?.rewardFlipped).toBe(true);
    }
  });
});

describe('outcomeRow', () => {
  it('writes the fields in the order outcomes.jsonl has them', () => {
    const row = outcomeRow(
      'toy', { task: { id: 't', key: 'k' }, index: 3 }, 2, 'valid',
      { memories: [], fields: { retrievedIds: ['a'], pool: 4 }, record: { why: 'x' } },
      { status: 'pass', success: true, steps: 2, trajectory: '', usage: { promptTokens: 5, completionTokens: 1, totalTokens: 6 }, ms: 9, extra: { cacheHits: 1 } },
      undefined, 'T',
    );
    expect(JSON.stringify(row)).toBe('{"benchmark":"toy","taskId":"t","taskIndex":3,"epoch":2,"phase":"valid","status":"pass","success":true,"reward":1,"steps":2,"retrievedIds":["a"],"pool":4,"promptTokens":5,"completionTokens":1,"totalTokens":6,"latencyMs":9,"finishedAt":"T","extra":{"cacheHits":1,"retrieval":{"why":"x"}}}');
  });
});
