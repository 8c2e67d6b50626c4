/**
 * Every file of a run folder, written by real `memrl run` commands (BigCodeBench in the
 * sandbox, HLE, ALFWorld's stand-in, LLB db on MariaDB; a run stopped by its budget and
 * resumed; a run killed after a checkpoint and resumed), read back through its schema
 * strictly: no key the schema does not know, every required field there, the format
 * this memrl writes. A folder written by memrl before the typed run files (format 1:
 * test/fixtures/run-format-1) is still read, one from an older memrl with less in it
 * too; a file of a format newer than this memrl is refused in one line naming the file
 * and its format.
 */
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  CheckpointSchema,
  JournalEntrySchema,
  MemoryRecordSchema,
  MetricsJsonSchema,
  NOT_RECORDED,
  outcomeRowObject,
  outcomeRowSchema,
  QSnapshotSchema,
  readMemories,
  readQHistory,
  readSummaryJson,
  readTranscripts,
  RUN_FORMAT,
  RunJsonSchema,
  SpendFileSchema,
  StoredTranscriptSchema,
  SummaryJsonSchema,
  TraceLineSchema,
  TranscriptPartSchema,
} from '../../src/core/run-files/index.js';
import { checkBwrap } from '../../src/env/bwrap/check.js';
import { readRunFolder } from '../../src/results/run-folder.js';
import { RunFolder } from '../../src/runner/run-folder.js';
import { ViewData } from '../../src/view/data.js';
import { assertBuilt, runMemrl, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { requireMariadb } from '../llb/require-mariadb.js';

const HLE = resolve('test/fixtures/hle/hle_snappy.parquet');
const FORMAT_1 = resolve('test/fixtures/run-format-1/hle/20261128-180614-memrl-sim-s42-c0ad');
let work: string;

function memrl(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runMemrl(args, { cwd: work, timeoutMs: 300_000, env });
}

/** The one run folder under `out` (an --output-dir). */
function folderIn(out: string): string {
  const bench = readdirSync(join(work, out))[0]!;
  const runs = readdirSync(join(work, out, bench));
  expect(runs).toHaveLength(1);
  return join(work, out, bench, runs[0]!);
}

const json = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));
const lines = (text: string): unknown[] => text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as unknown);
const gzLines = (path: string): unknown[] => lines(gunzipSync(readFileSync(path)).toString('utf8'));

function strict<S extends z.ZodTypeAny>(schema: S, value: unknown, what: string): z.infer<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw new Error(`${what}: ${r.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ')}`);
  return r.data as z.infer<S>;
}

/** Files a run folder may hold that are not memrl's documents (derived, or another tool's format). */
const FOREIGN = new Set(['outcomes.arrow', 'tb', 'responses.jsonl', 'log.jsonl', '.lock']);

/** Every file of `dir` checked against its schema; returns the names checked. Unknown files fail. */
function validateFolder(dir: string): string[] {
  const checked: string[] = [];
  const check = (name: string, fn: (path: string) => void): void => {
    const path = join(dir, name);
    if (!existsSync(path)) return;
    fn(path);
    checked.push(name);
  };
  check('run.json', (p) => expect(strict(RunJsonSchema, json(p), p).memrlRunFormat).toBe(RUN_FORMAT));
  check('summary.json', (p) => expect(strict(SummaryJsonSchema, json(p), p).memrlRunFormat).toBe(RUN_FORMAT));
  check('metrics.json', (p) => strict(MetricsJsonSchema, json(p), p));
  for (const c of ['checkpoint.json', 'checkpoint.prev.json']) check(c, (p) => strict(CheckpointSchema, json(p), p));
  check('spend.json', (p) => strict(SpendFileSchema, json(p), p));
  check('journal.jsonl', (p) => lines(readFileSync(p, 'utf8')).forEach((l, i) => strict(JournalEntrySchema, l, `${p}:${i + 1}`)));
  check('outcomes.jsonl', (p) =>
    lines(readFileSync(p, 'utf8')).forEach((l, i) => {
      strict(outcomeRowObject.strict(), l, `${p}:${i + 1}`);
      strict(outcomeRowSchema, l, `${p}:${i + 1}`);
    }),
  );
  check('memories.jsonl', (p) => lines(readFileSync(p, 'utf8')).forEach((l, i) => strict(MemoryRecordSchema, l, `${p}:${i + 1}`)));
  check('q-history.jsonl', (p) => lines(readFileSync(p, 'utf8')).forEach((l, i) => strict(QSnapshotSchema, l, `${p}:${i + 1}`)));
  check('traces.jsonl', (p) => lines(readFileSync(p, 'utf8')).forEach((l, i) => strict(TraceLineSchema, l, `${p}:${i + 1}`)));
  const parts = new Set<string>();
  check('transcript-parts.jsonl.gz', (p) => gzLines(p).forEach((l, i) => parts.add(strict(TranscriptPartSchema, l, `${p}:${i + 1}`).h)));
  check('transcripts.jsonl.gz', (p) =>
    gzLines(p).forEach((l, i) => {
      const t = strict(StoredTranscriptSchema, l, `${p}:${i + 1}`);
      // Every text a record refers to is in the parts file.
      for (const c of t.calls) for (const h of [...c.messages.map((m) => m.part), ...(c.reply ? [c.reply] : [])]) expect(parts.has(h), `${p}:${i + 1}: part ${h}`).toBe(true);
    }),
  );
  const unknown = readdirSync(dir).filter((f) => !checked.includes(f) && !FOREIGN.has(f) && !(f.startsWith('checkpoint') && statSync(join(dir, f)).size === 0));
  expect(unknown, `files with no schema in ${dir}`).toEqual([]);
  return checked;
}

beforeAll(() => {
  assertBuilt();
  work = tempDir('memrl-run-files-');
});

describe('run files written by real runs, read back strictly', () => {
  it('BigCodeBench, two epochs in the sandbox: every file, and the readers agree with it', async () => {
    const bw = await checkBwrap();
    if (!bw.ok) throw new Error(`bubblewrap sandbox unavailable: ${bw.reason}`);
    const r = await memrl(['run', 'bcb', '--epochs', '2', '--limit', '6', '--output-dir', 'bcb']);
    expect(r.code, r.stderr).toBe(0);
    const dir = folderIn('bcb');
    expect(validateFolder(dir)).toEqual(expect.arrayContaining(['run.json', 'summary.json', 'metrics.json', 'checkpoint.json', 'checkpoint.prev.json', 'outcomes.jsonl', 'memories.jsonl', 'q-history.jsonl', 'transcripts.jsonl.gz', 'transcript-parts.jsonl.gz', 'spend.json']));
    const run = readRunFolder(dir);
    expect(run.summary).toMatchObject({ status: 'complete', epochsCompleted: 2, benchmark: 'bcb', method: 'memrl' });
    expect(run.manifest).toMatchObject({ benchmark: 'bcb', env: 'bigcodebench', epochs: 2, trainTaskIds: expect.any(Array) });
    // The benchmark's own settings sit under its name, and nothing else unnamed does.
    expect(run.manifest.bcb).toMatchObject({ subset: 'full' });
    expect(run.metrics.train.last).toBe(run.summary!.train.last);
    expect(readMemories(join(dir, 'memories.jsonl'))).toHaveLength(run.summary!.memory.memories as number);
  });

  it('a run stopped by its budget (journal, no checkpoint yet), then resumed to the end', async () => {
    const stopped = await memrl(['run', 'bcb', '--epochs', '2', '--limit', '6', '--concurrency', '1', '--budget-tokens', '5000', '--output-dir', 'budget']);
    expect(stopped.code, stopped.stderr).toBe(3);
    const dir = folderIn('budget');
    expect(validateFolder(dir)).toEqual(expect.arrayContaining(['run.json', 'summary.json', 'journal.jsonl', 'outcomes.jsonl']));
    expect(readSummaryJson(json(join(dir, 'summary.json')), 'summary.json')).toMatchObject({ status: 'interrupted', epochsCompleted: 0 });
    const resumed = await memrl(['run', 'bcb', '--resume', dir, '--budget-tokens', '1000000']);
    expect(resumed.code, resumed.stderr).toBe(0);
    validateFolder(dir);
    const run = readRunFolder(dir);
    expect(run.status).toBe('complete');
    expect(run.manifest.resumes).toEqual([{ at: expect.any(String), fromEpoch: 0, journaled: expect.any(Number) }]);
    expect(run.manifest.resumes![0]!.journaled).toBeGreaterThan(0);
  });

  it('HLE killed right after its first checkpoint (a journal of the finished epoch left), then resumed', async () => {
    const killed = await memrl(['run', 'hle', '--train', HLE, '--epochs', '3', '--limit', '4', '--output-dir', 'hle'], { MEMRL_CRASH_AT: 'checkpoint:1' });
    expect(killed.code).toBeNull();
    const dir = folderIn('hle');
    expect(validateFolder(dir)).toEqual(expect.arrayContaining(['run.json', 'checkpoint.json', 'journal.jsonl', 'outcomes.jsonl']));
    expect(existsSync(join(dir, 'summary.json'))).toBe(false);
    cpSync(dir, join(work, 'hle-killed'), { recursive: true });
    const resumed = await memrl(['run', 'hle', '--resume', dir]);
    expect(resumed.code, resumed.stderr).toBe(0);
    validateFolder(dir);
    expect(readRunFolder(dir).summary).toMatchObject({ status: 'complete', epochsCompleted: 3 });
  });

  it("ALFWorld's stand-in with validation (traces of multi-turn episodes, a valid headline)", async () => {
    const r = await memrl(['run', 'alfworld', '--epochs', '2', '--limit', '3', '--run-validation', '--output-dir', 'alfworld']);
    expect(r.code, r.stderr).toBe(0);
    const dir = folderIn('alfworld');
    expect(validateFolder(dir)).toEqual(expect.arrayContaining(['traces.jsonl', 'summary.json']));
    const run = readRunFolder(dir);
    expect(run.summary!.valid).toMatchObject({ tasks: 3 });
    expect(run.manifest.alfworld).toMatchObject({ env: 'household-standin' });
  });

  it('LLB db on MariaDB', async (ctx) => {
    const db = await requireMariadb();
    if (db.skip) ctx.skip();
    if (!db.ok) throw new Error(db.reason);
    const r = await memrl(['run', 'llb', '--task', 'db', '--epochs', '1', '--limit', '3', '--output-dir', 'llb']);
    expect(r.code, r.stderr).toBe(0);
    const dir = folderIn('llb');
    expect(validateFolder(dir)).toEqual(expect.arrayContaining(['run.json', 'summary.json', 'outcomes.jsonl']));
    expect(readRunFolder(dir).manifest.llb).toMatchObject({ task: 'db' });
  });
});

describe('a folder of an older format is read; a newer one is refused in one line', () => {
  it('format 1 (memrl before the typed run files): every reader takes it as it is', async () => {
    const run = readRunFolder(FORMAT_1);
    expect(run.manifest.memrlRunFormat).toBe(1);
    expect(run.manifest).toMatchObject({ benchmark: 'hle', benchmarkName: 'HLE', method: 'memrl', seed: 42 });
    expect(run.summary).toMatchObject({ memrlRunFormat: 1, status: 'complete', epochsCompleted: 2 });
    expect(run.summary!.train.last).toBe(run.metrics.train.last);
    expect(new RunFolder(FORMAT_1).readCheckpoint()).toMatchObject({ version: 2, epochCompleted: 2 });
    expect(readMemories(join(FORMAT_1, 'memories.jsonl')).length).toBeGreaterThan(0);
    expect(readQHistory(join(FORMAT_1, 'q-history.jsonl')).map((s) => s.epoch)).toEqual([1, 2]);
    expect(readTranscripts(FORMAT_1)).toHaveLength(run.rows.length);
    const view = new ViewData([FORMAT_1]);
    expect(view.runs()).toMatchObject([{ benchmark: 'hle', status: 'complete' }]);
    const table = await memrl(['table', FORMAT_1]);
    expect(table.code, table.stderr).toBe(0);
    const compared = await memrl(['compare', join(FORMAT_1, 'summary.json'), FORMAT_1]);
    expect(compared.code, compared.stderr).toBe(0);
  });

  it('an older memrl wrote less: what is missing is filled explicitly, never guessed', () => {
    const dir = join(work, 'oldest');
    cpSync(FORMAT_1, dir, { recursive: true });
    // run.json as a hand-made or early folder has it: no format, the essentials only.
    writeFileSync(join(dir, 'run.json'), JSON.stringify({ benchmark: 'hle', method: 'memrl', model: 'sim', seed: 7, resumes: [{ at: 'x', fromEpoch: 1 }] }));
    // summary.json and metrics from before lastExcludingErrors.
    const summary = json(join(dir, 'summary.json')) as { [k: string]: any };
    delete summary.memrlRunFormat;
    delete summary.train.lastExcludingErrors;
    for (const e of summary.metrics.train.epochs) delete e.accExcludingErrors;
    delete summary.metrics.train.lastExcludingErrors;
    writeFileSync(join(dir, 'summary.json'), JSON.stringify(summary));
    // checkpoint format 1: reflection's attempts beside the engine's snapshot.
    const ckpt = json(join(dir, 'checkpoint.json')) as { [k: string]: unknown };
    writeFileSync(join(dir, 'checkpoint.json'), JSON.stringify({ ...ckpt, version: 1, attempts: { t: ['a'] } }));

    const run = readRunFolder(dir);
    expect(run.manifest).toMatchObject({ memrlRunFormat: 1, env: 'hle', simulated: true, embedder: NOT_RECORDED, epochs: 0, trainTaskIds: [], evaluator: {}, resumes: [{ at: 'x', fromEpoch: 1, journaled: 0 }] });
    expect(run.split).toBeNull();
    expect(run.summary!.train.lastExcludingErrors).toBeNull();
    expect(run.summary!.metrics.train.epochs[0]!.accExcludingErrors).toBeNull();
    expect(new RunFolder(dir).readCheckpoint()).toMatchObject({ version: 2, memory: { attempts: { t: ['a'] } } });
    // What every memrl wrote must be there.
    writeFileSync(join(dir, 'run.json'), JSON.stringify({ benchmark: 'hle', method: 'memrl', model: 'sim' }));
    expect(() => readRunFolder(dir)).toThrow(/run\.json: field `seed`: missing/);
  });

  it('a newer run.json, summary.json, checkpoint or spend.json: one line naming the file and its format', async () => {
    const future = join(work, 'future');
    cpSync(FORMAT_1, future, { recursive: true });
    writeFileSync(join(future, 'run.json'), JSON.stringify({ ...(json(join(FORMAT_1, 'run.json')) as object), memrlRunFormat: 3 }));
    const table = await memrl(['table', future]);
    expect(table.code).toBe(2);
    expect(table.stderr.trim().split('\n')).toHaveLength(1);
    expect(table.stderr).toMatch(/future\/run\.json: memrlRunFormat 3 is newer than this memrl reads \(memrlRunFormat 1 to 2\)/);

    const summary = join(work, 'future-summary.json');
    writeFileSync(summary, JSON.stringify({ ...(json(join(FORMAT_1, 'summary.json')) as object), memrlRunFormat: 9 }));
    const compared = await memrl(['compare', summary, FORMAT_1]);
    expect(compared.code).toBe(2);
    expect(compared.stderr.trim().split('\n')).toHaveLength(1);
    expect(compared.stderr).toMatch(/future-summary\.json: memrlRunFormat 9 is newer than this memrl reads/);

    // A killed run (written by the test above) whose checkpoint, then spend, says a version this memrl does not know.
    const killed = join(work, 'hle-killed');
    expect(existsSync(killed), 'the HLE test above leaves a killed run').toBe(true);
    const ckptDir = join(work, 'future-ckpt');
    cpSync(killed, ckptDir, { recursive: true });
    writeFileSync(join(ckptDir, 'checkpoint.json'), JSON.stringify({ ...(json(join(killed, 'checkpoint.json')) as object), version: 3 }));
    const ckpt = await memrl(['run', 'hle', '--resume', ckptDir]);
    expect(ckpt.code).toBe(2);
    expect(ckpt.stderr.trim().split('\n')).toHaveLength(1);
    expect(ckpt.stderr).toMatch(/checkpoint\.json: version 3 is newer than this memrl reads \(version 1 to 2\)/);

    const spendDir = join(work, 'future-spend');
    cpSync(killed, spendDir, { recursive: true });
    writeFileSync(join(spendDir, 'spend.json'), JSON.stringify({ ...(json(join(killed, 'spend.json')) as object), version: 2 }));
    const spend = await memrl(['run', 'hle', '--resume', spendDir]);
    expect(spend.code).toBe(2);
    expect(spend.stderr).toMatch(/spend\.json: version 2 is newer than this memrl reads \(version 1\)/);
  });

  it('a format-1 folder resumed: its run.json keeps its format, the files written now are the current one', async () => {
    const killed = join(work, 'hle-killed');
    const dir = join(work, 'resume-format-1');
    cpSync(killed, dir, { recursive: true });
    const manifest = json(join(dir, 'run.json')) as { [k: string]: unknown };
    for (const k of ['benchmarkName', 'methodName', 'fidelity', 'prompts', 'cache', 'logFile']) delete manifest[k];
    writeFileSync(join(dir, 'run.json'), JSON.stringify({ ...manifest, memrlRunFormat: 1 }));
    const r = await memrl(['run', 'hle', '--resume', dir]);
    expect(r.code, r.stderr).toBe(0);
    const run = readRunFolder(dir);
    expect(run.manifest).toMatchObject({ memrlRunFormat: 1, resumes: [{ fromEpoch: 1 }] });
    expect(run.summary).toMatchObject({ memrlRunFormat: RUN_FORMAT, status: 'complete', epochsCompleted: 3 });
    expect(readRunFolder(join(work, 'hle', 'hle', readdirSync(join(work, 'hle', 'hle'))[0]!)).metrics.train.last).toBe(run.metrics.train.last);
  });
});
