/**
 * Crash safety: `kill -9` a real `memrl run` at random moments, `--resume` it until it
 * finishes, and compare the final state with an uninterrupted run of the same command,
 * byte for byte once timestamps, durations and cache provenance are removed.
 *
 * Kills land at seeded random times, and (MEMRL_CRASH_AT, the runner's test hook) in
 * the narrow windows on purpose: right after an episode is journaled, between a
 * barrier's rows and its journal line, between the epoch's derived files and its
 * checkpoint, between the checkpoint and the journal reset, before the final summary.
 * Every scenario kills at least twice in a row.
 *
 * ALFWorld's offline household stand-in with the sim model: multi-turn episodes
 * (traces.jsonl), memory writing, validation before and after each epoch, several
 * batches per epoch running concurrently; the whole run takes about a second. Needs
 * the built bin/memrl.js (npm run build) and python3 (the stand-in's bridge).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../src/util/rng.js';
import { finalState, firstDifference } from '../helpers/run-state.js';

const BIN = resolve('bin/memrl.js');
const work = mkdtempSync(join(tmpdir(), 'memrl-kill-'));
const CONFIG = 'llm: {provider: sim}\nembedding: {provider: local}\nmemrl:\n  alfworld:\n    env: standin\n    games_per_type: {train: 2, valid_seen: 1, valid_unseen: 1}\n';
const ARGS = ['run', 'alfworld', '--config', 'cfg.yaml', '--method', 'memrl', '--epochs', '3', '--batch-size', '3', '--concurrency', '2'];
const SEEDS = [1, 2, 3];
/** Two crash points in a row (<point>:<n-th time>), then a run to the end. 12 train tasks, 4 barriers and 24 episodes per epoch. */
const WINDOWS: [string, string][] = [
  ['journaled:20', 'journaled:2'],
  ['barrier:6', 'barrier:1'],
  ['epoch-outputs:2', 'checkpoint:1'],
  ['checkpoint:3', 'end:1'],
];

beforeAll(() => {
  if (!existsSync(resolve('dist/src/runner/journal.js'))) throw new Error('build first: npm run build');
  writeFileSync(join(work, 'cfg.yaml'), CONFIG);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** From the banner to the exit. */
  ms: number;
}

/**
 * Run memrl; with `killAfterMs`, SIGKILL its whole process group (the node process and
 * its Python bridges) that long after it printed its banner (tasks loaded: the time
 * node takes to start varies too much on a busy machine); with `crashAt`, it kills
 * itself there.
 */
function memrl(args: string[], killAfterMs?: number, crashAt?: string): Promise<Exit> {
  return new Promise((done) => {
    const env = { ...process.env, MEMRL_CRASH_AT: crashAt ?? '' };
    const child = spawn(process.execPath, [BIN, ...args], { cwd: work, env, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    const kill = (): void => {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        // already gone: it finished first
      }
    };
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    let banner = Date.now();
    child.stderr.on('data', (d: Buffer) => {
      const before = stderr.includes('run folder:');
      stderr += d.toString();
      if (before || !stderr.includes('run folder:')) return;
      banner = Date.now();
      if (killAfterMs !== undefined) timer = setTimeout(kill, killAfterMs);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      kill(); // the bridges of a process that killed itself
      done({ code, signal, stderr, ms: Date.now() - banner });
    });
  });
}

/** The run folder under an output dir, if the run got far enough to create it (never a half-made `.tmp-` one). */
function runFolder(out: string): string | undefined {
  const root = join(work, out, 'alfworld');
  const dirs = existsSync(root) ? readdirSync(root).filter((d) => !d.includes('.tmp-')) : [];
  expect(dirs.length).toBeLessThanOrEqual(1);
  return dirs[0] === undefined ? undefined : join(root, dirs[0]);
}

/** The same command: fresh while no run folder exists, else --resume. */
function attempt(out: string, killAfterMs?: number, crashAt?: string): Promise<Exit> {
  const dir = runFolder(out);
  return memrl([...ARGS, '--output-dir', out, ...(dir ? ['--resume', dir] : [])], killAfterMs, crashAt);
}

/** Resume to the end and compare with the uninterrupted run; returns the journaled episodes each resume took over. */
async function finish(out: string, reference: Record<string, unknown>): Promise<number[]> {
  const last = await attempt(out);
  expect(last.stderr, out).toMatch(/done: 3\/3/);
  const dir = runFolder(out) as string;
  expect(firstDifference(finalState(dir), reference), out).toBeUndefined();
  const resumes = (JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { resumes?: { journaled: number }[] }).resumes ?? [];
  return resumes.map((x) => x.journaled);
}

describe('kill -9, then --resume until done', () => {
  let reference: Record<string, unknown>;
  /** How long the run takes after its banner. */
  let runMs = 0;

  beforeAll(async () => {
    const r = await attempt('ref');
    expect(r.stderr).toMatch(/done: 3\/3/);
    runMs = r.ms;
    reference = finalState(runFolder('ref') as string);
    // One transcript per outcome row, so the comparisons below cover them.
    expect((reference.transcripts as unknown[]).length).toBe((reference.outcomes as unknown[]).length);
  }, 120_000);

  it('in the narrow windows: ends in the state of the uninterrupted run', async () => {
    const journaled: number[][] = [];
    for (const [first, second] of WINDOWS) {
      const out = `at-${first}-${second}`.replace(/:/g, '');
      for (const point of [first, second]) {
        const r = await attempt(out, undefined, point);
        expect(r.signal, `${out}: ${point} not reached; ${r.stderr}`).toBe('SIGKILL');
      }
      journaled.push(await finish(out, reference));
    }
    // Killed after the 20th finished episode was journaled (12 validation, 8 of epoch 1): the
    // first resume took all of them over, the second those plus the 2 the first one finished.
    // At concurrency 2 the other episode's entry may share the 20th's flush (group commit):
    // then it is on disk too, and taken over as well.
    const [first, second] = journaled[0] as [number, number];
    expect(first === 20 || first === 21, `first resume took over ${first}`).toBe(true);
    expect(second - first === 2 || second - first === 3, `second resume took over ${second}`).toBe(true);
  }, 240_000);

  it('at random moments: ends in the state of the uninterrupted run, no task lost or run twice', async () => {
    for (const seed of SEEDS) {
      const rng = new Rng(seed);
      const out = `random-${seed}`;
      // Two to four kills in a row, anywhere from the banner (tasks loaded) to past the end of a run.
      const kills = 2 + rng.int(3);
      for (let k = 0; k < kills; k++) {
        const r = await attempt(out, Math.round(rng.next() * 1.1 * runMs));
        expect(r.code === 0 || r.signal === 'SIGKILL', `${out} kill ${k}: ${r.stderr}`).toBe(true);
        if (r.code === 0) break; // it finished before the kill
      }
      await finish(out, reference);
    }
  }, 240_000);
});
