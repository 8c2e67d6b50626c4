import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalNgramEmbedder } from '../../src/embed/local.js';
import { SimChatModel } from '../../src/llm/sim/model.js';
import { defaultMemoryParams } from '../../src/memory/params.js';
import type { MemoryRecord } from '../../src/memory/types.js';
import { readOutcomeRows } from '../../src/metrics/outcome-store.js';
import { readTranscripts } from '../../src/core/run-files/transcripts.js';
import type { OutcomeRow } from '../../src/metrics/outcome-row.js';
import type { MethodModule } from '../../src/core/method.js';
import { BUILTIN_METHODS } from '../../src/methods/registry.js';
import { runBenchmark, type RunPlan } from '../../src/runner/run.js';
import { fileReporters } from '../../src/runner/reporters/index.js';
import { withOverrides, type PlanOverrides } from '../helpers/plan.js';
import { toyBenchmark, type ToyOptions, type ToyTask } from '../helpers/toy-benchmark.js';

const root = mkdtempSync(join(tmpdir(), 'memrl-runner-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDir = (): string => join(root, `run-${n++}`);

function plan(over: PlanOverrides<ToyTask> = {}, toy: ToyOptions = {}): RunPlan<ToyTask> {
  return withOverrides(
    {
      benchmark: toyBenchmark(toy),
      method: {
        module: 'memrl',
        // Local n-gram sims are higher than OpenAI's: centre the z-norm on them; explore 20%.
        memoryParams: defaultMemoryParams({ simNormMean: 0.6, simNormStd: 0.15, epsilon: 0.2, simThreshold: 0.3 }),
        buildStrategy: 'proceduralization',
      },
      schedule: { epochs: 3, batchSize: 4, concurrency: 1, seed: 7 },
      validation: { run: false, beforeTraining: false },
      models: { agent: (player) => new SimChatModel({ seed: 7, players: { toy: player } }), embedder: new LocalNgramEmbedder() },
      folder: { dir: freshDir(), resume: false, manifest: {} },
      log: pino({ level: 'silent' }),
    },
    over,
  );
}

/** Rows without wall-clock fields, in file order. */
function rows(dir: string): Omit<OutcomeRow, 'latencyMs' | 'finishedAt'>[] {
  return readOutcomeRows(join(dir, 'outcomes.jsonl')).rows.map(({ latencyMs: _l, finishedAt: _f, ...r }) => r);
}

function memories(dir: string): Omit<MemoryRecord, 'createdAt' | 'updatedAt'>[] {
  return readFileSync(join(dir, 'memories.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const { createdAt: _c, updatedAt: _u, ...m } = JSON.parse(l) as MemoryRecord;
      return m;
    });
}

const json = (dir: string, name: string): unknown => JSON.parse(readFileSync(join(dir, name), 'utf8'));

describe('runner', () => {
  it('gives identical outcomes and memory at concurrency 1 and 4', async () => {
    const a = plan({ schedule: { concurrency: 1 } });
    const b = plan({ schedule: { concurrency: 4 } });
    await runBenchmark(a);
    await runBenchmark(b);
    expect(rows(b.folder.dir)).toEqual(rows(a.folder.dir));
    expect(memories(b.folder.dir)).toEqual(memories(a.folder.dir));
    expect(json(b.folder.dir, 'metrics.json')).toEqual(json(a.folder.dir, 'metrics.json'));
    // The run learned something: Q moved away from its initial value for some memory.
    expect(memories(a.folder.dir).some((m) => m.visits > 0 && m.q !== 0)).toBe(true);
  });

  it("records in each episode's transcript the memory writer's calls and the Q updates it caused, which add up to every memory's Q", async () => {
    const p = plan({ schedule: { epochs: 3 } });
    await runBenchmark(p);
    const byId = new Map(readTranscripts(p.folder.dir).map((t) => [t.id, t]));
    const rs = readOutcomeRows(join(p.folder.dir, 'outcomes.jsonl')).rows;
    // Replay every update in commit order (epoch, batch, task order = file order): each starts where the last one left.
    const q = new Map<string, number>();
    let updates = 0;
    for (const r of rs) {
      const t = byId.get((r.extra as { transcriptId: string }).transcriptId)!;
      if (r.memoryId) {
        const writer = t.calls.filter((c) => c.role === 'memory');
        expect(writer.length, r.taskId).toBeGreaterThan(0);
        expect(writer[0]!.purpose).toBeTruthy();
        // The agent's call comes first, the writer's after it.
        expect(t.calls[0]!.role).toBe('agent');
      }
      // One update per distinct injected memory, in the order injected.
      expect((t.qUpdates ?? []).map((u) => u.memoryId)).toEqual([...new Set(r.retrievedIds)]);
      for (const u of t.qUpdates ?? []) {
        if (q.has(u.memoryId)) expect(u.before).toBe(q.get(u.memoryId));
        q.set(u.memoryId, u.after);
        updates++;
      }
    }
    expect(updates).toBeGreaterThan(10);
    for (const m of memories(p.folder.dir)) if (q.has(m.id)) expect(m.q).toBe(q.get(m.id));
  });

  it('writes one row per task and epoch, and one memory per finished training episode', async () => {
    const p = plan({ schedule: { epochs: 2 } });
    const res = await runBenchmark(p);
    const r = rows(p.folder.dir);
    expect(r).toHaveLength(24);
    expect(r.map((x) => `${x.epoch}:${x.taskIndex}`)).toEqual(
      [1, 2].flatMap((e) => Array.from({ length: 12 }, (_, i) => `${e}:${i}`)),
    );
    expect(memories(p.folder.dir)).toHaveLength(24);
    expect(res.interrupted).toBe(false);
    const summary = json(p.folder.dir, 'summary.json') as { status: string; simulated: boolean; model: string };
    expect(summary).toMatchObject({ status: 'complete', simulated: true, model: 'sim' });
    const manifest = json(p.folder.dir, 'run.json') as { model: string; simulated: boolean };
    expect(manifest).toMatchObject({ model: 'sim', simulated: true });
    expect(readdirSync(join(p.folder.dir, 'tb')).some((f) => f.startsWith('events.out.tfevents'))).toBe(true);
  });

  it('hands reporters each batch\'s rows after its episodes and before anything of the next batch, every row before its epoch ends', async () => {
    const dir = freshDir();
    const seen: string[] = [];
    const reporters = fileReporters(dir);
    reporters.set('order', {
      onEpisode: (row) => seen.push(`episode ${row.epoch}:${row.taskIndex}`),
      onRows: (rs) => seen.push(`rows ${rs.map((r) => `${r.epoch}:${r.taskIndex}`).join(',')}`),
      onEpochEnd: (ev) => seen.push(`epoch end ${ev.epoch}`),
    });
    await runBenchmark(plan({ schedule: { epochs: 2, concurrency: 4 }, folder: { dir }, outputs: { reporters } }));
    // Between two row events: exactly the episodes of the second one's rows.
    const expected: string[] = [];
    for (const e of [1, 2]) {
      for (let b = 0; b < 3; b++) {
        const batch = [0, 1, 2, 3].map((i) => `${e}:${4 * b + i}`);
        expected.push(...batch.map((k) => `episode ${k}`).sort(), `rows ${batch.join(',')}`);
      }
      expected.push(`epoch end ${e}`);
    }
    const episodesSorted: string[] = [];
    let run: string[] = [];
    for (const ev of seen) {
      if (ev.startsWith('episode ')) run.push(ev);
      else episodesSorted.push(...run.sort(), ev), (run = []);
    }
    expect(episodesSorted).toEqual(expected);
    expect(rows(dir)).toHaveLength(24);
  });

  it('records in summary.json how the evaluator ended when it ended otherwise than run.json says it started', async () => {
    const told: Record<string, unknown>[] = [{ backend: 'toy', forkServer: true }, { backend: 'toy', forkServer: { unavailable: 'warm-up failed' } }];
    const changing = plan({ benchmark: { ...toyBenchmark(), describeEvaluator: async () => told.shift() ?? {} } });
    await runBenchmark(changing);
    expect((json(changing.folder.dir, 'run.json') as { evaluator: unknown }).evaluator).toEqual({ backend: 'toy', forkServer: true });
    expect((json(changing.folder.dir, 'summary.json') as { evaluatorAtEnd?: unknown }).evaluatorAtEnd).toEqual({ backend: 'toy', forkServer: { unavailable: 'warm-up failed' } });
    const steady = plan({ benchmark: { ...toyBenchmark(), describeEvaluator: async () => ({ forkServer: true, backend: 'toy' }) } });
    await runBenchmark(steady);
    expect(json(steady.folder.dir, 'summary.json')).not.toHaveProperty('evaluatorAtEnd');
  });

  it("retrieves a batch's later tasks, as many at a time as play at once, after its first episodes have started", async () => {
    const log: string[] = [];
    const memrl = BUILTIN_METHODS.find((m) => m.name === 'memrl') as MethodModule;
    const logged: MethodModule = {
      ...memrl,
      async create(ctx) {
        const instance = await memrl.create(ctx);
        const retrieve = instance.retrieve.bind(instance);
        instance.retrieve = (tasks, query) => {
          log.push(`retrieve ${tasks.map((t) => t.id).join(',')}`);
          return retrieve(tasks, query);
        };
        return instance;
      },
    };
    const onEpisode = (task: ToyTask): void => void log.push(`episode ${task.id}`);
    await runBenchmark(plan({ benchmark: toyBenchmark({ train: 8, onEpisode }), method: { module: logged }, schedule: { epochs: 1, batchSize: 8, concurrency: 3 } }));
    expect(log.slice(0, 4)).toEqual(['retrieve toy/0,toy/1,toy/2', 'episode toy/0', 'episode toy/1', 'episode toy/2']);
    expect(log.filter((l) => l.startsWith('retrieve'))).toEqual(['retrieve toy/0,toy/1,toy/2', 'retrieve toy/3,toy/4,toy/5', 'retrieve toy/6,toy/7']);
    for (let i = 3; i < 8; i++) expect(log.indexOf(`episode toy/${i}`)).toBeGreaterThan(log.indexOf(i < 6 ? 'retrieve toy/3,toy/4,toy/5' : 'retrieve toy/6,toy/7'));
  });

  it('lets no task of a batch see memories written by the same batch', async () => {
    // One batch holding every task: the first epoch retrieves from an empty memory.
    const p = plan({ schedule: { epochs: 2, batchSize: 12 } });
    await runBenchmark(p);
    const r = rows(p.folder.dir);
    expect(r.filter((x) => x.epoch === 1).every((x) => x.retrievedIds.length === 0)).toBe(true);
    expect(r.filter((x) => x.epoch === 2).some((x) => x.retrievedIds.length > 0)).toBe(true);
    // With batches of 4, the second batch of epoch 1 already sees the first batch's memories.
    const q = plan({ schedule: { epochs: 1, batchSize: 4 } });
    await runBenchmark(q);
    const r1 = rows(q.folder.dir);
    expect(r1.slice(0, 4).every((x) => x.retrievedIds.length === 0)).toBe(true);
    expect(r1.slice(4).some((x) => x.retrievedIds.length > 0)).toBe(true);
  });

  it('validation reads memory but never writes it', async () => {
    const withVal = plan({ validation: { run: true, beforeTraining: true } }, { valid: 5 });
    const without = plan({}, { valid: 5 });
    await runBenchmark(withVal);
    await runBenchmark(without);
    expect(memories(withVal.folder.dir)).toEqual(memories(without.folder.dir));
    const v = rows(withVal.folder.dir).filter((x) => x.phase === 'valid');
    expect(v.map((x) => x.epoch)).toEqual([0, 1, 2, 3].flatMap((e) => Array(5).fill(e)));
    expect(v.filter((x) => x.epoch === 0).every((x) => x.retrievedIds.length === 0)).toBe(true);
    expect(v.filter((x) => x.epoch > 0).some((x) => x.retrievedIds.length > 0)).toBe(true);
    const metrics = json(withVal.folder.dir, 'metrics.json') as { valid?: { epochs: { epoch: number }[] } };
    expect(metrics.valid?.epochs.map((e) => e.epoch)).toEqual([0, 1, 2, 3]);
  });

  it("validates after epoch e only when e is a multiple of valid_interval, as the reference's LLB and ALFWorld runners do", async () => {
    const p = plan({ schedule: { epochs: 5 }, validation: { run: true, beforeTraining: true, interval: 2 } }, { valid: 3 });
    await runBenchmark(p);
    const v = rows(p.folder.dir).filter((x) => x.phase === 'valid');
    // Before training (epoch 0), then after epochs 2 and 4; not after 1, 3 or the last (5).
    expect([...new Set(v.map((x) => x.epoch))]).toEqual([0, 2, 4]);
    const metrics = json(p.folder.dir, 'metrics.json') as { valid?: { epochs: { epoch: number }[] } };
    expect(metrics.valid?.epochs.map((e) => e.epoch)).toEqual([0, 2, 4]);
  });

  it('method none neither retrieves nor writes', async () => {
    const p = plan({ method: { module: 'none' } });
    await runBenchmark(p);
    expect(rows(p.folder.dir).every((x) => x.retrievedIds.length === 0 && x.memoryId === undefined)).toBe(true);
    expect(readFileSync(join(p.folder.dir, 'memories.jsonl'), 'utf8')).toBe('');
  });

  it('method memp writes memories but never changes Q', async () => {
    const p = plan({ method: { module: 'memp' } });
    await runBenchmark(p);
    const m = memories(p.folder.dir);
    expect(m.length).toBe(36);
    expect(m.every((x) => x.q === 0 && x.visits === 0)).toBe(true);
    expect(rows(p.folder.dir).some((x) => x.retrievedIds.length > 0)).toBe(true);
  });

  it('passk retries only the tasks not solved yet, without memory', async () => {
    const p = plan({ method: { module: 'passk' }, schedule: { epochs: 4 } });
    await runBenchmark(p);
    const r = rows(p.folder.dir);
    const solvedBefore = new Set<string>();
    for (let e = 1; e <= 4; e++) {
      const epochRows = r.filter((x) => x.epoch === e);
      // Exactly the tasks not solved in an earlier epoch are attempted.
      expect(epochRows.map((x) => x.taskId).sort()).toEqual(
        Array.from({ length: 12 }, (_, i) => `toy/${i}`).filter((id) => !solvedBefore.has(id)).sort(),
      );
      for (const x of epochRows) if (x.success) solvedBefore.add(x.taskId);
    }
    expect(r.every((x) => x.retrievedIds.length === 0)).toBe(true);
    expect(readFileSync(join(p.folder.dir, 'memories.jsonl'), 'utf8')).toBe('');
    const m = json(p.folder.dir, 'metrics.json') as { train: { csrFinal: number } };
    expect(m.train.csrFinal).toBeCloseTo(solvedBefore.size / 12, 10);
  });

  it("reflection shows a retried task its own previous attempt, and resumes with it", async () => {
    const p = plan({ method: { module: 'reflection' }, schedule: { epochs: 3 } });
    await runBenchmark(p);
    const r = rows(p.folder.dir);
    const e1 = r.filter((x) => x.epoch === 1);
    expect(e1.every((x) => x.retrievedIds.length === 0)).toBe(true);
    for (const x of r.filter((y) => y.epoch > 1)) {
      // The injected item is the memory this task wrote in the epoch before.
      const prev = r.find((y) => y.taskId === x.taskId && y.epoch === x.epoch - 1);
      expect(x.retrievedIds).toEqual([prev?.memoryId]);
    }
    const dir = freshDir();
    await runBenchmark(plan({ method: { module: 'reflection' }, schedule: { epochs: 2 }, folder: { dir } }));
    await runBenchmark(plan({ method: { module: 'reflection' }, schedule: { epochs: 3 }, folder: { dir, resume: true } }));
    expect(rows(dir)).toEqual(r);
  });

  it('records a crashing episode as an error that neither writes memory nor moves Q', async () => {
    const p = plan({ schedule: { epochs: 2 } }, { crash: new Set(['toy/3']) });
    await runBenchmark(p);
    const crashed = rows(p.folder.dir).filter((x) => x.taskId === 'toy/3');
    expect(crashed.map((x) => x.status)).toEqual(['error', 'error']);
    expect(crashed[0]?.error).toMatch(/toy crash in toy\/3/);
    expect(memories(p.folder.dir).some((m) => m.meta.taskId === 'toy/3')).toBe(false);
    const metrics = json(p.folder.dir, 'metrics.json') as { train: { epochs: { errors: number }[] } };
    expect(metrics.train.epochs.map((e) => e.errors)).toEqual([1, 1]);
  });

  it('stops a run whose benchmark reports an invalid row, naming the field, before the row reaches a file or the epoch is checkpointed', async () => {
    const toy = toyBenchmark();
    // A benchmark module's bug: a fractional step count for one task of the second batch.
    const broken: typeof toy = { ...toy, episode: async (task, ctx) => ({ ...(await toy.episode(task, ctx)), ...(task.id === 'toy/5' ? { steps: 1.5 } : {}) }) };
    const p = plan({ benchmark: broken, schedule: { epochs: 1 } });
    await expect(runBenchmark(p)).rejects.toThrow(/invalid outcome row: steps/);
    const written = rows(p.folder.dir);
    expect(written.map((r) => r.taskId)).toEqual(['toy/0', 'toy/1', 'toy/2', 'toy/3']);
    expect(existsSync(join(p.folder.dir, 'checkpoint.json'))).toBe(false);
  });

  it('resumes an interrupted run to exactly the state of an uninterrupted one', async () => {
    const straight = plan({ schedule: { epochs: 4, concurrency: 3 } });
    await runBenchmark(straight);

    const abort = new AbortController();
    const dir = freshDir();
    const first = plan(
      { schedule: { epochs: 4, concurrency: 3 }, folder: { dir }, stops: { signal: abort.signal } },
      { onEpisode: (t, epoch) => epoch === 3 && t.n === 5 && abort.abort() },
    );
    const r1 = await runBenchmark(first);
    expect(r1.interrupted).toBe(true);
    expect(r1.epochsCompleted).toBe(2);
    expect((json(dir, 'summary.json') as { status: string }).status).toBe('interrupted');

    const second = plan({ schedule: { epochs: 4, concurrency: 1 }, folder: { dir, resume: true } });
    const r2 = await runBenchmark(second);
    expect(r2.interrupted).toBe(false);
    expect(rows(dir)).toEqual(rows(straight.folder.dir));
    expect(memories(dir)).toEqual(memories(straight.folder.dir));
    expect(json(dir, 'metrics.json')).toEqual(json(straight.folder.dir, 'metrics.json'));
    const usage = (d: string) => (json(d, 'summary.json') as { usage: unknown }).usage;
    expect(usage(dir)).toEqual(usage(straight.folder.dir));
    expect((json(dir, 'run.json') as { resumes: unknown[] }).resumes).toHaveLength(1);
  });

  it('moves transcripts to traces.jsonl, one line per row, consistent after an interrupted run is resumed', async () => {
    const straight = plan({ schedule: { epochs: 3 } }, { transcript: true });
    await runBenchmark(straight);
    const abort = new AbortController();
    const dir = freshDir();
    await runBenchmark(plan({ schedule: { epochs: 3 }, folder: { dir }, stops: { signal: abort.signal } }, { transcript: true, onEpisode: (t, e) => e === 2 && t.n === 6 && abort.abort() }));
    await runBenchmark(plan({ schedule: { epochs: 3 }, folder: { dir, resume: true } }, { transcript: true }));
    const traces = (d: string) => readFileSync(join(d, 'traces.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(traces(dir)).toEqual(traces(straight.folder.dir));
    expect(traces(dir)).toHaveLength(36);
    expect(rows(dir).every((r) => r.extra === undefined || !('transcript' in r.extra))).toBe(true);
  });

    it('extends a finished run with more epochs on resume', async () => {
    const straight = plan({ schedule: { epochs: 3 } });
    await runBenchmark(straight);
    const dir = freshDir();
    await runBenchmark(plan({ schedule: { epochs: 2 }, folder: { dir } }));
    await runBenchmark(plan({ schedule: { epochs: 3 }, folder: { dir, resume: true } }));
    expect(rows(dir)).toEqual(rows(straight.folder.dir));
    expect(memories(dir)).toEqual(memories(straight.folder.dir));
  });
});
