/**
 * Self-RAG and Mem0 resume exactly, in process (the CLI's kill -9 and --replay checks are
 * in baselines-cli.test.ts): a run stopped in the middle of an epoch, twice, and resumed
 * ends in the state of the uninterrupted run: rows (with Self-RAG's decision records),
 * memories, token usage, metrics and the checkpoint, byte for byte. Mem0 is the real
 * mem0ai package, restored from the checkpoint by replaying its adds without a call.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalNgramEmbedder } from '../../src/embed/local.js';
import { SimChatModel } from '../../src/llm/sim/model.js';
import { defaultMemoryParams } from '../../src/memory/params.js';
import { readOutcomeRows } from '../../src/metrics/outcome-store.js';
import { runBenchmark, type RunPlan } from '../../src/runner/run.js';
import { withOverrides, type PlanOverrides } from '../helpers/plan.js';
import { toyBenchmark, type ToyOptions, type ToyTask } from '../helpers/toy-benchmark.js';

const root = mkdtempSync(join(tmpdir(), 'memrl-baselines-resume-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

function plan(method: string, settings: unknown, over: PlanOverrides<ToyTask> = {}, toy: ToyOptions = {}): RunPlan<ToyTask> {
  return withOverrides(
    {
      benchmark: toyBenchmark({ valid: 4, transcript: true, ...toy }),
      method: { module: method, settings, memoryParams: defaultMemoryParams({ k1: 3 }), buildStrategy: 'proceduralization' },
      schedule: { epochs: 3, batchSize: 4, concurrency: 3, seed: 11 },
      validation: { run: true, beforeTraining: true },
      models: { agent: (player) => new SimChatModel({ seed: 11, players: { toy: player } }), embedder: new LocalNgramEmbedder() },
      folder: { dir: join(root, `run-${n++}`), resume: false, manifest: {} },
      log: pino({ level: 'silent' }),
      // A fixed clock: a barrier re-run after a stop takes a new time, which is not what is compared here.
      now: () => 1_800_000_000_000,
    },
    over,
  );
}

function state(dir: string): Record<string, unknown> {
  const rows = readOutcomeRows(join(dir, 'outcomes.jsonl')).rows.map(({ latencyMs: _l, finishedAt: _f, ...r }) => r);
  const json = (f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Record<string, any>;
  const ckpt = json('checkpoint.json');
  return {
    rows,
    memories: readFileSync(join(dir, 'memories.jsonl'), 'utf8'),
    usage: json('summary.json').usage,
    stats: json('summary.json').memory,
    metrics: readFileSync(join(dir, 'metrics.json'), 'utf8'),
    checkpoint: JSON.stringify(ckpt.memory),
  };
}

async function stoppedAt(p: RunPlan<ToyTask>, epoch: number, at: number): Promise<void> {
  const abort = new AbortController();
  const stopping = { ...p, stops: { signal: abort.signal }, benchmark: toyBenchmark({ valid: 4, transcript: true, onEpisode: (t, e, phase) => e === epoch && phase === 'train' && t.n === at && abort.abort() }) };
  const r = await runBenchmark(stopping);
  expect(r.interrupted).toBe(true);
}

describe.each([
  ['selfrag', { retrieval_mode: 'adaptive', top_k: 3, max_decision_retries: 2, fallback_on_error: true, threshold: null }],
  ['mem0', { limit: 3, threshold: null, infer: false }],
  ['mem0', { limit: 3, threshold: null, infer: true }],
])('%s %j: stopped twice mid-epoch and resumed', (method, settings) => {
  it('ends byte-identical to the uninterrupted run', async () => {
    const straight = plan(method, settings);
    await runBenchmark(straight);
    const reference = state(straight.folder.dir);
    const rows = reference.rows as { phase: string; epoch: number; retrievedIds: string[]; extra?: Record<string, any> }[];
    // The method did retrieve something, and Self-RAG recorded its decisions.
    expect(rows.filter((r) => r.phase === 'train' && r.epoch === 3).some((r) => r.retrievedIds.length > 0)).toBe(true);
    if (method === 'selfrag') expect(rows.filter((r) => r.epoch >= 2).every((r) => r.extra?.retrieval?.mode === 'adaptive')).toBe(true);
    const memoryCalls = (reference.usage as any).byRole.memory.calls as number;
    if (method === 'selfrag' || (settings as { infer?: boolean }).infer) expect(memoryCalls).toBeGreaterThan(0);
    else expect(memoryCalls).toBe(0);

    const dir = join(root, `stopped-${n++}`);
    await stoppedAt(plan(method, settings, { folder: { dir } }), 2, 5);
    await stoppedAt(plan(method, settings, { folder: { dir, resume: true } }), 3, 9);
    await runBenchmark(plan(method, settings, { folder: { dir, resume: true } }));
    expect(state(dir)).toEqual(reference);
  });
});
