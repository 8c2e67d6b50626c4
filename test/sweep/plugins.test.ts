/**
 * Plug-ins everywhere the built-ins go (issue 43, item 4), through the built CLI:
 *
 * - the example plug-ins (arithmetic with memrl and with the recent-successes method;
 *   MMLU-Pro on its shipped sample) run as `memrl run`, as cells of a sweep (in one
 *   process, and on two `memrl worker`s on a real Redis, started in another folder) and
 *   as `memrl run --queue`; every way ends in the state `memrl run` leaves, byte for byte
 *   (timestamps, durations and cache provenance aside);
 * - a plug-in benchmark's workerNeeds route its cells and episodes: a worker without
 *   bwrap leaves them waiting on the bwrap queues, one with it plays them;
 * - a plug-in breaking its contract in an episode a worker played stops the run as it
 *   would locally (exit 2, the same one line); its crash's stack reaches the run's log;
 * - `memrl run <plugin> --help` shows the defaults the run would use, no `{a.b}`;
 * - `memrl table` and `memrl report` tell two plug-ins of one display name apart;
 * - `memrl analyze` says what a plug-in method does from its run, not from its name.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SweepState } from '../../src/sweep/state.js';
import { assertBuilt, MEMRL_BIN, runMemrl, type CliResult } from '../helpers/cli.js';
import { eventually } from '../helpers/processes.js';
import { SKIP_REDIS, startRedis, type RedisServer } from '../helpers/redis.js';
import { finalState, firstDifference } from '../helpers/run-state.js';
import { tempDir } from '../helpers/temp.js';
import { requireBwrap } from '../env/require-sandbox.js';

const ARITH = resolve('examples/plugins/arithmetic/index.ts');
const RECENT = resolve('examples/plugins/recent-successes/index.ts');
const MMLU = resolve('examples/plugins/mmlu-pro/index.ts');
const work = tempDir('memrl-plugins-everywhere-');
/** The offline settings, without plug-ins (base.yaml adds MMLU-Pro, relative to `work`). */
const SIM = join(work, 'sim.yaml');
/** Where the workers run: not the sweep's folder, so only absolute paths can reach the plug-ins. */
const elsewhere = join(work, 'elsewhere');

/** The grid every way runs: benchmark × method. */
const COMBOS = [
  { benchmark: 'arithmetic', method: 'memrl' },
  { benchmark: 'arithmetic', method: 'recent' },
  { benchmark: 'mmlu-pro', method: 'memrl' },
  { benchmark: 'mmlu-pro', method: 'recent' },
] as const;
type Combo = (typeof COMBOS)[number];
const label = (c: Combo): string => `${c.benchmark}-${c.method}`;

const memrl = (args: string[], cwd = work): Promise<CliResult> => runMemrl(args, { cwd, timeoutMs: 240_000 });
const resultsOf = (r: CliResult): string => /^results: (\S+)$/m.exec(r.stdout)?.[1] ?? '';
const sweepState = (dir: string): SweepState => JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8')) as SweepState;
const cellRun = (sweepDir: string, cellId: string): string => join(sweepDir, sweepState(sweepDir).cells.find((c) => c.id === cellId)!.runDir!);

/** The plain `memrl run` of a combo (its plug-ins given with --plugin, the base config as --config): what every other way must match. */
const references = new Map<string, string>();

/** A sweep file in its own folder: the arithmetic and recent plug-ins by its plugins: list (relative to it), MMLU-Pro by the base config's memrl.plugins (relative to the working folder). */
function writeSweep(name: string): string {
  const dir = join(work, 'sweeps');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.yaml`);
  const rel = (p: string): string => relative(dir, p);
  writeFileSync(
    file,
    [
      `name: ${name}`,
      `plugins: [${rel(ARITH)}, ${rel(RECENT)}]`,
      'base: ../base.yaml',
      'axes:',
      '  benchmark: [arithmetic, mmlu-pro]',
      '  method: [memrl, recent]',
      '',
    ].join('\n'),
  );
  return file;
}

function sameAsReference(runDir: string, c: Combo, how: string): void {
  expect(runDir, `${how}: ${label(c)} has a run folder`).toBeTruthy();
  const diff = firstDifference(finalState(runDir), finalState(references.get(label(c))!));
  expect(diff, `${how}: ${label(c)} differs from memrl run`).toBeUndefined();
}

beforeAll(async () => {
  assertBuilt();
  mkdirSync(elsewhere, { recursive: true });
  writeFileSync(join(work, 'base.yaml'), ['llm: {provider: sim}', 'embedding: {provider: local}', 'experiment: {num_sections: 2}', `memrl: {limit: 6, plugins: [${relative(work, MMLU)}]}`, ''].join('\n'));
  writeFileSync(SIM, ['llm: {provider: sim}', 'embedding: {provider: local}', 'experiment: {num_sections: 2}', 'memrl: {limit: 6}', ''].join('\n'));
  for (const c of COMBOS) {
    const r = await memrl(['run', c.benchmark, '--plugin', ARITH, '--plugin', RECENT, '--config', 'base.yaml', '--method', c.method, '--output-dir', 'ref']);
    expect(r.code, r.stderr).toBe(0);
    references.set(label(c), resultsOf(r));
  }
}, 300_000);

describe('the example plug-ins in a sweep, in one process', () => {
  it('every cell ends as `memrl run` does', async () => {
    const r = await memrl(['sweep', writeSweep('local'), '--output-dir', 'out']);
    expect(r.code, r.stderr).toBe(0);
    const dir = join(work, 'out', 'local');
    expect(sweepState(dir).cells.map((c) => [c.id, c.status])).toEqual(COMBOS.map((c) => [label(c), 'complete']));
    for (const c of COMBOS) sameAsReference(cellRun(dir, label(c)), c, 'local sweep');
    // Each cell's run records the sweep's plug-ins by absolute path: `--resume` alone brings them back.
    const manifest = JSON.parse(readFileSync(join(cellRun(dir, 'arithmetic-recent'), 'run.json'), 'utf8')) as { plugins: string[] };
    expect(manifest.plugins.sort()).toEqual([ARITH, MMLU, RECENT].sort());
  }, 300_000);

  it('a plug-in path that does not exist (in the sweep file or its base), or plug-ins set per cell: one line naming the sweep file and line, exit 2, no sweep folder', async () => {
    const dir = join(work, 'bad');
    mkdirSync(dir, { recursive: true });
    const missing = join(dir, 'missing.yaml');
    writeFileSync(missing, ['name: missing', 'plugins: [./nope.ts]', 'axes:', '  benchmark: [arithmetic]', ''].join('\n'));
    const a = await memrl(['sweep', missing, '--output-dir', 'bad-out'], dir);
    expect(a.code).toBe(2);
    expect(a.stderr.trim().split('\n')).toEqual([`memrl: ${missing}:2: plugins[0]: ./nope.ts: no such file (${join(dir, 'nope.ts')}; a plug-in is relative to the sweep file's folder); fix the path`]);
    const perCell = join(dir, 'per-cell.yaml');
    writeFileSync(perCell, ['name: per-cell', 'set:', `  memrl.plugins: [${ARITH}]`, 'axes:', '  benchmark: [arithmetic]', ''].join('\n'));
    const b = await memrl(['sweep', perCell, '--output-dir', 'bad-out'], dir);
    expect(b.code).toBe(2);
    expect(b.stderr.trim()).toBe(`memrl: ${perCell}:3: set: memrl.plugins: name the sweep's plug-ins in its top-level plugins: list (every cell loads them)`);
    const base = join(dir, 'gone-base.yaml');
    writeFileSync(base, ['llm: {provider: sim}', 'memrl:', '  plugins: [./gone.ts]', ''].join('\n'));
    const fromBase = join(dir, 'from-base.yaml');
    writeFileSync(fromBase, ['name: from-base', 'base: gone-base.yaml', 'axes:', '  benchmark: [arithmetic]', ''].join('\n'));
    const d = await memrl(['sweep', fromBase, '--output-dir', 'bad-out'], dir);
    expect(d.code).toBe(2);
    expect(d.stderr.trim()).toBe(`memrl: ${base}:3: memrl.plugins[0]: ./gone.ts: no such file (${join(dir, 'gone.ts')}; memrl.plugins is relative to the folder memrl runs in); fix the path`);
    // Without the plug-in, its benchmark is unknown, and the line says where plug-ins are named.
    const none = join(dir, 'none.yaml');
    writeFileSync(none, ['name: none', 'axes:', '  benchmark: [arithmetic]', ''].join('\n'));
    const c = await memrl(['sweep', none, '--output-dir', 'bad-out'], dir);
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/none\.yaml:3: unknown benchmark arithmetic \(known: .*\); a plug-in's are added by the sweep file's plugins: list\n$/);
    expect(readdirSync(dir)).not.toContain('bad-out');
  }, 60_000);
});

describe('memrl analyze describes a plug-in method by what its run did', () => {
  it('recent learned no Q and ranks nothing by similarity; memrl on the same benchmark has a Q-critic', async () => {
    const recent = await memrl(['analyze', references.get('arithmetic-recent')!]);
    expect(recent.code, recent.stderr).toBe(0);
    const line = recent.stdout.split('\n').find((l) => l.startsWith('q-critic'))!;
    expect(line).toMatch(/n\/a: recent learned no Q in this run \(no memory's Q changed\)/);
    expect(line).not.toMatch(/similarity/);
    const learned = await memrl(['analyze', references.get('arithmetic-memrl')!]);
    expect(learned.stdout).toMatch(/^q-critic {4}Q at retrieval vs episode success: Pearson/m);
  }, 60_000);
});

describe('a plug-in in help and tables', () => {
  const probe = (name: string, display: string, extra = ''): string => `const tasks = (n) => Array.from({ length: n }, (_, i) => ({ id: '${name}/' + i, key: 'task ' + i }));
export default {
  kind: 'benchmark', name: '${name}', displayName: '${display}', description: 'a probe',
  resolve: () => ({}),${extra}
  create: () => ({
    name: '${name}', envLabel: '${name}',
    load: async () => ({ train: tasks(3), valid: [], sources: [], splitLabel: 'probe' }),
    episode: async (task, ctx) => {
      const r = await ctx.model.chat({ messages: [{ role: 'user', content: task.key }], tags: { benchmark: '${name}', taskId: task.id, epoch: ctx.epoch, phase: ctx.phase, role: 'agent' } }, ctx.signal);
      return { status: 'pass', success: true, steps: 1, trajectory: r.text, usage: r.usage };
    },
    simPlayer: () => ({ reply: () => 'ok' }),
    describeEvaluator: async () => ({ kind: 'probe' }),
  }),
};
`;

  it('run <plugin> --help fills every default from what the run would use', async () => {
    const dir = join(work, 'help');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'bare.mjs'), probe('bare', 'Bare'));
    const r = await memrl(['run', 'bare', '--plugin', './bare.mjs', '--help'], dir);
    expect(r.code, r.stderr).toBe(0);
    const help = r.stdout.replace(/\s+/g, ' ');
    expect(help).not.toMatch(/\{[a-z_]+\.[a-z_.]+\}/);
    // The schema's defaults under the plug-in's (it sets none): 5 epochs, batches of 32.
    expect(help).toContain('number of epochs (default: experiment.num_sections, else 5)');
    expect(help).toContain('(default: experiment.batch_size, else 32)');
    expect(help).toContain('(default: llm.max_tokens, else the endpoint default)');
  }, 60_000);

  it('two plug-ins of one display name: a column each, headed apart, keyed by id', async () => {
    const dir = join(work, 'twins');
    mkdirSync(dir, { recursive: true });
    for (const name of ['twin-a', 'twin-b']) {
      writeFileSync(join(dir, `${name}.mjs`), probe(name, 'Twin'));
      const r = await memrl(['run', name, '--plugin', `./${name}.mjs`, '--config', SIM, '--output-dir', 'results'], dir);
      expect(r.code, r.stderr).toBe(0);
    }
    const md = await memrl(['table', 'results'], dir);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout.split('\n')[0]).toBe('| Method | Twin (twin-a) Last | Twin (twin-a) CSR | Twin (twin-b) Last | Twin (twin-b) CSR |');
    const csv = await memrl(['table', 'results', '--format', 'csv'], dir);
    const rows = csv.stdout.trim().split('\n').slice(1).map((l) => l.split(','));
    expect(rows.map((r) => `${r[4]}=${r[5]}`).sort()).toEqual(['twin-a=Twin (twin-a)', 'twin-a=Twin (twin-a)', 'twin-b=Twin (twin-b)', 'twin-b=Twin (twin-b)']);
    const report = await memrl(['report', 'results', '--out', 'report.html'], dir);
    expect(report.code, report.stderr).toBe(0);
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toContain('<th>Twin (twin-a) Last</th>');
    expect(html).toContain('<th>Twin (twin-b) Last</th>');
  }, 120_000);
});

describe.skipIf(SKIP_REDIS)('plug-ins on memrl workers through Redis', () => {
  let redis: RedisServer;
  const workers: { child: ChildProcess; log: () => string; exited: Promise<unknown> }[] = [];

  async function startWorker(name: string, without: string): Promise<{ child: ChildProcess; log: () => string }> {
    const child = spawn(process.execPath, [MEMRL_BIN, 'worker', '--queue', redis.url, '--name', name, '--without', without], { cwd: elsewhere, env: { ...process.env, OPENAI_API_KEY: '' } });
    let log = '';
    child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    const w = { child, log: () => log, exited: new Promise((r) => child.on('close', r)) };
    workers.push(w);
    expect(await eventually(() => log.includes('taking cells'), 60_000, 50), log).toBe(true);
    return w;
  }
  const stopWorkers = async (): Promise<void> => {
    for (const w of workers.splice(0)) {
      w.child.kill('SIGTERM');
      await w.exited;
    }
  };

  beforeAll(async () => {
    redis = await startRedis();
  });
  // A test that fails leaves no worker to take the next test's jobs.
  afterEach(stopWorkers);
  afterAll(() => redis?.stop());

  it('a --queue sweep and --queue runs on two workers end as `memrl run` does', async () => {
    // Containers are never needed here: not probing an engine keeps a busy Podman from slowing the start.
    await startWorker('p1', 'containers');
    await startWorker('p2', 'containers');
    const s = await memrl(['sweep', writeSweep('queued'), '--output-dir', 'out', '--queue', redis.url]);
    expect(s.code, s.stderr).toBe(0);
    const dir = join(work, 'out', 'queued');
    expect(sweepState(dir).cells.every((c) => c.status === 'complete' && c.worker && /^p[12]$/.test(c.worker))).toBe(true);
    for (const c of COMBOS) sameAsReference(cellRun(dir, label(c)), c, 'queued sweep');
    for (const c of COMBOS) {
      const r = await memrl(['run', c.benchmark, '--plugin', ARITH, '--plugin', RECENT, '--config', 'base.yaml', '--method', c.method, '--output-dir', 'queued-runs', '--queue', redis.url]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`episodes are played by workers on ${redis.url}`);
      sameAsReference(resultsOf(r), c, 'memrl run --queue');
    }
    const played = workers.map((w) => w.log()).join('');
    expect(played).toMatch(/playing episodes of .*queued-runs\/mmlu-pro\//);
  }, 600_000);

  it("a plug-in's workerNeeds route its cells and episodes: none reaches a worker without bwrap", async () => {
    const bwrap = await requireBwrap();
    if (bwrap.skip) return;
    const dir = join(work, 'needs');
    mkdirSync(dir, { recursive: true });
    const source = readFileSync(ARITH, 'utf8');
    // The arithmetic example, renamed and declaring that its episodes need the sandbox.
    const plugin = join(dir, 'sandboxed.ts');
    writeFileSync(
      plugin,
      source
        .replaceAll("'arithmetic'", "'sandboxed'")
        .replace('tree.memrl.arithmetic', 'tree.memrl.sandboxed')
        .replace("tagFamily: 'other',", "tagFamily: 'other',\n  workerNeeds: () => ['bwrap'],")
        .replace("from 'memrl';", "from 'memrl';\n// generated by test/sweep/plugins.test.ts"),
    );
    expect(readFileSync(plugin, 'utf8')).toContain("workerNeeds: () => ['bwrap']");
    writeFileSync(join(dir, 'needs.yaml'), ['name: needs', 'plugins: [./sandboxed.ts]', `base: ${SIM}`, 'axes:', '  benchmark: [sandboxed]', '  method: [memrl]', ''].join('\n'));
    const plain = await startWorker('no-bwrap', 'bwrap,containers');
    const run = memrl(['run', 'sandboxed', '--plugin', plugin, '--config', SIM, '--output-dir', 'results', '--queue', redis.url], dir);
    const sweep = memrl(['sweep', join(dir, 'needs.yaml'), '--output-dir', 'sweeps', '--queue', redis.url], dir);
    const waiting = async (): Promise<Record<string, number>> => {
      const status = JSON.parse((await memrl(['worker', 'status', '--queue', redis.url, '--json'], dir)).stdout) as { queues: { queue: string; waiting: number }[] };
      return Object.fromEntries(status.queues.map((q) => [q.queue, q.waiting]));
    };
    let seen: Record<string, number> = {};
    const end = Date.now() + 60_000;
    while (Date.now() < end && !((seen['episodes-bwrap'] ?? 0) > 0 && (seen['cells-bwrap'] ?? 0) > 0)) seen = await waiting();
    expect(seen['episodes-bwrap'], JSON.stringify(seen)).toBeGreaterThan(0);
    expect(seen['cells-bwrap'], JSON.stringify(seen)).toBe(1);
    // A moment more: the worker without bwrap still takes none of them.
    await new Promise((r) => setTimeout(r, 2000));
    expect(plain.log()).not.toMatch(/playing episodes of|cell sandboxed/);
    const sandboxed = await startWorker('with-bwrap', 'containers');
    const [r, s] = await Promise.all([run, sweep]);
    expect(r.code, r.stderr).toBe(0);
    expect(s.code, s.stderr).toBe(0);
    expect(sandboxed.log()).toContain(`playing episodes of ${join(dir, 'results', 'sandboxed')}`);
    expect(sandboxed.log()).toContain('cell sandboxed-memrl of needs');
    expect(plain.log()).not.toMatch(/playing episodes of|cell sandboxed/);
  }, 300_000);

  it('a contract violation in an episode a worker played stops the run as locally: exit 2, the same one line; a crash keeps its stack in the run log', async () => {
    const dir = join(work, 'violation');
    mkdirSync(dir, { recursive: true });
    const body = (episode: string): string => `const tasks = (n) => Array.from({ length: n }, (_, i) => ({ id: 't/' + i, key: 'task ' + i }));
export default {
  kind: 'benchmark', name: 'probe', displayName: 'Probe', description: 'a probe',
  resolve: () => ({}),
  create: () => ({
    name: 'probe', envLabel: 'probe',
    load: async () => ({ train: tasks(4), valid: [], sources: [], splitLabel: 'probe' }),
    episode: ${episode},
    simPlayer: () => ({ reply: () => 'ok' }),
    describeEvaluator: async () => ({ kind: 'probe' }),
  }),
};
`;
    writeFileSync(join(dir, 'probe.mjs'), body("async (task) => ({ status: task.id === 't/1' ? 'ok' : 'pass', success: true, steps: 1, trajectory: '', usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } })"));
    writeFileSync(join(dir, 'crash.mjs'), body("async (task) => { if (task.id === 't/2') throw new RangeError('bad luck on ' + task.id); return { status: 'pass', success: true, steps: 1, trajectory: '', usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } }; }").replaceAll("'probe'", "'crashy'"));
    const args = ['run', 'probe', '--plugin', './probe.mjs', '--config', SIM, '--concurrency', '1', '--epochs', '1'];
    const local = await memrl([...args, '--output-dir', 'local'], dir);
    expect(local.code, local.stderr).toBe(2);
    await startWorker('v1', 'containers');
    const queued = await memrl([...args, '--output-dir', 'queued', '--queue', redis.url], dir);
    expect(queued.code, queued.stderr).toBe(2);
    const last = (r: CliResult): string => r.stderr.trim().split('\n').at(-1)!;
    expect(last(queued)).toBe(last(local));
    expect(last(queued)).toMatch(/^memrl: plugin \.\/probe\.mjs: benchmark "probe": episode\(t\/1\) returned a bad EpisodeResult: `status` is "ok"/);
    expect(queued.stderr.split('\n').filter((l) => l.includes('plugin ')).length).toBe(1);

    const crash = await memrl(['run', 'crashy', '--plugin', './crash.mjs', '--config', SIM, '--epochs', '1', '--output-dir', 'crash', '--queue', redis.url], dir);
    expect(crash.code, crash.stderr).toBe(0);
    const runDir = resultsOf(crash);
    const rows = readFileSync(join(runDir, 'outcomes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { taskId: string; status: string; error?: string });
    expect(rows.find((r) => r.taskId === 't/2')).toMatchObject({ status: 'error', error: 'episode crashed: bad luck on t/2' });
    const logged = readFileSync(join(runDir, 'log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event?: string; where?: string; stack?: string; worker?: string });
    const entry = logged.find((l) => l.event === 'plugin_crashed');
    expect(entry).toMatchObject({ where: 'episode(t/2)', worker: 'v1' });
    expect(entry!.stack).toMatch(/RangeError: bad luck on t\/2\n\s+at .*crash\.mjs:\d+/);
  }, 180_000);
});
