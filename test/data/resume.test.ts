/**
 * `--resume` reads the data the run started with, or refuses in one line naming the file
 * and both checksums: BigCodeBench's tasks (.jsonl.gz; the same records recompressed are
 * the same data) and HLE's Parquet. The built CLI with the simulator.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedDataDir } from '../../src/util/paths.js';
import { assertBuilt, runMemrl, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const MIRROR_TASKS = join(sharedDataDir(), 'bigcodebench', 'bigcodebench_full.jsonl.gz');

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function runDirOf(r: CliResult): string {
  return /results: (.+)/.exec(r.stdout)![1]!.trim();
}

function expectRefused(r: CliResult, run: string, file: string, was: string, now: string): void {
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toBe(`memrl: --resume ${run}: ${file} is not the data the run started with (sha256 ${was} in run.json, ${now} now); restore that file, or start a new run`);
}

describe('--resume on other data', () => {
  beforeAll(() => assertBuilt());

  it.skipIf(!existsSync(MIRROR_TASKS))("refuses BigCodeBench tasks that changed, and accepts the same records recompressed", async () => {
    const dir = tempDir('memrl-resume-bcb-');
    const tasks = join(dir, 'tasks.jsonl.gz');
    copyFileSync(MIRROR_TASKS, tasks);
    const started = sha256(tasks);
    const first = await runMemrl(['run', 'bcb', '--data-path', tasks, '--limit', '1', '--epochs', '1', '--output-dir', 'out'], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    const run = runDirOf(first);

    const records = gunzipSync(readFileSync(tasks));
    writeFileSync(tasks, gzipSync(records, { level: 1 }));
    expect(sha256(tasks)).not.toBe(started);
    const same = await runMemrl(['run', 'bcb', '--resume', run, '--epochs', '2'], { cwd: dir });
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).toMatch(/done: 2\/2/);

    const text = records.toString('utf8');
    const i = text.indexOf('Calculates the average');
    writeFileSync(tasks, gzipSync(Buffer.from(text.slice(0, i) + 'Computes the average' + text.slice(i + 'Calculates the average'.length), 'utf8')));
    const other = await runMemrl(['run', 'bcb', '--resume', run, '--epochs', '3'], { cwd: dir });
    expectRefused(other, run, tasks, started, sha256(tasks));
  });

  it("refuses HLE questions that changed", async () => {
    const dir = tempDir('memrl-resume-hle-');
    const questions = join(dir, 'questions.parquet');
    copyFileSync(join('test', 'fixtures', 'hle', 'hle_snappy.parquet'), questions);
    const started = sha256(questions);
    const first = await runMemrl(['run', 'hle', '--train', questions, '--num-train', '4', '--epochs', '1', '--output-dir', 'out'], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    const run = runDirOf(first);

    copyFileSync(join('test', 'fixtures', 'hle', 'hle_zstd.parquet'), questions);
    const other = await runMemrl(['run', 'hle', '--resume', run, '--epochs', '2'], { cwd: dir });
    expectRefused(other, run, questions, started, sha256(questions));
  });
});
