/**
 * A run's status comes from evidence in its folder (src/results/run-status.ts), the same
 * in every reader: `memrl table` (its marks), `memrl view` (its API), `memrl compare`
 * (what it refuses) and `memrl sweep status`. Four runs through the built CLI: one
 * complete, one killed with kill -9 (MEMRL_CRASH_AT), one that a plug-in's fault ends
 * with exit 2 mid-way, one held running by a loopback endpoint that does not answer yet;
 * and a sweep killed while its first cell ran. HLE with the fixture questions.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, MEMRL_BIN, runAsync, runMemrl, type CliResult } from '../helpers/cli.js';
import { startOpenAIServer, type OpenAITestServer } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp.js';

let work: string;
const RUN = ['run', 'hle', '--num-train', '4', '--batch-size', '4'];
const runIn = (out: string): string => {
  const dir = join(work, out, 'hle');
  return join(dir, readdirSync(dir)[0]!);
};

interface ViewRun {
  status: string;
  statusReason?: string;
}

/** `memrl view` on the folder: its runs as the API serves them. */
async function viewRuns(dir: string): Promise<ViewRun[]> {
  const child: ChildProcess = spawn(process.execPath, [MEMRL_BIN, 'view', dir, '--port', '0'], { cwd: work });
  try {
    const url = await new Promise<string>((done, fail) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /memrl view: (http:\/\/\S+)/.exec(out);
        if (m) done(m[1]!.replace(/\/$/, ''));
      });
      child.on('exit', (code) => fail(new Error(`memrl view exited ${code}`)));
    });
    return (await (await fetch(`${url}/api/runs`)).json()) as ViewRun[];
  } finally {
    child.kill();
  }
}

/** The table's cell for the run: its marks say unfinished (§) or failed (¶). */
async function tableMarks(dir: string): Promise<string> {
  const r = await runMemrl(['table', dir], { cwd: work });
  expect(r.code, r.stderr).toBe(0);
  const cell = /^\| (?!Method|-)[^|]+ \| ([^|]+) \|/m.exec(r.stdout);
  expect(cell, r.stdout).not.toBeNull();
  return /([†§¶]*)$/.exec(cell![1]!.trim())![1]!;
}

const compareWithItself = (dir: string): Promise<CliResult> => runMemrl(['compare', dir, dir], { cwd: work });

beforeAll(() => {
  assertBuilt();
  work = tempDir('memrl-status-');
});

describe('a run says what it is: running, interrupted, failed (with the reason) or complete, in every reader', () => {
  it('complete', async () => {
    const r = await runMemrl([...RUN, '--epochs', '2', '--output-dir', 'complete'], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    const dir = runIn('complete');
    expect(await viewRuns(dir)).toMatchObject([{ status: 'complete' }]);
    expect(await tableMarks(dir)).toBe('†');
    expect((await compareWithItself(dir)).code).toBe(0);
  }, 120_000);

  it('killed with kill -9 after its first epoch: interrupted, resumable, never running', async () => {
    const r = await runMemrl([...RUN, '--epochs', '3', '--output-dir', 'killed'], { cwd: work, env: { ...process.env, MEMRL_CRASH_AT: 'checkpoint:1' } });
    expect(r.code).toBe(null);
    const dir = runIn('killed');
    expect(existsSync(join(dir, '.lock'))).toBe(true);
    const [run] = await viewRuns(dir);
    expect(run!.status).toBe('interrupted');
    expect(run!.statusReason).toMatch(/^its process \(pid \d+, since .*\) ended without recording an end \(killed, or the machine stopped\); --resume continues from its checkpoint and journal$/);
    expect(await tableMarks(dir)).toBe('†§');
    const c = await compareWithItself(dir);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain(`baseline run ${dir.split('/').at(-1)} is not complete (interrupted: its process`);
    expect(c.stderr).toContain(`finish it first: memrl run hle --resume ${dir}`);
  }, 120_000);

  it('ended by a fault with exit 2 in its second epoch: failed, with the reason recorded and shown', async () => {
    // A plug-in method whose second commit throws (the fault of a part, mid-way).
    writeFileSync(
      join(work, 'boom.ts'),
      `import { recent } from '${resolve('examples/plugins/recent-successes/index.ts')}';\n` +
        `export const boom = { ...recent, name: 'boom', displayName: 'Boom', description: 'throws in its second commit (a test plug-in)',\n` +
        `  create: async (ctx) => { const inner = await recent.create(ctx); let n = 0;\n` +
        `    return { ...inner, commit(e, at) { if (++n > 1) throw new Error('boom: broke in commit'); return inner.commit(e, at); } }; } };\n`,
    );
    const r = await runMemrl([...RUN, '--epochs', '3', '--plugin', 'boom.ts', '--method', 'boom', '--output-dir', 'failed'], { cwd: work });
    expect(r.code, r.stderr).toBe(2);
    const dir = runIn('failed');
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { status: string; failure: string; epochsCompleted: number };
    expect(summary).toMatchObject({ status: 'failed', epochsCompleted: 1 });
    expect(summary.failure).toMatch(/commit\(\) threw: boom: broke in commit/);
    expect(existsSync(join(dir, '.lock'))).toBe(false);
    expect(await viewRuns(dir)).toMatchObject([{ status: 'failed', statusReason: summary.failure }]);
    expect(await tableMarks(dir)).toBe('†¶');
    const c = await compareWithItself(dir);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain(`failed (${summary.failure}); resume it once the cause is fixed`);
  }, 120_000);

  describe('still running (its endpoint holds every call)', () => {
    let server: OpenAITestServer;
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));

    beforeAll(async () => {
      server = await startOpenAIServer({
        chat: async (req) => {
          await held;
          return JSON.stringify(req.body).includes('<reference_answer>')
            ? JSON.stringify({ extracted_final_answer: 'A', reasoning: 'r', correct: 'yes', confidence: 90 })
            : 'Answer: A\nConfidence: 90%';
        },
      });
    });
    afterAll(async () => {
      release();
      await server?.close();
    });

    it('running while its process lives, complete once it ends', async () => {
      writeFileSync(join(work, 'slow.yaml'), `llm:\n  provider: openai\n  api_key: sk-test-aaaa\n  base_url: ${server.url}\n  model: m\nembedding:\n  provider: local\n`);
      const running = runAsync(process.execPath, [MEMRL_BIN, ...RUN, '--train', resolve('test/fixtures/hle/hle_snappy.parquet'), '--epochs', '1', '--config', 'slow.yaml', '--output-dir', 'running'], { cwd: work, env: { ...process.env, OPENAI_API_KEY: '' } });
      let ended: CliResult | undefined;
      void running.then((r) => (ended = r));
      for (let i = 0; i < 600 && server.chatRequests().length === 0 && !ended; i++) await new Promise((r) => setTimeout(r, 100));
      expect(ended?.stderr).toBeUndefined();
      const dir = runIn('running');
      const [run] = await viewRuns(dir);
      expect(run!.status).toBe('running');
      expect(run!.statusReason).toMatch(/^pid \d+ on \S+ \(memrl run, run hle, since /);
      expect(await tableMarks(dir)).toBe('§');
      const c = await compareWithItself(dir);
      expect(c.code).toBe(2);
      expect(c.stderr).toContain('is still running (pid ');
      release();
      const done = await running;
      expect(done.code, done.stderr).toBe(0);
      expect(await viewRuns(dir)).toMatchObject([{ status: 'complete' }]);
      expect(await tableMarks(dir)).toBe('');
    }, 180_000);
  });

  it('`memrl sweep status` after the sweep was killed: the killed cell interrupted, the one never started pending', async () => {
    writeFileSync(join(work, 'grid.yaml'), 'name: grid\nset:\n  llm.provider: sim\n  embedding.provider: local\n  memrl.hle.num_train: 4\n  experiment.num_sections: 3\naxes:\n  benchmark: [hle]\n  method: [none]\n  seed: [1, 2]\n');
    const r = await runMemrl(['sweep', 'grid.yaml', '--output-dir', 'sweeps', '--max-runs', '1'], { cwd: work, env: { ...process.env, MEMRL_CRASH_AT: 'checkpoint:1' } });
    expect(r.code).toBe(null);
    const written = JSON.parse(readFileSync(join(work, 'sweeps', 'grid', 'sweep.json'), 'utf8')) as { cells: { status: string }[] };
    expect(written.cells.map((c) => c.status)).toContain('running');
    const s = await runMemrl(['sweep', 'status', join('sweeps', 'grid')], { cwd: work });
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toMatch(/: 1 interrupted, 1 pending of 2 cells/);
    expect(s.stdout).toMatch(/hle-none-s1 +hle +none +1 +interrupted +1\/3/);
    expect(s.stdout).toMatch(/hle-none-s2 +hle +none +2 +pending +0\/\?/);
    expect(s.stdout).not.toMatch(/running/);
  }, 120_000);
});
