import { describe, expect, it } from 'vitest';
import { MemoryEngine } from '../../src/memory/engine.js';
import { defaultMemoryParams } from '../../src/memory/params.js';
import { Rng } from '../../src/util/rng.js';
import { ALF, Q4, engineWith, newMemory, vec } from './helpers.js';

describe('commit: Q updates', () => {
  it('follows the spec test vector: alpha .3, Q0 0, rewards +1 +1 -1 → .3, .51, .057', () => {
    const e = engineWith({ alpha: 0.3 });
    e.insertDirect({ id: 'm', key: 'k', embedding: vec(1, 0), q: 0 });
    const qs = [true, true, false].map((success, t) => {
      e.commit([{ injectedIds: ['m'], success }], t);
      return e.get('m')!.q;
    });
    expect(qs[0]).toBeCloseTo(0.3, 12);
    expect(qs[1]).toBeCloseTo(0.51, 12);
    expect(qs[2]).toBeCloseTo(0.057, 12);
    const m = e.get('m')!;
    expect(m.visits).toBe(3);
    expect(m.lastReward).toBe(-1);
    expect(m.updatedAt).toBe(2);
    // The reward EMA follows the same recursion from 0.
    expect(m.rewardEma).toBeCloseTo(0.057, 12);
  });

  it('updates a memory injected into two episodes of one batch twice, in episode order', () => {
    const e = engineWith({ alpha: 0.3 });
    e.insertDirect({ id: 'm', key: 'k', embedding: vec(1, 0), q: 0 });
    const report = e.commit(
      [
        { injectedIds: ['m'], success: false },
        { injectedIds: [], success: true },
        { injectedIds: ['m'], success: true },
      ],
      5,
    );
    // -1 first: 0 → -.3, then +1: -.3 + .3 * 1.3 = .09 (the other order would give .3 → -.09)
    expect(report.qUpdates.map((u) => u.reward)).toEqual([-1, 1]);
    expect(e.get('m')!.q).toBeCloseTo(0.09, 12);
    expect(e.get('m')!.visits).toBe(2);
  });

  it('updates only the injected memories, never the new ones of the same commit', () => {
    const e = engineWith({ ...ALF, qInitPos: 0.5, qInitNeg: -0.25 });
    e.insertDirect({ id: 'used', key: 'k1', embedding: vec(1, 0), q: 0 });
    e.insertDirect({ id: 'idle', key: 'k2', embedding: vec(0, 1), q: 0 });
    e.commit(
      [
        { injectedIds: ['used'], success: true, newMemory: newMemory('n1', 'task 1', vec(1, 1), { success: true }) },
        { injectedIds: ['used'], success: false, newMemory: newMemory('n2', 'task 2', vec(1, -1), { success: false }) },
      ],
      1,
    );
    expect(e.get('idle')!.visits).toBe(0);
    expect(e.get('used')!.visits).toBe(2);
    expect(e.get('n1')).toMatchObject({ q: 0.5, visits: 0, success: true, relatedIds: ['used'], createdAt: 1 });
    expect(e.get('n2')).toMatchObject({ q: -0.25, visits: 0, success: false, relatedIds: ['used'] });
  });

  it('applies the q floor after the update', () => {
    const e = engineWith({ alpha: 0.5, qFloor: -0.2 });
    e.insertDirect({ id: 'm', key: 'k', embedding: vec(1, 0), q: 0 });
    e.commit([{ injectedIds: ['m'], success: false }], 0);
    expect(e.get('m')!.q).toBe(-0.2);
  });

  it('changes nothing when a batch names an unknown memory', () => {
    const e = engineWith();
    e.insertDirect({ id: 'm', key: 'k', embedding: vec(1, 0), q: 0 });
    const before = JSON.stringify(e.snapshot());
    expect(() =>
      e.commit(
        [
          { injectedIds: ['m'], success: true, newMemory: newMemory('n', 'x', vec(0, 1)) },
          { injectedIds: ['ghost'], success: true },
        ],
        1,
      ),
    ).toThrow(/ghost/);
    expect(JSON.stringify(e.snapshot())).toBe(before);
  });
});

describe('commit: filing new memories', () => {
  it('joins the bucket of the most similar Phase-A key at or above the add threshold', () => {
    const e = engineWith({ ...ALF, addSimilarityThreshold: 0.9 });
    e.insertDirect({ id: 'a', key: 'key A', embedding: vec(1, 0, 0, 0) });
    e.insertDirect({ id: 'b', key: 'key B', embedding: vec(0, 1, 0, 0) });
    const report = e.commit(
      [
        {
          injectedIds: [],
          success: true,
          newMemory: newMemory('n', 'my task', vec(0, 0, 1, 0), {
            phaseAKeys: [
              { key: 'key A', sim: 0.9 },
              { key: 'key B', sim: 0.95 },
            ],
          }),
        },
      ],
      1,
    );
    expect(report.added).toEqual([{ id: 'n', key: 'key B', joinedBucket: true, placement: 'joined' }]);
    expect(e.bucket('key B')).toEqual(['b', 'n']);
    expect(e.keyCount).toBe(2);
    expect(e.get('n')).toMatchObject({ key: 'key B', sourceKey: 'my task' });
  });

  it('joins at exactly the threshold and makes a new key just below it', () => {
    const e = engineWith({ addSimilarityThreshold: 0.9 });
    e.insertDirect({ id: 'a', key: 'key A', embedding: vec(1, 0, 0, 0) });
    e.commit([{ injectedIds: [], success: true, newMemory: newMemory('at', 't1', vec(0, 1, 0, 0), { phaseAKeys: [{ key: 'key A', sim: 0.9 }] }) }], 1);
    e.commit([{ injectedIds: [], success: true, newMemory: newMemory('under', 't2', vec(0, 0, 1, 0), { phaseAKeys: [{ key: 'key A', sim: 0.8999 }] }) }], 2);
    expect(e.bucket('key A')).toEqual(['a', 'at']);
    expect(e.bucket('t2')).toEqual(['under']);
    // The new key is searchable with its own embedding.
    expect(e.retrieve(vec(0, 0, 1, 0), new Rng(1)).phaseAKeys).toEqual([{ key: 't2', sim: 1 }]);
  });

  it('appends to an existing key with the same text instead of overwriting it', () => {
    const e = engineWith();
    e.commit([{ injectedIds: [], success: true, newMemory: newMemory('first', 'same task', vec(1, 0)) }], 1);
    const report = e.commit(
      [
        { injectedIds: [], success: false, newMemory: newMemory('second', 'same task', vec(1, 0)) },
        { injectedIds: [], success: true, newMemory: newMemory('third', 'same task', vec(1, 0)) },
      ],
      2,
    );
    expect(report.added.map((a) => a.placement)).toEqual(['appended', 'appended']);
    expect(e.bucket('same task')).toEqual(['first', 'second', 'third']);
    expect(e.keyCount).toBe(1);
    expect(e.size).toBe(3);
  });

  it('two new memories with the same new text in one batch share one key', () => {
    const e = engineWith();
    e.commit(
      [
        { injectedIds: [], success: true, newMemory: newMemory('x1', 'repeat', vec(1, 0)) },
        { injectedIds: [], success: true, newMemory: newMemory('x2', 'repeat', vec(1, 0)) },
      ],
      1,
    );
    expect(e.keys()).toEqual([{ key: 'repeat', ids: ['x1', 'x2'] }]);
  });

  it('pairs each result with its own memory: a missing build does not shift the others', () => {
    const e = engineWith();
    e.commit(
      [
        { injectedIds: [], success: true, newMemory: newMemory('m-task1', 'task 1', vec(1, 0)) },
        { injectedIds: [], success: false }, // its build failed: nothing to write
        { injectedIds: [], success: false, newMemory: newMemory('m-task3', 'task 3', vec(0, 1), { success: false }) },
      ],
      1,
    );
    expect(e.keys()).toEqual([
      { key: 'task 1', ids: ['m-task1'] },
      { key: 'task 3', ids: ['m-task3'] },
    ]);
    expect(e.get('m-task3')!.content).toBe('content of m-task3');
  });

  it('validation stores successes only; vanilla and adjustment store both', () => {
    const batch = () => [
      { injectedIds: [], success: true, newMemory: newMemory('ok', 'good', vec(1, 0), { success: true }) },
      { injectedIds: [], success: false, newMemory: newMemory('bad', 'bad', vec(0, 1), { success: false }) },
    ];
    const validation = engineWith({ updateStrategy: 'validation' });
    const rep = validation.commit(batch(), 1);
    expect(validation.records().map((r) => r.id)).toEqual(['ok']);
    expect(rep.skipped).toEqual([{ id: 'bad', reason: expect.stringMatching(/validation/) }]);

    for (const updateStrategy of ['vanilla', 'adjustment'] as const) {
      const e = engineWith({ updateStrategy, qInitPos: 1, qInitNeg: 0 });
      e.commit(batch(), 1);
      expect(e.records().map((r) => [r.id, r.success, r.q])).toEqual([
        ['ok', true, 1],
        ['bad', false, 0],
      ]);
    }
  });

  it('rejects a duplicate memory id without changing anything', () => {
    const e = engineWith();
    e.insertDirect({ id: 'm', key: 'k', embedding: vec(1, 0) });
    expect(() => e.commit([{ injectedIds: [], success: true, newMemory: newMemory('m', 'other', vec(0, 1)) }], 1)).toThrow(
      /duplicate/,
    );
    expect(e.size).toBe(1);
  });

  it('retrieval in a batch sees the memory as it was before the batch', () => {
    const e = engineWith({ ...ALF, k2: 5 });
    e.insertDirect({ id: 'old', key: 'old', embedding: vec(8, 6, 0, 0), q: 0 });
    const first = e.retrieve(Q4, new Rng(1));
    const second = e.retrieve(Q4, new Rng(1));
    expect(second).toEqual(first);
    e.commit([{ injectedIds: ['old'], success: true, newMemory: newMemory('new', 'new', Q4, { phaseAKeys: first.phaseAKeys }) }], 1);
    expect(e.retrieve(Q4, new Rng(1)).selected.map((c) => c.id)).toContain('new');
  });
});

describe('stats', () => {
  it('counts successes and summarises Q', () => {
    const e = engineWith();
    expect(e.stats()).toMatchObject({ memories: 0, keys: 0, q: null });
    e.insertDirect({ id: 'a', key: 'k', embedding: vec(1, 0), q: 0.5, success: true });
    e.insertDirect({ id: 'b', key: 'k', q: -0.5, success: false });
    e.insertDirect({ id: 'c', key: 'j', embedding: vec(0, 1), q: 0.3, success: true });
    const s = e.stats();
    expect(s).toMatchObject({ memories: 3, keys: 2, successes: 2, failures: 1, visited: 0 });
    expect(s.q!.min).toBe(-0.5);
    expect(s.q!.max).toBe(0.5);
    expect(s.q!.mean).toBeCloseTo(0.1, 12);
  });
});

describe('commit: the reference buckets (EngineOptions.bucketOverwrite, switch engine.bucket-overwrite)', () => {
  const params = defaultMemoryParams({ qMinThreshold: -0.5, addSimilarityThreshold: 0.9, simThreshold: 0 });

  it('a retrieval whose pool q_min emptied hands no key to join, so the memory gets its own key', () => {
    for (const bucketOverwrite of [true, false]) {
      const e = new MemoryEngine(params, { bucketOverwrite });
      e.insertDirect({ id: 'bad', key: 'similar task', embedding: vec(1, 0.01), q: -1 });
      const sel = e.retrieve(vec(1, 0), new Rng(1));
      expect(sel.selected).toEqual([]);
      expect(sel.pool).toBe(1);
      e.commit([{ injectedIds: [], success: true, newMemory: newMemory('n', 'my task', vec(1, 0), { phaseAKeys: sel.phaseAKeys }) }], 1);
      expect(e.get('n')!.key).toBe(bucketOverwrite ? 'my task' : 'similar task');
    }
  });

  it('a memory that joins nothing replaces the bucket its task text already had; the old ones are detached', () => {
    const e = new MemoryEngine(params, { bucketOverwrite: true });
    e.insertDirect({ id: 'old1', key: 'task', embedding: vec(0, 1), q: 0 });
    e.insertDirect({ id: 'old2', key: 'task', q: 0 });
    const report = e.commit([{ injectedIds: [], success: true, newMemory: newMemory('n', 'task', vec(0, 1)) }], 1);
    expect(report.added).toEqual([{ id: 'n', key: 'task', joinedBucket: false, placement: 'replaced' }]);
    expect(e.bucket('task')).toEqual(['n']);
    expect([e.get('old1')!.detached, e.get('old2')!.detached, e.get('n')!.detached]).toEqual([true, true, undefined]);
    // A snapshot keeps them stored and out of every bucket; a detached memory found in a bucket is refused.
    const snap = e.snapshot();
    const back = MemoryEngine.restore(snap, { bucketOverwrite: true });
    expect(back.size).toBe(3);
    expect(back.keys()).toEqual([{ key: 'task', ids: ['n'] }]);
    snap.index[0]!.ids.push('old1');
    expect(() => MemoryEngine.restore(snap)).toThrow(/old1 is detached but still in a bucket/);
  });
});
