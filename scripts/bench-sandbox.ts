/**
 * Speed of the BigCodeBench sandbox on the canonical solutions of the first N tasks
 * (default 100, 2 at a time): the plain path (a fresh sandbox and interpreter per
 * test) against the fork server (children of a warm interpreter), with the verdicts
 * of both compared task by task. The fork server runs three times: with the tasks
 * started in id order (as BigCodeBench's checker starts them), by the durations shipped
 * in data/bcb-gold-durations.json (as `memrl check-gold` starts a machine's first
 * check), and slowest first by the id-order pass's durations (as it orders them from its
 * second check on). With --bigcodebench <checkout of bigcode-project/bigcodebench>
 * (or $BIGCODEBENCH_SRC) it also times BigCodeBench's own untrusted_check on the same
 * tasks with the same number of workers, as its evaluate.py runs it (unsandboxed, on
 * this machine's /usr/bin/python3). With --rounds N the fork server's three passes and
 * BigCodeBench's checker run N times, taken in turn, and the ratios are given per round
 * and as their median: this machine's speed drifts by 10% and more within minutes, so
 * one round's ratio is a sample, not a result. Prints numbers; asserts nothing.
 *
 *   npm run bench:sandbox [-- --limit 100 --concurrency 2 --evaluator local --bigcodebench <dir> --rounds 3]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { mean, quantiles, type Quantiles } from '../src/analysis/stats.js';
import { checkGoldBcb, type GoldReport } from '../src/bench/bcb/check-gold.js';
import { readBcbTasks, compareTaskIds } from '../src/bench/bcb/dataset.js';
import { BCB_IMAGE } from '../src/bench/bcb/config.js';
import { BCB_ROLE, BcbEvaluator, defaultDockerSettings } from '../src/bench/bcb/evaluator.js';
import { DockerPythonTestRunner } from '../src/env/python-tests/docker.js';
import { forkServerSource, type ForkServerStats } from '../src/env/python-tests/fork-server.js';
import { LocalPythonTestRunner } from '../src/env/python-tests/local.js';
import { asset } from '../src/util/paths.js';

const { values } = parseArgs({
  options: {
    limit: { type: 'string', default: '100' },
    concurrency: { type: 'string', default: '2' },
    evaluator: { type: 'string', default: 'local' },
    timeout: { type: 'string', default: '60' },
    bigcodebench: { type: 'string' },
    rounds: { type: 'string', default: '1' },
  },
});
const limit = Number(values.limit);
const concurrency = Number(values.concurrency);
const backend = values.evaluator === 'docker' ? 'docker' : 'local';
const timeoutSec = Number(values.timeout);
const checkout = values.bigcodebench ?? process.env.BIGCODEBENCH_SRC;
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) {
  console.error(`--rounds ${values.rounds}: give a whole number of rounds, 1 or more`);
  process.exit(2);
}

interface Timed {
  label: string;
  wallMs: number;
  verdicts: Map<string, string>;
}

/**
 * Our path over the tasks. Tasks start in id order, as BigCodeBench's checker starts
 * them, unless `durations` holds an earlier pass's times (then slowest first, as
 * `memrl check-gold` orders them from its second check on) or `shipped` is set (then
 * by memrl's shipped durations where `durations` has none, as a first check starts
 * them). This pass's durations are kept in `durations`.
 */
async function ours({ forkServer, durations, label, shipped = false }: { forkServer: boolean; durations: string; label?: string; shipped?: boolean }): Promise<Timed & { report: GoldReport }> {
  // Our own runner, to read where the fork servers' time went.
  const runner =
    backend === 'local'
      ? new LocalPythonTestRunner({ forkServer, timeoutSec })
      : new DockerPythonTestRunner({ forkServer, timeoutSec, docker: { settings: defaultDockerSettings(), image: BCB_IMAGE, role: BCB_ROLE, concurrency } });
  const evaluator = new BcbEvaluator(backend, Promise.resolve(runner), timeoutSec);
  let report: GoldReport;
  let s: ForkServerStats | undefined;
  try {
    report = await checkGoldBcb({ subset: 'full', mode: 'reference', concurrency, limit, timeoutSec, evaluator, durationsPath: durations, shippedDurations: shipped });
    s = runner.forkServerStats();
  } finally {
    await evaluator.close();
  }
  if (s && forkServer) {
    const tests = report.results.reduce((sum, r) => sum + r.durationMs, 0);
    console.log(
      `fork servers: ${s.started} started (${(s.startMs / 1000).toFixed(1)} s to start and warm up), ${s.served} runs served, ${s.missed} played in fresh sandboxes; ` +
        `tests ${(tests / 1000).toFixed(1)} s, ${s.templates} templates made in ${(s.prepareMs / 1000).toFixed(1)} s (holding up to ${s.templateMbPeak} MB in one server), clean-up ${(s.restoreMs / 1000).toFixed(1)} s (summed over the ${concurrency} slots); ` +
        `${s.copiedAheadRuns} runs copied ahead the pages earlier runs had copied on write (${(s.copiedAheadKb / 1024 / Math.max(1, s.copiedAheadRuns)).toFixed(1)} MB each on average)`,
    );
  }
  return {
    label: label ?? (forkServer ? `${backend}, fork server` : `${backend}, fresh interpreter per test`),
    wallMs: report.wallMs,
    verdicts: new Map(report.results.map((r) => [r.id, r.status])),
    report,
  };
}

/** BigCodeBench's own checker through scripts/python/bcb_untrusted_check.py. */
async function theirs(dir: string): Promise<Timed> {
  const tasks = readBcbTasks().tasks.sort((a, b) => compareTaskIds(a.id, b.id)).slice(0, limit);
  const child = spawn('/usr/bin/python3', [asset('scripts', 'python', 'bcb_untrusted_check.py'), '--checkout', dir, '--workers', String(concurrency)], {
    // Its tests' own output (and a newer checkout's notes on what it intercepted) goes to stderr: kept for a failure.
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, MPLBACKEND: 'Agg' },
  });
  for (const t of tasks) {
    child.stdin.write(JSON.stringify({ task_id: t.id, complete_prompt: t.complete_prompt, canonical_solution: t.canonical_solution, test: t.test, entry_point: t.entry_point }) + '\n');
  }
  child.stdin.end();
  let text = '';
  child.stdout.on('data', (c: Buffer) => (text += c.toString('utf8')));
  let stderrTail = '';
  child.stderr.on('data', (c: Buffer) => (stderrTail = (stderrTail + c.toString('utf8')).slice(-2000)));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const lines = text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { id?: string; status?: string; wall_ms?: number });
  const summary = lines.find((l) => l.wall_ms !== undefined);
  if (code !== 0 || !summary) throw new Error(`BigCodeBench's checker failed (exit code ${code}): ${stderrTail.trim().split('\n').slice(-5).join(' | ')}`);
  return {
    label: "BigCodeBench's untrusted_check",
    wallMs: summary.wall_ms!,
    verdicts: new Map(lines.filter((l) => l.id).map((l) => [l.id!, l.status === 'pass' ? 'pass' : 'fail'])),
  };
}

function differences(a: Map<string, string>, b: Map<string, string>, passOnly = false): string[] {
  const out: string[] = [];
  for (const [id, v] of a) {
    const w = b.get(id);
    const same = passOnly ? (v === 'pass') === (w === 'pass') : v === w;
    if (!same) out.push(`${id}: ${v} / ${w}`);
  }
  return out;
}

/**
 * What a page fault costs here, which sets how much a forked child gains: it pays a
 * fault for each page it writes first, its own or one it shares with its parent.
 * Some VMs make each fault ~10x dearer than bare hardware.
 */
function firstTouchMsPer100Mb(): { first: number; again: number } {
  const bytes = 256 << 20;
  const buf = Buffer.alloc(bytes);
  let t = performance.now();
  buf.fill(1);
  const first = performance.now() - t;
  t = performance.now();
  buf.fill(2);
  const again = performance.now() - t;
  const per100 = (ms: number): number => (ms * (100 << 20)) / bytes;
  return { first: per100(first), again: per100(again) };
}

/**
 * Runs `together` copies of a Python program that each start timing at the same moment
 * (argv[1], a Unix time), after their own set-up; returns each one's stdout, parsed as
 * JSON. Where N at once take N times as long as one, the kernel or VM does that work one
 * process at a time, and the slots slow each other down.
 */
async function pythonTogether(program: string, together: number, ...args: string[]): Promise<unknown[]> {
  // Room for the slowest set-up here (importing pandas and matplotlib on a cold disk cache).
  const at = String(Date.now() / 1000 + 6);
  const runs = Array.from({ length: together }, () =>
    new Promise<unknown>((resolve, reject) => {
      const child = spawn('/usr/bin/python3', ['-c', program, at, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, MPLBACKEND: 'Agg' } });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
      child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`a timing program exited with code ${code}`))));
    }),
  );
  return Promise.all(runs);
}

/** What a fork of a 200 MB process and its child's end cost (ms), with `together` such forks at once: a fork server pays two per test. */
async function forkMs(together: number): Promise<number> {
  const program = [
    'import os, sys, time',
    'b = bytearray(200 << 20)',
    'for i in range(0, len(b), 4096): b[i] = 1',
    'time.sleep(max(0.0, float(sys.argv[1]) - time.time()))',
    't = time.monotonic()',
    'for _ in range(30):',
    '    pid = os.fork()',
    '    if pid == 0: os._exit(0)',
    '    os.waitpid(pid, 0)',
    'print((time.monotonic() - t) / 30 * 1000)',
  ].join('\n');
  return mean((await pythonTogether(program, together)) as number[]);
}

/**
 * The same pandas and matplotlib work (a test's kind), timed in the warm process that
 * has run it before, as the first thing a child forked from that process does, and as a
 * child's first run after it copied ahead the pages an earlier child copied on write
 * (through the fork server's own code, given as argv[2]; the copy is timed with the
 * work), with `together` such processes at once: the first number is what the work
 * costs, the others what a fork server's test pays for it in a new address space.
 * Medians, ms; null when /usr/bin/python3 lacks pandas or matplotlib.
 */
async function firstRunMs(together: number): Promise<{ warm: number; child: number; ahead: number } | null> {
  const program = [
    'import json, os, statistics, sys, time, types',
    'try:',
    '    import numpy as np, pandas as pd, matplotlib.pyplot as plt',
    'except ImportError:',
    '    print("null"); sys.exit(0)',
    'def work():',
    '    df = pd.DataFrame(np.random.rand(2000, 8), columns=list("abcdefgh"))',
    '    for _ in range(3):',
    '        df.groupby((df.a * 10).astype(int)).agg(["mean", "std"]); df.describe()',
    '    fig, ax = plt.subplots(); ax.plot(df.a.values[:200]); fig.canvas.draw(); plt.close(fig)',
    'def timed():',
    '    t = time.monotonic(); work(); return (time.monotonic() - t) * 1000',
    'for _ in range(3): work()',
    'time.sleep(max(0.0, float(sys.argv[1]) - time.time()))',
    'warm = [timed() for _ in range(10)]',
    'child = []',
    'for _ in range(15):',
    '    r, w = os.pipe()',
    '    pid = os.fork()',
    '    if pid == 0:',
    '        os.write(w, str(timed()).encode()); os._exit(0)',
    '    os.close(w); child.append(float(os.read(r, 64))); os.close(r); os.waitpid(pid, 0)',
    'fs = types.ModuleType("fork_server")',
    'exec(compile(sys.argv[2], "fork_server.py", "exec"), fs.__dict__)',
    'regions = fs._private_writable()',
    'r, w = os.pipe()',
    'pid = os.fork()',
    'if pid == 0:',
    '    work(); os.write(w, json.dumps(fs._copied_pages(regions)).encode()); os._exit(0)',
    'os.close(w); report = b""',
    'while chunk := os.read(r, 1 << 16): report += chunk',
    'os.close(r); os.waitpid(pid, 0); fs._use_prefault(json.loads(report))',
    'ahead = []',
    'for _ in range(15):',
    '    r, w = os.pipe()',
    '    pid = os.fork()',
    '    if pid == 0:',
    '        t = time.monotonic()',
    '        fs._copy_ahead()',
    '        work(); os.write(w, str((time.monotonic() - t) * 1000).encode()); os._exit(0)',
    '    os.close(w); ahead.append(float(os.read(r, 64))); os.close(r); os.waitpid(pid, 0)',
    'print(json.dumps({"warm": statistics.median(warm), "child": statistics.median(child), "ahead": statistics.median(ahead)}))',
  ].join('\n');
  const runs = (await pythonTogether(program, together, forkServerSource())) as ({ warm: number; child: number; ahead: number } | null)[];
  const done = runs.filter((r) => r !== null);
  if (done.length < runs.length) return null;
  return { warm: mean(done.map((r) => r.warm)), child: mean(done.map((r) => r.child)), ahead: mean(done.map((r) => r.ahead)) };
}

async function main(): Promise<void> {
  const touch = firstTouchMsPer100Mb();
  console.log(`this machine: writing 100 MB of new memory takes ${touch.first.toFixed(0)} ms (page faults), writing it again ${touch.again.toFixed(0)} ms`);
  if (concurrency > 1) {
    const alone = await forkMs(1);
    const atOnce = await forkMs(concurrency);
    console.log(`this machine: forking a 200 MB process and ending the child takes ${alone.toFixed(1)} ms alone, ${atOnce.toFixed(1)} ms with ${concurrency} at once (${(atOnce / alone).toFixed(2)}x; a fork server pays two per test)`);
  }
  const first = await firstRunMs(1);
  const firstTogether = concurrency > 1 && first ? await firstRunMs(concurrency) : null;
  if (first) {
    console.log(
      `this machine: some pandas and matplotlib work takes ${first.warm.toFixed(0)} ms in a warm process, ${first.child.toFixed(0)} ms as the first thing a child forked from it does, ` +
        `${first.ahead.toFixed(0)} ms with copying ahead the pages an earlier child copied on write` +
        (firstTogether ? ` (${firstTogether.warm.toFixed(0)}, ${firstTogether.child.toFixed(0)} and ${firstTogether.ahead.toFixed(0)} ms with ${concurrency} such processes at once)` : ''),
    );
  }
  // A warm page cache for both: the first pass reads every library from disk.
  console.log(`canonical solutions of the first ${limit} BigCodeBench tasks, ${concurrency} at a time, ${timeoutSec} s budget; the first pass only warms the disk cache`);
  await checkGoldBcb({ subset: 'full', mode: 'reference', concurrency, limit: Math.min(limit, 10), timeoutSec, backend, forkServer: false, durationsPath: null });
  // Each pass in id order keeps its durations in its own new file; the pass after it orders its tasks by them.
  const scratch = mkdtempSync(join(tmpdir(), 'memrl-bench-sandbox-'));
  const plain = await ours({ forkServer: false, durations: join(scratch, 'plain.json') });
  const passes: { fast: Awaited<ReturnType<typeof ours>>; firstCheck: Timed; slowestFirst: Timed; bcb?: Timed }[] = [];
  for (let round = 1; round <= rounds; round++) {
    const tag = rounds > 1 ? ` (round ${round})` : '';
    const file = join(scratch, `fork-${round}.json`);
    const fast = await ours({ forkServer: true, durations: file, label: `${backend}, fork server, id order${tag}` });
    const firstCheck = await ours({ forkServer: true, durations: join(scratch, `first-${round}.json`), label: `${backend}, fork server, shipped durations${tag}`, shipped: true });
    const slowestFirst = await ours({ forkServer: true, durations: file, label: `${backend}, fork server, slowest first${tag}` });
    const bcb = checkout ? await theirs(checkout) : undefined;
    if (bcb) bcb.label += tag;
    passes.push({ fast, firstCheck, slowestFirst, bcb });
  }
  rmSync(scratch, { recursive: true, force: true });
  const rows: Timed[] = [plain, ...passes.flatMap((p) => [p.fast, p.firstCheck, p.slowestFirst, ...(p.bcb ? [p.bcb] : [])])];
  const width = Math.max(38, ...rows.map((r) => r.label.length));
  console.log(`${'path'.padEnd(width)}  tasks  passed  wall_s  tasks/s`);
  for (const r of rows) {
    const passed = [...r.verdicts.values()].filter((v) => v === 'pass').length;
    console.log(`${r.label.padEnd(width)}  ${String(r.verdicts.size).padStart(5)}  ${String(passed).padStart(6)}  ${(r.wallMs / 1000).toFixed(1).padStart(6)}  ${((1000 * r.verdicts.size) / r.wallMs).toFixed(2).padStart(7)}`);
  }
  const round1 = passes[0]!;
  console.log(`fork server / fresh interpreter: ${(plain.wallMs / round1.fast.wallMs).toFixed(2)}x; slowest first (durations of the fork server's pass in id order): ${(plain.wallMs / round1.slowestFirst.wallMs).toFixed(2)}x`);
  // What no checker saves: the slowest tests take this long whoever runs them.
  const slowest = [...round1.fast.report.results].sort((a, b) => b.durationMs - a.durationMs).slice(0, 3);
  const slowSum = slowest.reduce((sum, r) => sum + r.durationMs, 0);
  console.log(
    `slowest tests (fork server): ${slowest.map((r) => `${r.id} ${(r.durationMs / 1000).toFixed(1)} s`).join(', ')}; ${(slowSum / 1000).toFixed(1)} s of the ${((concurrency * round1.fast.wallMs) / 1000).toFixed(1)} s the ${concurrency} slots had`,
  );
  const diff = passes.flatMap((p) => [p.fast, p.firstCheck, p.slowestFirst].flatMap((pass) => differences(plain.verdicts, pass.verdicts)));
  console.log(`verdicts that differ between our paths: ${diff.length}${diff.length ? ` (${diff.join('; ')})` : ''}`);
  if (!checkout) {
    console.log("BigCodeBench's own checker: not timed (give --bigcodebench <checkout of bigcode-project/bigcodebench>)");
    return;
  }
  // Each round's ratios are against BigCodeBench's checker in the same round, run right after.
  const ratios = passes.map((p) => ({ id: p.bcb!.wallMs / p.fast.wallMs, first: p.bcb!.wallMs / p.firstCheck.wallMs, slowest: p.bcb!.wallMs / p.slowestFirst.wallMs }));
  const x = (r: number): string => `${r.toFixed(2)}x`;
  for (const [i, r] of ratios.entries()) {
    console.log(
      `fork server / BigCodeBench's checker${rounds > 1 ? `, round ${i + 1}` : ''}: ${x(r.id)} in id order (as BigCodeBench starts them), ` +
        `${x(r.first)} by the shipped durations (a first check), ${x(r.slowest)} slowest first by this machine's (a later check)`,
    );
  }
  if (rounds > 1) {
    const [id, first, slowest] = (['id', 'first', 'slowest'] as const).map((k) => quantiles(ratios.map((r) => r[k]))!) as [Quantiles, Quantiles, Quantiles];
    console.log(
      `fork server / BigCodeBench's checker, median of ${rounds} rounds: ${x(id.median)} in id order, ${x(first.median)} by the shipped durations, ${x(slowest.median)} slowest first ` +
        `(lowest ${x(id.min)}, ${x(first.min)} and ${x(slowest.min)})`,
    );
  }
  const d = passes.flatMap((p) => differences(p.fast.verdicts, p.bcb!.verdicts, true));
  console.log(`pass/fail verdicts that differ from BigCodeBench's checker: ${d.length}${d.length ? ` (${d.join('; ')})` : ''}`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
