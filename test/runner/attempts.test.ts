/**
 * Attempts beside a real journal: an episode finished before a kill is taken over, not
 * played again, and its usage counted once; a changed retrieval or an error plays it
 * again; nothing is journaled while the run stops; a replayed barrier keeps its first
 * commit time; an abandoned batch is played whole on resume. AttemptUsage counts each
 * attempt's own calls, made here or on a worker.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Retrieval } from '../../src/core/method.js';
import type { OutcomeRow } from '../../src/core/outcome.js';
import { UsageLedger } from '../../src/llm/ledger.js';
import type { ChatModel } from '../../src/llm/types.js';
import { AttemptUsage, Attempts, addUsage, type AttemptKey, type EpisodeRecord } from '../../src/runner/attempts.js';
import { Journal } from '../../src/runner/journal.js';
import { tempDir } from '../helpers/temp.js';

const key = (index: number, epoch = 1): AttemptKey => ({ phase: 'train', epoch, index, taskId: `t${index}` });
const retrieval = (ids: string[]): Retrieval => ({ memories: [], fields: { retrievedIds: ids } });
const row = (k: AttemptKey, r: Retrieval, status: OutcomeRow['status'] = 'pass'): OutcomeRow =>
  ({ benchmark: 'toy', taskId: k.taskId, taskIndex: k.index, epoch: k.epoch, phase: k.phase, status, success: status === 'pass', reward: 1, steps: 1, ...r.fields, promptTokens: 3, completionTokens: 2, totalTokens: 5, latencyMs: 1, finishedAt: 'x' }) as OutcomeRow;

/** A model whose every reply costs 3+2 tokens. */
const fixedModel: ChatModel = { label: 'fixed', simulated: true, chat: async () => ({ text: 'ok', usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 }, model: 'fixed', latencyMs: 0 }) };
const call = (m: ChatModel, k: AttemptKey) => m.chat({ messages: [{ role: 'user', content: 'q' }], tags: { benchmark: 'toy', taskId: k.taskId, epoch: k.epoch, phase: k.phase, role: 'agent' } });

interface Opened {
  attempts: Attempts;
  usage: AttemptUsage;
  journal: Journal;
  model: ChatModel;
  seen: string[];
  takenOver: AttemptKey[];
  state: { journaling: boolean };
}

function open(path: string, resume: boolean): Opened {
  const journal = new Journal(path, () => resume);
  const usage = new AttemptUsage(new UsageLedger());
  const seen: string[] = [];
  const takenOver: AttemptKey[] = [];
  const state = { journaling: true };
  const attempts = new Attempts(journal, usage, { onEpisode: (r) => seen.push(`${r.taskId}:${r.status}`), onTakenOver: (k) => takenOver.push(k), journaling: () => state.journaling, log: pino({ level: 'silent' }) });
  return { attempts, usage, journal, model: usage.tap(fixedModel), seen, takenOver, state };
}

/** An episode that makes `calls` model calls and returns its row. */
const episode = (o: Opened, k: AttemptKey, r: Retrieval, calls: number, status: OutcomeRow['status'] = 'pass', played: string[] = []) => async (): Promise<EpisodeRecord> => {
  played.push(k.taskId);
  for (let i = 0; i < calls; i++) await call(o.model, k);
  return { row: row(k, r, status), experience: { memoryId: `m${k.index}` } };
};

describe('Attempts', () => {
  it('journals each finished episode with the usage of its own calls, and a resume takes it over without playing it, counting that usage once', async () => {
    const path = join(tempDir('memrl-attempts-'), 'journal.jsonl');
    const first = open(path, false);
    const r = retrieval(['a']);
    const rec = await first.attempts.play(key(0), r, episode(first, key(0), r, 2));
    await first.attempts.play(key(1), r, episode(first, key(1), r, 1));
    await first.attempts.synced();
    expect(rec.experience).toEqual({ memoryId: 'm0' });
    const lines = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((e) => [e.taskId, e.usage.byRole.agent.calls])).toEqual([['t0', 2], ['t1', 1]]);
    first.journal.close();

    // The resumed process: same retrievals, so neither episode plays again.
    const resumed = open(path, true);
    const played: string[] = [];
    const again = await resumed.attempts.play(key(0), r, episode(resumed, key(0), r, 2, 'pass', played));
    await resumed.attempts.play(key(1), r, episode(resumed, key(1), r, 1, 'pass', played));
    expect(played).toEqual([]);
    expect(again).toEqual({ row: row(key(0), r), experience: { memoryId: 'm0' } });
    expect(resumed.seen).toEqual(['t0:pass', 't1:pass']);
    expect(resumed.takenOver.map((k) => k.taskId)).toEqual(['t0', 't1']);
    expect(resumed.usage.ledger.snapshot().byRole.agent).toMatchObject({ calls: 3, totalTokens: 15 });
    resumed.journal.close();
  });

  it('plays an attempt again when its retrieval differs now or it ended in error', async () => {
    const path = join(tempDir('memrl-attempts-'), 'journal.jsonl');
    const first = open(path, false);
    await first.attempts.play(key(0), retrieval(['a']), episode(first, key(0), retrieval(['a']), 1));
    await first.attempts.play(key(1), retrieval([]), episode(first, key(1), retrieval([]), 1, 'error'));
    await first.attempts.synced();
    first.journal.close();

    const resumed = open(path, true);
    const played: string[] = [];
    await resumed.attempts.play(key(0), retrieval(['b']), episode(resumed, key(0), retrieval(['b']), 1, 'pass', played));
    await resumed.attempts.play(key(1), retrieval([]), episode(resumed, key(1), retrieval([]), 1, 'pass', played));
    expect(played).toEqual(['t0', 't1']);
    expect(resumed.takenOver).toEqual([]);
    // Nothing recorded is added to the run's ledger: the calls made now are counted as they are made (by the metered model).
    expect(resumed.usage.ledger.snapshot().byRole.agent.calls).toBe(0);
    resumed.journal.close();
  });

  it('journals nothing that finishes while the run is stopping', async () => {
    const path = join(tempDir('memrl-attempts-'), 'journal.jsonl');
    const o = open(path, false);
    o.state.journaling = false;
    await o.attempts.play(key(0), retrieval([]), episode(o, key(0), retrieval([]), 1));
    expect(o.seen).toEqual(['t0:pass']);
    expect(readFileSync(path, 'utf8')).toBe('');
    o.journal.close();
  });

  it('keeps a barrier’s first commit time on a replay, and takes the clock for a new one', () => {
    const path = join(tempDir('memrl-attempts-'), 'journal.jsonl');
    const first = open(path, false);
    const t = first.attempts.barrierTime(1, 0, () => 1000);
    expect(t).toEqual({ at: 1000, replayed: false });
    first.attempts.barrierDone(1, 0, t);
    first.journal.close();
    const resumed = open(path, true);
    expect(resumed.attempts.barrierTime(1, 0, () => 2000)).toEqual({ at: 1000, replayed: true });
    expect(resumed.attempts.barrierTime(1, 1, () => 2000)).toEqual({ at: 2000, replayed: false });
    resumed.journal.close();
  });

  it('forgets an abandoned batch’s episodes, so a resume plays them again, and keeps the journal of an interrupted run', async () => {
    const path = join(tempDir('memrl-attempts-'), 'journal.jsonl');
    const first = open(path, false);
    for (const i of [0, 1, 2]) await first.attempts.play(key(i), retrieval([]), episode(first, key(i), retrieval([]), 1));
    await first.attempts.synced();
    first.attempts.abandon('train', 1, [0, 1]);
    const resumed = open(path, true);
    const played: string[] = [];
    for (const i of [0, 1, 2]) await resumed.attempts.play(key(i), retrieval([]), episode(resumed, key(i), retrieval([]), 1, 'pass', played));
    expect(played).toEqual(['t0', 't1']);
    await resumed.attempts.synced();
    resumed.attempts.end(true);
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(3);
  });
});

describe('AttemptUsage', () => {
  it('counts a call for the attempt its tags name, and a worker’s calls for that attempt and the run', async () => {
    const usage = new AttemptUsage(new UsageLedger());
    const model = usage.tap(fixedModel);
    usage.start(key(0));
    await call(model, key(0));
    await call(model, key(1)); // no attempt of t1 is running: not counted for any
    usage.countRemote(key(0), [{ role: 'judge', usage: { promptTokens: 10, completionTokens: 1, totalTokens: 11 } }]);
    const own = usage.of(key(0));
    expect(own.byRole.agent.calls).toBe(1);
    expect(own.byRole.judge).toMatchObject({ calls: 1, totalTokens: 11 });
    // The tap counts only per attempt (the metered model counts for the run); a worker's calls count for the run here.
    expect(usage.ledger.snapshot().byRole.judge.calls).toBe(1);
    expect(usage.ledger.snapshot().byRole.agent.calls).toBe(0);
    usage.end(key(0));
  });

  it('adds usage role by role', () => {
    const a = new UsageLedger();
    a.record({ role: 'agent' }, { promptTokens: 1, completionTokens: 1, totalTokens: 2 }, { cached: false });
    const b = new UsageLedger();
    b.record({ role: 'agent' }, { promptTokens: 5, completionTokens: 0, totalTokens: 5 }, { cached: true });
    expect(addUsage(a.snapshot(), b.snapshot()).byRole.agent).toEqual({ calls: 1, cachedCalls: 1, promptTokens: 1, completionTokens: 1, totalTokens: 2, cachedTokens: 5 });
  });
});
