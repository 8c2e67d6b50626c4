/**
 * Resume at task granularity, in process (the kill -9 test with real processes is
 * test/trust/kill-resume.test.ts): finished episodes of the interrupted epoch come
 * from the journal and are not run again; torn tails, stray temp files and stale
 * journal entries left by a kill do not change the result.
 */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalNgramEmbedder } from '../../src/embed/local.js';
import { SimChatModel } from '../../src/llm/sim/model.js';
import { defaultMemoryParams } from '../../src/memory/params.js';
import { readOutcomeRows } from '../../src/metrics/outcome-store.js';
import { readTranscripts, TRANSCRIPT_PARTS_FILE, TRANSCRIPTS_FILE } from '../../src/core/run-files/transcripts.js';
import { JOURNAL_FILE, type JournalEpisode } from '../../src/runner/journal.js';
import { runBenchmark, type RunPlan } from '../../src/runner/run.js';
import { withOverrides, type PlanOverrides } from '../helpers/plan.js';
import { toyBenchmark, type ToyOptions, type ToyTask } from '../helpers/toy-benchmark.js';

const root = mkdtempSync(join(tmpdir(), 'memrl-crash-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

function plan(over: PlanOverrides<ToyTask> = {}, toy: ToyOptions = {}): RunPlan<ToyTask> {
  return withOverrides(
    {
      benchmark: toyBenchmark({ valid: 4, transcript: true, ...toy }),
      method: { module: 'memrl', memoryParams: defaultMemoryParams({ simNormMean: 0.6, simNormStd: 0.15, epsilon: 0.2, simThreshold: 0.3 }), buildStrategy: 'proceduralization' },
      schedule: { epochs: 3, batchSize: 4, concurrency: 3, seed: 7 },
      validation: { run: true, beforeTraining: true },
      models: { agent: (player) => new SimChatModel({ seed: 7, players: { toy: player } }), embedder: new LocalNgramEmbedder() },
      folder: { dir: join(root, `run-${n++}`), resume: false, manifest: {} },
      log: pino({ level: 'silent' }),
    },
    over,
  );
}

/** The final state without wall-clock fields. */
function state(dir: string): Record<string, unknown> {
  const rows = readOutcomeRows(join(dir, 'outcomes.jsonl')).rows.map(({ latencyMs: _l, finishedAt: _f, ...r }) => r);
  const memories = readFileSync(join(dir, 'memories.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const { createdAt: _c, updatedAt: _u, ...m } = JSON.parse(l) as Record<string, unknown>;
      return m;
    });
  const usage = (JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { usage: unknown }).usage;
  const transcripts = readTranscripts(dir).map((t) => ({ ...t, calls: t.calls.map(({ latencyMs: _l, cached: _c, ...call }) => call) }));
  return { rows, memories, usage, traces: readFileSync(join(dir, 'traces.jsonl'), 'utf8'), transcripts, metrics: readFileSync(join(dir, 'metrics.json'), 'utf8') };
}

const journal = (dir: string): JournalEpisode[] =>
  readFileSync(join(dir, JOURNAL_FILE), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JournalEpisode)
    .filter((e) => e.kind === 'episode');

/** Run until the episode of toy task `at` starts in `epoch`, then stop as Ctrl-C does. */
async function interrupted(dir: string, epoch: number, at: number, resume = false): Promise<void> {
  const abort = new AbortController();
  const r = await runBenchmark(plan({ folder: { dir, resume }, stops: { signal: abort.signal } }, { onEpisode: (t, e, phase) => e === epoch && phase === 'train' && t.n === at && abort.abort() }));
  expect(r.interrupted).toBe(true);
}

describe('resume at task granularity', () => {
  const straight = plan();
  const reference = runBenchmark(straight).then(() => state(straight.folder.dir));

  it('takes finished episodes of the interrupted epoch from the journal and runs only the others', async () => {
    const dir = join(root, 'partial');
    await interrupted(dir, 2, 6);
    const done = journal(dir).filter((e) => e.epoch === 2 && e.phase === 'train');
    expect(done.length).toBeGreaterThan(0);
    // The episode cut short by the interrupt is not journaled: it failed only because of the stop.
    expect(done.every((e) => e.row.status !== 'error')).toBe(true);

    const ran: string[] = [];
    await runBenchmark(plan({ folder: { dir, resume: true } }, { onEpisode: (t, e, phase) => e === 2 && phase === 'train' && ran.push(t.id) }));
    expect(ran.length).toBe(12 - done.length);
    for (const e of done) expect(ran).not.toContain(e.taskId);
    expect(state(dir)).toEqual(await reference);
    expect(existsSync(join(dir, JOURNAL_FILE))).toBe(false);
    const resumes = (JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { resumes: { fromEpoch: number; journaled: number }[] }).resumes;
    expect(resumes).toEqual([expect.objectContaining({ fromEpoch: 1, journaled: done.length })]);
  });

  it('converges after two interrupts in a row, torn last lines and gzip members, stray temp files and stale journal entries', async () => {
    const dir = join(root, 'torn');
    await interrupted(dir, 2, 5);
    await interrupted(dir, 2, 10, true);
    // An entry of the checkpointed epoch 1 (a kill between checkpoint and journal reset), falsified: it must be ignored.
    const stale = { ...journal(dir)[0]!, epoch: 1 } as JournalEpisode;
    stale.row = { ...stale.row, epoch: 1, status: 'pass', success: true, reward: 1 };
    // What a kill in the middle of writes leaves behind: a cut line (here followed by more), temp files.
    appendFileSync(join(dir, JOURNAL_FILE), `{"kind":"episode","phase":"tr\n${JSON.stringify(stale)}\n{"kind":"barr`);
    appendFileSync(join(dir, 'outcomes.jsonl'), '{"benchmark":"toy","taskId":"to');
    // The transcript files are gzip members appended per batch: a kill tears the last one (a write cut at a page boundary).
    const torn = (text: string): Buffer => gzipSync(text).subarray(0, 40);
    appendFileSync(join(dir, TRANSCRIPT_PARTS_FILE), torn(`${JSON.stringify({ h: 'f'.repeat(20), t: 'x'.repeat(5000) })}\n`));
    appendFileSync(join(dir, TRANSCRIPTS_FILE), torn(`${JSON.stringify({ id: 'train/2/0', calls: [] })}\n`.repeat(50)));
    writeFileSync(join(dir, 'checkpoint.json.tmp-4242'), '{"version":1,"epochCo');
    writeFileSync(join(dir, 'metrics.json.tmp-4242'), '');

    await runBenchmark(plan({ folder: { dir, resume: true } }));
    expect(state(dir)).toEqual(await reference);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-') || f === JOURNAL_FILE)).toEqual([]);
  });

  it('interrupted during the validation before training: resumes from the journal alone', async () => {
    const dir = join(root, 'valid0');
    const abort = new AbortController();
    await runBenchmark(plan({ folder: { dir }, stops: { signal: abort.signal } }, { onEpisode: (t, _e, phase) => phase === 'valid' && t.n === 1002 && abort.abort() }));
    expect(existsSync(join(dir, 'checkpoint.json'))).toBe(false);
    await runBenchmark(plan({ folder: { dir, resume: true } }));
    expect(state(dir)).toEqual(await reference);
  });
});
