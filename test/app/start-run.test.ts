/**
 * startRun in-process: the app layer composes a run from the registry (here with a
 * toy benchmark registered like a plug-in), reports through the io it is given, can be
 * stopped and resumed, and fails with typed faults, all without spawning the CLI.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openEpisodeHost } from '../../src/app/episode-host.js';
import { builtinRegistry, withPlugins } from '../../src/app/registry.js';
import { startRun, type RunIo } from '../../src/app/start-run.js';
import type { BenchmarkModule } from '../../src/core/benchmark.js';
import { containerLabels, LABEL_RUN } from '../../src/env/container/labels.js';
import { UserError } from '../../src/util/errors.js';
import { errorReply, startOpenAIServer } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp.js';
import { toyBenchmark, type ToyOptions } from '../helpers/toy-benchmark.js';

function toyModule(opts: ToyOptions = {}): BenchmarkModule {
  return {
    kind: 'benchmark',
    name: 'toy',
    displayName: 'Toy',
    description: 'a toy benchmark for in-process runs',
    defaults: { experiment: { enable_value_driven: true, num_sections: 2, batch_size: 4 }, memory: { sim_norm_mean: 0.6, sim_norm_std: 0.15 }, rl_config: { sim_threshold: 0.3 } },
    resolve: () => ({}),
    create: () => toyBenchmark({ train: 8, ...opts }),
  };
}

/** The toy benchmark, each instance noting the run label a container would get: at its creation and in every episode. */
function labelNotingModule(labelsSeen: string[][]): BenchmarkModule {
  const label = (): string => containerLabels('probe')[LABEL_RUN]!;
  return {
    ...toyModule(),
    create: () => {
      const seen = [label()];
      labelsSeen.push(seen);
      return toyBenchmark({ train: 8, onEpisode: () => void seen.push(label()) });
    },
  };
}

function capture(): RunIo & { text: () => string } {
  let text = '';
  return { err: (t) => void (text += t), tty: false, text: () => text };
}

describe('startRun (the app layer, in-process)', () => {
  it('runs a registered benchmark to completion and reports through the io it is given', async () => {
    const cwd = tempDir('memrl-app-');
    const registry = withPlugins(builtinRegistry(), [{ origin: 'test', benchmarks: [toyModule()], methods: [] }]);
    const io = capture();
    const handle = await startRun({ benchmark: 'toy', flags: { outputDir: 'out', epochs: 2 }, registry, cwd, env: {} }, io);
    expect(handle.runDir.startsWith(join(cwd, 'out', 'toy'))).toBe(true);
    const end = await handle.done;
    expect(end.result).toMatchObject({ epochsCompleted: 2, interrupted: false });
    expect(io.text()).toMatch(/^memrl run toy: method memrl, model sim/m);
    expect(io.text()).toMatch(/^epoch 2\/2: acc /m);
    expect(JSON.parse(readFileSync(join(handle.runDir, 'summary.json'), 'utf8'))).toMatchObject({ status: 'complete', benchmark: 'toy' });
  });

  it('stop() ends the run resumably; the resumed run completes it', async () => {
    const cwd = tempDir('memrl-app-');
    let handleStop: (() => void) | undefined;
    const registry = withPlugins(builtinRegistry(), [{ origin: 'test', benchmarks: [toyModule({ onEpisode: (_t, epoch) => epoch === 2 && handleStop?.() })], methods: [] }]);
    const first = await startRun({ benchmark: 'toy', flags: { outputDir: 'out', epochs: 2 }, registry, cwd, env: {} }, capture());
    handleStop = () => first.stop();
    const end = await first.done;
    expect(end.result).toMatchObject({ epochsCompleted: 1, interrupted: true });
    expect(existsSync(join(first.runDir, 'checkpoint.json'))).toBe(true);

    handleStop = undefined;
    const again = await startRun({ benchmark: 'toy', flags: { outputDir: 'out', epochs: 2, resume: first.runDir }, registry, cwd, env: {} }, capture());
    expect(again.runDir).toBe(first.runDir);
    expect((await again.done).result).toMatchObject({ epochsCompleted: 2, interrupted: false });
  });

  it('runs started in the same second with the same settings keep their own folders, and their containers their own run label', async () => {
    const cwd = tempDir('memrl-app-');
    const labelsSeen: string[][] = [];
    const registry = withPlugins(builtinRegistry(), [{ origin: 'test', benchmarks: [labelNotingModule(labelsSeen)], methods: [] }]);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-26T04:20:00Z'));
    try {
      // Like a sweep's cells in one process: both start before either ends.
      const handles = await Promise.all([1, 2].map(() => startRun({ benchmark: 'toy', flags: { outputDir: 'out', epochs: 2 }, registry, cwd, env: {} }, capture())));
      const ends = await Promise.all(handles.map((h) => h.done));
      const [a, b] = handles.map((h) => h.runDir);
      expect(a).not.toBe(b);
      expect(basename(a!)).toMatch(/^20261126-042000-memrl-sim-s\d+-[0-9a-f]{4}$/);
      for (const [i, end] of ends.entries()) {
        expect(end.result).toMatchObject({ epochsCompleted: 2, interrupted: false });
        const rows = readFileSync(join(handles[i]!.runDir, 'outcomes.jsonl'), 'utf8').trim().split('\n');
        expect(rows).toHaveLength(16);
      }
      expect(labelsSeen).toHaveLength(2);
      expect(labelsSeen.map((seen) => [...new Set(seen)]).sort()).toEqual([[basename(a!)], [basename(b!)]].sort());
      expect(labelsSeen.every((seen) => seen.length === 1 + 16)).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a worker playing a run's episodes gives its containers that run's label", async () => {
    const cwd = tempDir('memrl-app-');
    const labelsSeen: string[][] = [];
    // An absolute origin: the worker sees in run.json that it has this plug-in loaded already.
    const registry = withPlugins(builtinRegistry(), [{ origin: '/plugins/toy', benchmarks: [labelNotingModule(labelsSeen)], methods: [] }]);
    const run = await startRun({ benchmark: 'toy', flags: { outputDir: 'out', epochs: 1 }, registry, cwd, env: {} }, capture());
    await run.done;
    // The worker's side of a queued run: open the run from its folder, play one of its episodes.
    const host = await openEpisodeHost(run.runDir, { registry, worker: 'w1' });
    try {
      const played = await host.play({ runDir: run.runDir, phase: 'train', epoch: 1, batch: 0, taskIndex: 0, taskId: 'toy/0', memories: [] });
      expect(played.outcome.status).not.toBe('error');
    } finally {
      await host.close();
    }
    // The second instance is the worker's.
    expect(labelsSeen[1]).toEqual([basename(run.runDir), basename(run.runDir)]);
    expect(containerLabels('probe')[LABEL_RUN]).toBe('none');
  });

  it("a worker judges the run's endpoint over every episode it plays: gone after the streak, the calls after that never sent", async () => {
    let dyingFrom = Infinity;
    const server = await startOpenAIServer({ chat: (_req, n) => (n >= dyingFrom ? errorReply(503, 'the model server is gone') : 'ANSWER: correct') });
    try {
      const cwd = tempDir('memrl-app-');
      writeFileSync(join(cwd, 'live.yaml'), `llm: {provider: openai, base_url: "${server.url}", model: m, api_key: sk-test}\nembedding: {provider: local}\nmemrl:\n  llm: {max_retries: 0, stop_after_failures: 3}\n`);
      const registry = withPlugins(builtinRegistry(), [{ origin: '/plugins/toy', benchmarks: [toyModule()], methods: [] }]);
      const run = await startRun({ benchmark: 'toy', flags: { config: 'live.yaml', outputDir: 'out', epochs: 1 }, registry, cwd, env: {} }, capture());
      expect((await run.done).result).toMatchObject({ epochsCompleted: 1 });
      const host = await openEpisodeHost(run.runDir, { registry, worker: 'w1' });
      try {
        // Epoch 2: the run's own recorded replies (epoch 1) do not answer these.
        const play = (i: number) => host.play({ runDir: run.runDir, phase: 'train', epoch: 2, batch: 0, taskIndex: i, taskId: `toy/${i}`, memories: [] });
        expect((await play(0)).outcome.status).not.toBe('error');
        dyingFrom = server.chatRequests().length;
        // Each episode is one call: the first two failures, in episodes of their own, are not yet the endpoint gone.
        for (const i of [1, 2]) {
          const r = await play(i);
          expect(r.outcome.status).toBe('error');
          expect(r.fatal).toBeUndefined();
        }
        const third = await play(3);
        expect(third.fatal).toMatch(/^openai:m stopped answering: 3 calls in a row failed after their retries/);
        const sent = server.chatRequests().length;
        expect((await play(4)).fatal).toBe(third.fatal);
        expect(server.chatRequests().length).toBe(sent);
      } finally {
        await host.close();
      }
    } finally {
      await server.close();
    }
  });

  it('bad input is a typed fault naming what to fix, before any folder is made', async () => {
    const cwd = tempDir('memrl-app-');
    const registry = builtinRegistry();
    const err = await startRun({ benchmark: 'bcb', flags: { config: 'missing.yaml' }, registry, cwd, env: {} }, capture()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect(err).toMatchObject({ kind: 'user', exitCode: 2 });
    expect((err as Error).message).toBe('missing.yaml: config file not found');
    const unknown = await startRun({ benchmark: 'bcbb', flags: {}, registry, cwd, env: {} }, capture()).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ code: 'unknown_benchmark' });
    expect((unknown as Error).message).toMatch(/did you mean `bcb`/);
    expect(existsSync(join(cwd, 'results'))).toBe(false);
  });
});
