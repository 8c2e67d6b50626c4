import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { registerMemoryCommand } from '../../src/cli/commands/memory-replay.js';
import { replayOps } from '../../src/memory/replay.js';
import { UserError } from '../../src/util/errors.js';
import { tempDir } from '../helpers/temp.js';

const ops = (...objs: unknown[]) => objs.map((o) => JSON.stringify(o));

const workedOps = ops(
  {
    op: 'config',
    method: 'memrl',
    seed: 3,
    rl: { topk: 2, epsilon: 0, alpha: 0.3, weight_sim: 0.5, weight_q: 0.5, q_min_threshold: -10, tau: 0.35, gamma: 0 },
    memory: { k_retrieve: 5, sim_norm_mean: 0.5187, sim_norm_std: 0.1203 },
  },
  { op: 'insert', id: 'A', key: 'task A', embedding: [8, 6, 0, 0], q: 0, success: true },
  { op: 'insert', id: 'B', key: 'task B', embedding: [7, 7, 1, 1], q: 0.51, success: true },
  { op: 'insert', id: 'C', key: 'task C', embedding: [7, 1, 7, 1], q: -0.3, success: false },
  { op: 'retrieve', embedding: [1, 0, 0, 0] },
  { op: 'update', ids: ['A'], success: true },
  { op: 'update', ids: ['A'], success: true },
  { op: 'update', ids: ['A'], success: false },
);

describe('replayOps', () => {
  it('reproduces the worked vector and the Q test vector from an ops script', () => {
    const out = replayOps(['', ...workedOps, '   '], 'ops.jsonl').map((l) => JSON.parse(l));
    expect(out).toHaveLength(4);
    const [retrieve, u1, u2, u3] = out;
    expect(retrieve.op).toBe('retrieve');
    expect(retrieve.pool).toBe(3);
    expect(retrieve.selected.map((s: { id: string }) => s.id)).toEqual(['B', 'A']);
    expect(retrieve.selected[0].score).toBeCloseTo(1.411496, 6);
    expect(retrieve.selected[1].score).toBeCloseTo(1.064484, 6);
    expect(retrieve.selected[1]).toMatchObject({ sim: expect.closeTo(0.8, 9), q: 0 });
    expect(u1.op).toBe('update');
    expect(u1.q.A).toBeCloseTo(0.3, 12);
    expect(u2.q.A).toBeCloseTo(0.51, 12);
    expect(u3.q.A).toBeCloseTo(0.057, 12);
  });

  it('uses the BCB defaults without a config line, and appends inserts with a known key', () => {
    const out = replayOps(
      ops(
        { op: 'insert', id: 'm1', key: 'k', embedding: [1, 0] },
        { op: 'insert', id: 'm2', key: 'k' },
        { op: 'retrieve', embedding: [1, 0] },
      ),
    );
    expect(JSON.parse(out[0]!).pool).toBe(2);
  });

  it('names the file and line of a bad op', () => {
    const lines = [...workedOps.slice(0, 2), '{"op":"insert","id":"X","key":"new key"}'];
    expect(() => replayOps(lines, 'ops.jsonl')).toThrow(UserError);
    expect(() => replayOps(lines, 'ops.jsonl')).toThrow(/^ops\.jsonl:3: .*needs an embedding/);
    expect(() => replayOps(['{"op":"retrieve","embedding":[1,0]}', 'not json'], 'f.jsonl')).toThrow(/^f\.jsonl:2: not valid JSON/);
    expect(() => replayOps(['{"op":"fly"}'], 'f.jsonl')).toThrow(/^f\.jsonl:1: bad op/);
    expect(() => replayOps(['{"op":"retrieve","embedding":[1,0],"extra":1}'], 'f.jsonl')).toThrow(/^f\.jsonl:1: bad op/);
  });

  it('rejects unknown config keys, bad values, and a late config', () => {
    expect(() => replayOps(ops({ op: 'config', rl: { topkk: 3 } }), 'c.jsonl')).toThrow(/^c\.jsonl:1: unknown key rl\.topkk/);
    expect(() => replayOps(ops({ op: 'config', rl: { epsilon: 2 } }), 'c.jsonl')).toThrow(/^c\.jsonl:1: .*epsilon/);
    expect(() => replayOps(ops({ op: 'retrieve', embedding: [1] }, { op: 'config' }), 'c.jsonl')).toThrow(
      /^c\.jsonl:2: "config" must be the first op/,
    );
    expect(() => replayOps(ops({ op: 'update', ids: ['nope'], success: true }), 'c.jsonl')).toThrow(/^c\.jsonl:1: .*nope/);
  });
});

describe('memrl memory replay', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    process.exitCode = undefined;
  });

  const program = () => {
    const p = new Command().exitOverride();
    registerMemoryCommand(p);
    return p;
  };

  it('prints one JSON line per retrieve/update', async () => {
    const dir = tempDir('memrl-replay-');
    const file = join(dir, 'ops.jsonl');
    writeFileSync(file, workedOps.join('\n') + '\n');
    const writes: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      writes.push(String(chunk));
      return true;
    });
    await program().parseAsync(['node', 'memrl', 'memory', 'replay', file]);
    const lines = writes.join('').trimEnd().split('\n');
    expect(lines).toEqual(replayOps(workedOps));
    expect(process.exitCode ?? 0).toBe(0);
  });

  it('fails with a one-line error and a non-zero exit code', async () => {
    const dir = tempDir('memrl-replay-');
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, '{"op":"retrieve","embedding":[1]}\n{oops\n');
    await expect(program().parseAsync(['node', 'memrl', 'memory', 'replay', file])).rejects.toThrow(
      new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: `),
    );
    expect(process.exitCode).not.toBe(0);
    expect(process.exitCode).toBeDefined();
  });
});
