/**
 * Same commands, two builds: runs each case below with a baseline checkout's
 * bin/memrl.js and with this checkout's, then compares the run folders byte for byte
 * once wall times, timestamps, paths, run names and the memrl commit are masked
 * (scripts/identical/run-folder-diff.ts), and the terminal output with durations masked.
 * For refactors that must not change behaviour.
 *
 *   npm run build && node dist/scripts/check-identical.js --baseline ../baseline [--only hle-,main] [--ignore-keys memrlRunFormat] [--redis redis://127.0.0.1:6379] [--keep]
 *
 * --ignore-keys leaves keys out of every JSON file on both sides: for a change that is
 * meant to alter a file's format (and only that), e.g. the run-folder format number.
 *
 * The baseline must be built (its dist/). Offline throughout: the sim model and the
 * local embedder; BCB in the bubblewrap sandbox, LLB db on the local MariaDB, LLB os in
 * the rootfs sandbox, ALFWorld's stand-in; the queue case needs Redis and starts one
 * `memrl worker` of the same build. Exit code 1 when any case differs.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { compareRunFolders, firstDifference, maskStderr } from './identical/run-folder-diff.js';

const HERE = resolve(import.meta.dirname, '..', '..');
// A copy outside both checkouts: each build names its own fixture by its path, so either checkout's copy would read as different.
const HLE = join(mkdtempSync(join(tmpdir(), 'memrl-identical-hle-')), 'hle_snappy.parquet');
copyFileSync(join(HERE, 'test/fixtures/hle/hle_snappy.parquet'), HLE);
const SIM = 'llm: {provider: sim}\nembedding: {provider: local}\n';
const ALF = `${SIM}memrl:\n  alfworld:\n    env: standin\n    games_per_type: {train: 2, valid_seen: 1, valid_unseen: 1}\n`;
const METHODS = ['none', 'rag', 'memp', 'memrl', 'passk', 'reflection', 'selfrag', 'mem0'];

interface Step {
  /** MEMRL_CRASH_AT: the run kills itself there (the runner's crash-safety hook); the next step resumes. */
  crashAt?: string;
}

interface Case {
  name: string;
  bench: string;
  args: string[];
  /** Attempts in a row: the first fresh, each later one with --resume. Default: one. */
  steps?: Step[];
  /** Episodes on a `memrl worker` through this Redis. */
  queue?: boolean;
  /** Keys masked in this case only, and why they legitimately differ. */
  alsoMasked?: { keys: string[]; files: string[]; why: string };
}

/**
 * The billed calls of every attempt (the ledger's `spend`, spend.json) are saved at most
 * once a second (llm/budget.ts): how many of a killed attempt's calls reached the file
 * depends on the wall clock.
 */
const SPEND_AFTER_KILL = { keys: ['spend'], files: ['spend.json'], why: 'spend saved on a timer before each kill' };

const hle = (method: string, concurrency: number, extra: string[] = []): string[] => [
  'run', 'hle', '--config', 'sim.yaml', '--train', HLE, '--train_valid_split', '0.5', '--method', method,
  '--epochs', '3', '--batch-size', '4', '--concurrency', String(concurrency), ...extra,
];
const bcb = (method: string, concurrency: number): string[] => ['run', 'bcb', '--config', 'sim.yaml', '--method', method, '--limit', '6', '--epochs', '2', '--concurrency', String(concurrency)];
const alf = (concurrency: number): string[] => ['run', 'alfworld', '--config', 'alf.yaml', '--method', 'memrl', '--epochs', '3', '--batch-size', '3', '--concurrency', String(concurrency)];

const CASES: Case[] = [
  { name: 'main', bench: 'bcb', args: ['run', 'bcb', '--config', 'sim.yaml', '--epochs', '3', '--limit', '50'] },
  ...METHODS.flatMap((m) => [1, 4].map((c): Case => ({ name: `hle-${m}-c${c}`, bench: 'hle', args: hle(m, c) }))),
  ...METHODS.map((m): Case => ({ name: `bcb-${m}-c4`, bench: 'bcb', args: bcb(m, 4) })),
  { name: 'bcb-memrl-c1', bench: 'bcb', args: bcb('memrl', 1) },
  { name: 'hle-reward-noise', bench: 'hle', args: hle('memrl', 4, ['--reward-noise', '0.3']) },
  { name: 'llb-db-c4', bench: 'llb', args: ['run', 'llb', '--config', 'sim.yaml', '--task', 'db', '--limit', '5', '--epochs', '2', '--run-validation', '--concurrency', '4'] },
  { name: 'llb-os-c1', bench: 'llb', args: ['run', 'llb', '--config', 'sim.yaml', '--task', 'os', '--limit', '3', '--epochs', '2', '--concurrency', '1'] },
  { name: 'alfworld-c4', bench: 'alfworld', args: alf(4) },
  { name: 'alfworld-c1', bench: 'alfworld', args: alf(1) },
  // Killed at the runner's narrow windows, resumed each time: one episode at a time, so each kill lands on the same episode in both builds.
  { name: 'alfworld-kill-resume-c1', bench: 'alfworld', args: alf(1), steps: [{ crashAt: 'journaled:20' }, { crashAt: 'barrier:2' }, { crashAt: 'epoch-outputs:1' }, { crashAt: 'checkpoint:1' }, { crashAt: 'end:1' }, {}], alsoMasked: SPEND_AFTER_KILL },
  // At a barrier every episode of the batch is journaled, whatever order they finished in.
  { name: 'hle-kill-resume-c4', bench: 'hle', args: hle('memrl', 4), steps: [{ crashAt: 'barrier:3' }, { crashAt: 'journaled:5' }, { crashAt: 'epoch-outputs:2' }, {}], alsoMasked: SPEND_AFTER_KILL },
  { name: 'alfworld-queue', bench: 'alfworld', args: alf(4), queue: true },
];

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

function memrl(bin: string, args: string[], cwd: string, crashAt = ''): Promise<Exit> {
  return new Promise((done) => {
    const env = { ...process.env, OPENAI_API_KEY: '', MEMRL_CRASH_AT: crashAt };
    const child = spawn(process.execPath, [bin, ...args], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('close', (code, signal) => done({ code, signal, stderr }));
  });
}

/** A `memrl worker` of this build on the queue, until the returned stop is called (which resolves to its terminal output). */
async function startWorker(bin: string, cwd: string, queue: string, name: string): Promise<() => Promise<string>> {
  const child = spawn(process.execPath, [bin, 'worker', '--queue', queue, '--name', name, '--without', 'containers'], { cwd, env: { ...process.env, OPENAI_API_KEY: '' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const exited = new Promise<void>((r) => child.on('close', () => r()));
  await new Promise<void>((ready, fail) => {
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      log += d;
      if (log.includes('taking cells')) ready();
    });
    void exited.then(() => fail(new Error(`memrl worker exited: ${log}`)));
  });
  return async () => {
    child.kill('SIGTERM');
    await exited;
    return log;
  };
}

/** The one run folder a case made. */
function runFolderOf(cwd: string, bench: string): string | undefined {
  const root = join(cwd, 'out', bench);
  const dirs = existsSync(root) ? readdirSync(root).filter((d) => !d.includes('.tmp-')) : [];
  if (dirs.length > 1) throw new Error(`${root}: ${dirs.length} run folders, expected one`);
  return dirs[0] === undefined ? undefined : join(root, dirs[0]);
}

interface Played {
  dir: string;
  /** Each attempt's exit and masked terminal output. */
  exits: string[];
}

async function play(c: Case, bin: string, cwd: string, opts: { redis: string; side: string }): Promise<Played> {
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, 'sim.yaml'), SIM);
  writeFileSync(join(cwd, 'alf.yaml'), ALF);
  const stopWorker = c.queue ? await startWorker(bin, cwd, opts.redis, `check-${opts.side}`) : undefined;
  const exits: Exit[] = [];
  let workerLog = '';
  try {
    for (const step of c.steps ?? [{}]) {
      const dir = runFolderOf(cwd, c.bench);
      const args = [...c.args, '--output-dir', 'out', ...(dir ? ['--resume', dir] : []), ...(c.queue ? ['--queue', opts.redis] : [])];
      exits.push(await memrl(bin, args, cwd, step.crashAt));
    }
  } finally {
    workerLog = (await stopWorker?.()) ?? '';
  }
  const dir = runFolderOf(cwd, c.bench);
  if (!dir) throw new Error(`${c.name}: no run folder under ${cwd}/out/${c.bench}; ${exits.at(-1)?.stderr}`);
  // Another worker on the same Redis could have taken the jobs: this build's worker must have played them.
  if (c.queue && !workerLog.includes(`playing episodes of ${dir}`)) throw new Error(`${c.name}: the ${opts.side}'s worker played none of the run's episodes; ${workerLog}`);
  const side = { root: cwd, runName: basename(dir) };
  return { dir, exits: exits.flatMap((e, i) => [`attempt ${i + 1}: code ${e.code} signal ${e.signal}`, ...maskStderr(e.stderr, side)]) };
}

function flags(argv: string[]): { baseline: string; only: string[]; ignored: string[]; redis: string; keep: boolean } {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const baseline = value('--baseline');
  if (!baseline) throw new Error('give --baseline <a built checkout of the commit to compare with>');
  const bin = resolve(baseline, 'bin/memrl.js');
  if (!existsSync(bin) || !existsSync(resolve(baseline, 'dist/src/cli/main.js'))) throw new Error(`--baseline ${baseline}: no built memrl there (bin/memrl.js and dist/)`);
  return { baseline: resolve(baseline), only: (value('--only') ?? '').split(',').filter(Boolean), ignored: (value('--ignore-keys') ?? '').split(',').filter(Boolean), redis: value('--redis') ?? 'redis://127.0.0.1:6379', keep: argv.includes('--keep') };
}

/** Both builds run the case (in folders of their own under `root`); what differs between their run folders and terminal lines. */
async function runCase(c: Case, root: string, bins: { baseline: string; candidate: string }, redis: string, ignored: string[]): Promise<{ diffs: string[]; timedOut: boolean }> {
  const base = await play(c, bins.baseline, join(root, 'baseline', c.name), { redis, side: 'baseline' });
  const cand = await play(c, bins.candidate, join(root, 'candidate', c.name), { redis, side: 'candidate' });
  const also = c.alsoMasked?.keys ?? [];
  const diffs = compareRunFolders(
    { dir: base.dir, side: { root: join(root, 'baseline', c.name), runName: basename(base.dir), alsoMasked: also, ignored } },
    { dir: cand.dir, side: { root: join(root, 'candidate', c.name), runName: basename(cand.dir), alsoMasked: also, ignored } },
    c.alsoMasked?.files,
  );
  const terminal = firstDifference(base.exits, cand.exits);
  if (terminal) diffs.push(`terminal output: ${terminal}`);
  return { diffs, timedOut: timedOut(base.dir) || timedOut(cand.dir) };
}

/** Some episode ended in `timeout` (an evaluator's wall-clock limit: on a busy machine, a matter of load). */
const timedOut = (dir: string): boolean => readFileSync(join(dir, 'outcomes.jsonl'), 'utf8').includes('"status":"timeout"');

async function main(): Promise<void> {
  const opts = flags(process.argv.slice(2));
  const cases = CASES.filter((c) => opts.only.length === 0 || opts.only.some((o) => c.name.startsWith(o)));
  const root = mkdtempSync(join(tmpdir(), 'memrl-identical-'));
  const bins = { baseline: join(opts.baseline, 'bin/memrl.js'), candidate: join(HERE, 'bin/memrl.js') };
  let differing = 0;
  try {
    for (const c of cases) {
      const t0 = performance.now();
      let { diffs, timedOut: slow } = await runCase(c, root, bins, opts.redis, opts.ignored);
      // A difference where an episode hit its time limit says how busy the machine was: the case runs again, once.
      const retried = diffs.length > 0 && slow;
      if (retried) {
        rmSync(join(root, 'baseline', c.name), { recursive: true, force: true });
        rmSync(join(root, 'candidate', c.name), { recursive: true, force: true });
        ({ diffs } = await runCase(c, root, bins, opts.redis, opts.ignored));
      }
      const secs = ((performance.now() - t0) / 1000).toFixed(1);
      const notes = [`${secs} s`, ...(retried ? ['run twice: an episode timed out in the first'] : []), ...(c.alsoMasked ? [`also masked: ${[...c.alsoMasked.keys, ...c.alsoMasked.files].join(', ')} (${c.alsoMasked.why})`] : [])];
      if (diffs.length === 0) console.log(`identical  ${c.name} (${notes.join('; ')})`);
      else {
        differing++;
        console.log(`DIFFERENT  ${c.name} (${notes.join('; ')})\n${diffs.map((d) => `    ${d}`).join('\n')}`);
      }
    }
    const ignoring = opts.ignored.length ? ` (ignoring ${opts.ignored.join(', ')})` : '';
    console.log(`${cases.length - differing} of ${cases.length} cases identical${ignoring}${opts.keep ? `; run folders kept in ${root}` : ''}`);
    if (differing > 0) process.exitCode = 1;
  } finally {
    if (!opts.keep) rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(`check-identical: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 2;
});
