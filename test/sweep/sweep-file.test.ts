/** The sweep file: what it accepts, the one line it gives for what it does not, and the grid it makes. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinRegistry, findBenchmark } from '../../src/app/registry.js';
import { planCells } from '../../src/sweep/plan.js';
import { cellNeeds, parseQueueName, queueName, queuesFor } from '../../src/sweep/queue.js';
import { readSweepFile } from '../../src/sweep/sweep-file.js';
import { UserError } from '../../src/util/errors.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('memrl-sweep-file-');
const registry = builtinRegistry();
const write = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('reading a sweep file', () => {
  it('an unknown axis key is one line naming the file, its line and the key, with a suggestion', () => {
    const p = write('typo.yaml', 'name: t\naxes:\n  benchmark: [bcb]\n  rl_config.wieght_q: [0.1, 0.5]\n');
    expect(() => readSweepFile(p, registry)).toThrow(`${p}:4: rl_config.wieght_q is not a config key (did you mean rl_config.weight_q?)`);
  });

  it('names unknown benchmarks and methods, and top-level keys a sweep file does not have', () => {
    expect(() => readSweepFile(write('b.yaml', 'name: t\naxes:\n  benchmark: [bcbb]\n'), registry)).toThrow(/:3: unknown benchmark bcbb \(known: bcb, hle, llb, alfworld, llb-db, llb-os\)/);
    expect(() => readSweepFile(write('m.yaml', 'name: t\naxes:\n  benchmark: [bcb]\n  method: [memrll]\n'), registry)).toThrow(/:4: unknown method memrll/);
    expect(() => readSweepFile(write('k.yaml', 'name: t\naxis:\n  benchmark: [bcb]\n'), registry)).toThrow(/unknown key axis/);
    expect(() => readSweepFile(write('w.yaml', 'name: t\naxes:\n  benchmark: [bcb]\noverrides:\n  - when: { method: none }\n    set: { memrl.limit: 2 }\n'), registry)).toThrow(/method is not an axis of this sweep/);
  });
});

describe('the grid', () => {
  it('one cell per combination, in axis order, each with its own config', () => {
    const p = write(
      'grid.yaml',
      [
        'name: grid',
        'set: { memrl.limit: 3 }',
        'axes:',
        '  benchmark: [bcb, llb]',
        '  method: [none, memrl]',
        '  rl_config.weight_q: [0.3]',
        'overrides:',
        '  - when: { benchmark: llb }',
        '    set: { experiment.task: db }',
      ].join('\n'),
    );
    const cells = planCells(readSweepFile(p, registry));
    expect(cells.map((c) => c.id)).toEqual(['bcb-none-weight_q=0.3', 'bcb-memrl-weight_q=0.3', 'llb-none-weight_q=0.3', 'llb-memrl-weight_q=0.3']);
    expect(cells[3]!.config).toEqual({ memrl: { limit: 3, method: 'memrl' }, rl_config: { weight_q: 0.3 }, experiment: { task: 'db' } });
    expect(cells[0]!.config).not.toHaveProperty('experiment');
  });

  it("ships the paper's grid: every benchmark (LLB as db and os) × every method × 3 seeds, each on its paper config", () => {
    const cells = planCells(readSweepFile('configs/sweeps/paper.yaml', registry));
    expect(cells).toHaveLength(5 * registry.methods.length * 3);
    expect(new Set(cells.map((c) => c.method))).toEqual(new Set(registry.methods.map((m) => m.name)));
    const db = cells.find((c) => c.id === 'llb-db-memrl-s1')!;
    expect(db.benchmark).toBe('llb');
    expect(db.config).toMatchObject({ experiment: { task: 'db', random_seed: 1 }, memrl: { method: 'memrl', profile: 'paper' } });
    expect(cells.find((c) => c.id === 'llb-os-none-s3')!.config).toMatchObject({ experiment: { task: 'os' } });
    // Each benchmark's cells start from its own paper config.
    expect(cells.find((c) => c.id === 'hle-memrl-s1')!.config).toMatchObject({ memory: { sim_norm_mean: expect.closeTo(0.1857, 3) } });
    expect(planCells(readSweepFile('configs/sweeps/quickstart.yaml', registry)).every((c) => (c.config as { llm: { provider: string } }).llm.provider === 'sim')).toBe(true);
  });

  it('two axis values that print alike are one line about the sweep file, not a crash', () => {
    const p = write('alike.yaml', 'name: t\naxes:\n  benchmark: [bcb]\n  rl_config.topk: [1, "1"]\n');
    let err: unknown;
    try {
      planCells(readSweepFile(p, registry));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserError);
    expect((err as UserError).message).toBe(`${p}: two cells would share the id bcb-topk=1 (axis values that print alike, such as 1 and "1"); make them differ`);
  });

  it('routes each cell to the queue of what its benchmark says it needs, and a worker to the queues it can serve', () => {
    const bench = (name: string) => findBenchmark(registry, name);
    expect(queueName(cellNeeds({ config: {} }, bench('bcb')))).toBe('cells-bwrap');
    expect(queueName(cellNeeds({ config: { experiment: { task: 'db' } } }, bench('llb')))).toBe('cells-mariadb');
    expect(queueName(cellNeeds({ config: {} }, bench('llb')))).toBe('cells-bwrap'); // its default task, os
    expect(queueName(cellNeeds({ config: { memrl: { evaluator: { backend: 'docker' } } } }, bench('bcb')))).toBe('cells-containers');
    expect(queueName(cellNeeds({ config: {} }, bench('hle')))).toBe('cells');
    // A plug-in that needs bubblewrap goes where bubblewrap is, not to any worker.
    const plugin = { ...bench('hle'), name: 'sandboxed', workerNeeds: () => ['bwrap'] as const };
    expect(queueName(cellNeeds({ config: {} }, plugin))).toBe('cells-bwrap');
    expect(() => cellNeeds({ config: {} }, { name: 'gpu-bench', workerNeeds: () => ['gpu' as never] })).toThrow(/benchmark gpu-bench: workerNeeds gave `gpu`, which no worker offers/);
    // No MariaDB here: the db cells' queue is not among this worker's.
    expect(queuesFor(new Set(['bwrap'] as const))).toEqual(['cells', 'cells-bwrap']);
  });

  it('reads back what a queue name says (memrl worker status), and nothing from other names', () => {
    for (const name of queuesFor(new Set(['bwrap', 'mariadb', 'containers'] as const), 'episodes')) {
      const parsed = parseQueueName(name);
      expect(parsed?.kind).toBe('episodes');
      expect(queueName(parsed!.needs, 'episodes')).toBe(name);
    }
    expect(parseQueueName('cells-bwrap+mariadb')).toEqual({ kind: 'cells', needs: ['bwrap', 'mariadb'] });
    for (const other of ['rate', 'cells-', 'cells-gpu', 'cells-mariadb+bwrap', 'jobs-bwrap']) expect(parseQueueName(other)).toBeUndefined();
  });
});
