/**
 * The BigCodeBench container backend against the real engine (Podman's Docker API
 * here): the same verdicts as the local sandbox on real tasks, gold and broken;
 * faults on our side (container killed from outside, no engine, no image) are
 * status 'error', never a model failure; nothing is left behind.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readBcbTasks, type BcbTask } from '../../src/bench/bcb/dataset.js';
import { goldSolution } from '../../src/bench/bcb/check-gold.js';
import type { BcbEvalOptions, BcbEvalResult } from '../../src/bench/bcb/evaluate.js';
import { createBcbEvaluator, defaultDockerSettings, type BcbEvaluator } from '../../src/bench/bcb/evaluator.js';
import { asWorkOfRun, LABEL_RUN } from '../../src/env/container/labels.js';
import { createBcbBenchmark } from '../../src/bench/bcb/benchmark.js';
import { UserError } from '../../src/util/errors.js';
import { requireBcbPython } from '../env/require-sandbox.js';
import { BCB_IMAGE, ourBcbContainers, requireBcbImage } from './require-bcb-docker.js';

const engineReq = await requireBcbImage();
const localReq = await requireBcbPython();
// Engine and local sandbox share 2 cores with other suites.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const { tasks } = readBcbTasks();
const byId = (n: number): BcbTask => {
  const t = tasks.find((x) => x.id === `BigCodeBench/${n}`);
  if (!t) throw new Error(`task ${n} missing from the data file`);
  return t;
};

const hasPodman = spawnSync('podman', ['--version']).status === 0;

/** What must agree between the backends: the status, and the harness's own report when there is one. */
function verdictShape(r: BcbEvalResult): Record<string, unknown> {
  return { status: r.status, firstError: r.firstError, testsRun: r.testsRun, failures: r.failures, errors: r.errors };
}

describe.skipIf(engineReq.skip)('BigCodeBench in containers', () => {
  let docker: BcbEvaluator;
  let local: BcbEvaluator;

  beforeAll(async () => {
    expect(engineReq.ok, engineReq.reason).toBe(true);
    docker = createBcbEvaluator({ backend: 'docker', docker: defaultDockerSettings(), concurrency: 2 });
    local = createBcbEvaluator({ backend: 'local', docker: defaultDockerSettings(), concurrency: 2 });
  });

  afterAll(async () => {
    await docker?.close();
    if (engineReq.engine) expect(await ourBcbContainers(engineReq.engine)).toEqual([]);
  });

  it('describes engine, image and the Python inside it for the manifest', async () => {
    const d = await docker.describe();
    expect(d.backend).toBe('docker');
    expect(d.engine).toMatchObject({ name: expect.stringMatching(/Podman|Docker/), version: expect.stringMatching(/^\d+\.\d+/) });
    expect(d.image).toMatchObject({ name: BCB_IMAGE, id: expect.stringMatching(/^(sha256:)?[0-9a-f]{64}$/) });
    expect(d.python).toBe('/usr/bin/python3');
    expect(d.pythonVersion).toMatch(/^3\.\d+\.\d+$/);
    expect(d.missingLibs).not.toContain('numpy');
    const versions = d.libraryVersions as Record<string, string>;
    expect(versions.numpy).toMatch(/^numpy \d+\.\d+/);
    for (const lib of d.missingLibs as string[]) expect(versions[lib], lib).toBeUndefined();
    expect(d.harnessSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(d.limits).toMatchObject({ memoryBytes: 2048 * 1024 * 1024, pids: 512, network: 'none' });
    const facts = await docker.preflight();
    expect(facts).toMatchObject({ backend: 'docker', image: { name: BCB_IMAGE } });
  });

  describe.skipIf(localReq.skip)('same verdicts as the local sandbox', () => {
    const t1 = (): BcbTask => byId(1);
    const t4 = (): BcbTask => byId(4);
    const cases: [string, () => [BcbTask, string, BcbEvalOptions?]][] = [
      ['gold 1 (standard library)', () => [t1(), goldSolution(t1())]],
      ['gold 4', () => [t4(), goldSolution(t4())]],
      ['gold 42 (pandas, matplotlib, sklearn)', () => [byId(42), goldSolution(byId(42))]],
      ['gold 363 (multiprocessing.Pool)', () => [byId(363), goldSolution(byId(363)), { timeoutSec: 30 }]],
      ['gold 1 in calibrated mode (body only)', () => [t1(), t1().canonical_solution, { mode: 'calibrated' }]],
      ['wrong answer', () => [t4(), `${t4().code_prompt}    return {}\n`]],
      ['exception inside a test', () => [t4(), `${t4().code_prompt}    return 1 / 0\n`]],
      ['syntax error', () => [t1(), `${t1().code_prompt}    return (\n`]],
      ['exception while defining the solution', () => [t1(), `raise RuntimeError("boom at import")\n${goldSolution(t1())}`]],
      ['missing module', () => [t1(), `import no_such_module_memrl\n${goldSolution(t1())}`]],
      ['exits before reporting', () => [t4(), 'import os\nos._exit(0)\n']],
      ['kills itself', () => [t4(), 'import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n']],
      ['body only in reference mode', () => [t1(), t1().canonical_solution]],
      ['timeout', () => [t1(), `${t1().code_prompt}    while True:\n        pass\n`, { timeoutSec: 4 }]],
    ];

    it.each(cases)('%s', async (_name, make) => {
      const [task, code, opts] = make();
      const [l, d] = await Promise.all([local.evaluate(task, code, opts), docker.evaluate(task, code, opts)]);
      expect(verdictShape(d)).toEqual(verdictShape(l));
      expect(d.mode).toBe(l.mode);
    });
  });

  it('a container killed from outside mid-test is an evaluator error, and the next task runs', async () => {
    const t = byId(1);
    // Warm up first: the font-list helper also runs python3 in a container of ours.
    expect((await docker.evaluate(t, goldSolution(t))).status).toBe('pass');
    const slow = `import time\ntime.sleep(60)\n${goldSolution(t)}`;
    const pending = docker.evaluate(t, slow, { timeoutSec: 90 });
    // The busy container is the one running the harness.
    let victim: string | undefined;
    const deadline = Date.now() + 60_000;
    while (!victim && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      for (const id of await ourBcbContainers(engineReq.engine!)) {
        const top = await engineReq.engine!.docker.getContainer(id).top().catch(() => ({ Processes: [] as string[][] }));
        if (JSON.stringify(top.Processes ?? []).includes('python3')) victim = id;
      }
    }
    expect(victim, 'no container ran the harness').toBeDefined();
    // Through the engine, as `docker kill` from another terminal would.
    await engineReq.engine!.docker.getContainer(victim as string).kill({ signal: 'SIGKILL' });
    const r = await pending;
    expect(r.status).toBe('error');
    expect(r.firstError).toMatch(/killed from outside or the engine restarted/);
    const next = await docker.evaluate(t, goldSolution(t));
    expect(next.status, next.firstError).toBe('pass');
  });

  it('an aborted evaluation is an error, not a verdict', async () => {
    const abort = new AbortController();
    const t = byId(1);
    const pending = docker.evaluate(t, `import time\ntime.sleep(60)\n${goldSolution(t)}`, { signal: abort.signal });
    setTimeout(() => abort.abort(), 3000);
    const r = await pending;
    expect(r).toMatchObject({ status: 'error', firstError: 'aborted' });
  });

  it.skipIf(!hasPodman)('the engine going away mid-test is an evaluator error, and so is every task after it', async () => {
    // A second API service on the same storage, ours to stop (the shared one stays up).
    const sock = `/tmp/memrl-bcb-engine-${process.pid}.sock`;
    rmSync(sock, { force: true });
    // Its containers get a run label of their own, to be found afterwards.
    const run = `engine-down-${process.pid}`;
    const service = spawn('podman', ['system', 'service', '--time=0', `unix://${sock}`], { stdio: 'ignore' });
    const ev = createBcbEvaluator({ backend: 'docker', docker: defaultDockerSettings({ host: `unix://${sock}` }), concurrency: 1 });
    try {
      await asWorkOfRun(run, async () => {
        const deadline = Date.now() + 30_000;
        while (!existsSync(sock) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
        const t = byId(1);
        expect((await ev.evaluate(t, goldSolution(t))).status).toBe('pass');
        const pending = ev.evaluate(t, `import time\ntime.sleep(60)\n${goldSolution(t)}`, { timeoutSec: 90 });
        await new Promise((r) => setTimeout(r, 4000));
        service.kill('SIGKILL');
        const r = await pending;
        expect(r.status).toBe('error');
        expect(r.firstError).toMatch(/gone|engine|connect|socket/);
        const after = await ev.evaluate(t, goldSolution(t));
        expect(after.status).toBe('error');
      });
    } finally {
      service.kill('SIGKILL');
      await ev.close();
      rmSync(sock, { force: true });
      // Its containers outlive the API service: remove them through the shared one.
      for (const id of await ourBcbContainers(engineReq.engine!, [`${LABEL_RUN}=${run}`])) {
        await engineReq.engine!.docker.getContainer(id).remove({ force: true });
      }
    }
  });

  it('the BCB benchmark runs its tests there when the config says docker, describes it, and releases it on close()', () => asWorkOfRun(`bench-${process.pid}`, async () => {
    const bench = createBcbBenchmark({
      load: { subset: 'hard', split: 'instruct', splitFile: null, trainRatio: 0.7, seed: 1, limit: 1 },
      episode: { temperature: 0, eval: { mode: 'reference', timeoutSec: 60 } },
      evaluator: { backend: 'docker', docker: defaultDockerSettings(), concurrency: 1, timeoutSec: 60 },
    });
    const facts = await bench.describeEvaluator();
    expect(facts).toMatchObject({ backend: 'docker', mode: 'reference', image: { name: BCB_IMAGE }, pythonVersion: expect.any(String) });
    expect(Array.isArray(facts.blockedTasks)).toBe(true);
    const { train } = await bench.load();
    const task = train[0]!;
    const reply = { text: '```python\n' + goldSolution(task) + '\n```', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } };
    const outcome = await bench.episode(task, {
      model: { chat: async () => reply } as never,
      memories: [],
      epoch: 1,
      phase: 'train',
      signal: new AbortController().signal,
      log: { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined } as never,
    });
    expect(['pass', 'fail', 'runtime_error', 'timeout']).toContain(outcome.status);
    await bench.close?.();
    // Only this benchmark's containers: the suite's own evaluator keeps its warm ones until afterAll.
    expect(await ourBcbContainers(engineReq.engine!, [`${LABEL_RUN}=bench-${process.pid}`])).toEqual([]);
  }));

  it('no engine: evaluations are errors naming the address, preflight and describe stop with one line', async () => {
    const ev = createBcbEvaluator({ backend: 'docker', docker: defaultDockerSettings({ host: 'unix:///nonexistent/memrl.sock' }), concurrency: 1 });
    try {
      const r = await ev.evaluate(byId(1), goldSolution(byId(1)));
      expect(r.status).toBe('error');
      expect(r.firstError).toMatch(/no container engine at unix:\/\/\/nonexistent\/memrl.sock/);
      await expect(ev.preflight()).rejects.toBeInstanceOf(UserError);
      await expect(ev.describe()).rejects.toThrow(/no container engine/);
    } finally {
      await ev.close();
    }
  });

  it('no image (and pulling not allowed): evaluations are errors saying how to build it', async () => {
    const settings = { ...defaultDockerSettings({ bcbImage: 'memrl/no-such-bcb-image:never' }), pull: 'never' as const };
    const ev = createBcbEvaluator({ backend: 'docker', docker: settings, concurrency: 1 });
    try {
      const r = await ev.evaluate(byId(1), goldSolution(byId(1)));
      expect(r.status).toBe('error');
      expect(r.firstError).toMatch(/image memrl\/no-such-bcb-image:never is not on the container engine.*build-images\.sh/);
      await expect(ev.preflight()).rejects.toBeInstanceOf(UserError);
    } finally {
      await ev.close();
    }
  });
});
