/**
 * Whole ALFWorld runs with the bridge in containers (`--evaluator docker`), against
 * the real engine and memrl/alfworld-standin:latest: the same outcomes as the local
 * bridge, an episode whose container is killed from outside becomes an error row and
 * the run goes on, nothing is left on the engine. Outside CI a missing engine or
 * image skips; under CI=true it fails.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createAlfworldBenchmark, type AlfworldBenchmark } from '../../src/bench/alfworld/benchmark.js';
import { LocalNgramEmbedder } from '../../src/embed/local.js';
import type { ChatModel, ChatRequest } from '../../src/llm/types.js';
import { defaultMemoryParams } from '../../src/memory/params.js';
import { readOutcomeRows } from '../../src/metrics/outcome-store.js';
import { runBenchmark } from '../../src/runner/run.js';
import { sharedDataDir } from '../../src/util/paths.js';
import { runAsync } from '../helpers/cli.js';
import { leftoverContainers, requireEngine } from '../helpers/require-engine.js';
import { dockerSettings, STANDIN_IMAGE } from './docker-helpers.js';

const engineReq = await requireEngine([STANDIN_IMAGE]);
const root = mkdtempSync(join(tmpdir(), 'memrl-alf-docker-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const TSX = resolve('node_modules/.bin/tsx');
const MAIN = resolve('src/cli/main.ts');

// No image configured: stand-in runs default to the stand-in image (STANDIN_IMAGE).
const YAML = `llm: {provider: sim}
embedding: {provider: local}
memrl:
  alfworld:
    env: standin
    games_per_type: {train: 1, valid_seen: 1, valid_unseen: 1}
`;

async function memrl(work: string, args: string[]): Promise<{ code: number | null; stderr: string; dir: string }> {
  writeFileSync(join(work, 'run.mts'), `import { main } from ${JSON.stringify(MAIN)};\nawait main(process.argv);\n`);
  writeFileSync(join(work, 'cfg.yaml'), YAML);
  const r = await runAsync(TSX, ['run.mts', 'run', 'alfworld', '--config', 'cfg.yaml', ...args], { cwd: work, timeoutMs: 240_000 });
  const results = join(work, 'results', 'alfworld');
  const runs = readdirSync(results);
  return { code: r.code, stderr: r.stderr, dir: join(results, runs[0]!) };
}

/** Outcome rows without wall-clock fields. */
function rows(dir: string): Record<string, unknown>[] {
  return readOutcomeRows(join(dir, 'outcomes.jsonl')).rows.map(({ latencyMs: _l, finishedAt: _f, ...r }) => r);
}
const json = (path: string): any => JSON.parse(readFileSync(path, 'utf8'));

describe.skipIf(engineReq.skip)('memrl run alfworld --evaluator docker', () => {
  it('has the engine and the stand-in image', () => {
    expect(engineReq.reason).toBe('');
  });

  it('gives the same outcome matrix and metrics as the local bridge (sim, 2 epochs, 2 bridges), labelled household-standin; no container left', async () => {
    const args = ['--epochs', '2', '--limit', '4', '--concurrency', '2', '--method', 'memrl'];
    const local = await memrl(mkdtempSync(join(root, 'local-')), args);
    expect(local.code, local.stderr).toBe(0);
    const docker = await memrl(mkdtempSync(join(root, 'docker-')), [...args, '--evaluator', 'docker']);
    expect(docker.code, docker.stderr).toBe(0);
    expect(docker.stderr).toContain('household-standin');

    expect(rows(docker.dir)).toEqual(rows(local.dir));
    expect(rows(docker.dir)).toHaveLength(4 * 3 + 4 * 2);
    expect(json(join(docker.dir, 'metrics.json'))).toEqual(json(join(local.dir, 'metrics.json')));
    const manifest = json(join(docker.dir, 'run.json'));
    expect(manifest.env).toBe('household-standin');
    expect(manifest.evaluator).toMatchObject({ env: 'household-standin', backend: 'docker', image: STANDIN_IMAGE, network: 'none', bridges: 2 });
    expect(json(join(local.dir, 'run.json')).evaluator).toMatchObject({ env: 'household-standin', backend: 'local' });

    const run = docker.dir.split('/').at(-1)!;
    const left = await engineReq.engine!.docker.listContainers({ all: true, filters: { label: [`dev.memrl.run=${run}`] } });
    expect(left).toEqual([]);
  }, 300_000);

  it.each([
    ['a missing image', YAML.replace('memrl:\n', 'memrl:\n  evaluator: {docker: {images: {alfworld: memrl/no-such-image:latest}}}\n'), [], /^memrl: image memrl\/no-such-image:latest is not on the container engine at .*scripts\/build-images\.sh/],
    ['no engine', YAML, ['--docker-host', 'unix:///nonexistent/engine.sock'], /^memrl: no container engine at unix:\/\/\/nonexistent\/engine\.sock \(no such socket\)/],
    ['a game file that does not exist', YAML, ['--game-file', 'standin/train/pick_and_place/0042'], /^memrl: --game-file: game file standin\/train\/pick_and_place\/0042 does not exist/],
  ] as const)('%s stops the run with one clear line', async (_what, yaml, extra, line) => {
    const work = mkdtempSync(join(root, 'oneline-'));
    writeFileSync(join(work, 'run.mts'), `import { main } from ${JSON.stringify(MAIN)};\nawait main(process.argv);\n`);
    writeFileSync(join(work, 'cfg.yaml'), yaml);
    const r = await runAsync(TSX, ['run.mts', 'run', 'alfworld', '--config', 'cfg.yaml', '--evaluator', 'docker', '--limit', '1', ...extra], { cwd: work, timeoutMs: 120_000 });
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(line);
  }, 120_000);
});

/** A scripted agent: no action on turn 0 (the reference sends the reply as it is), `look` after; `onTurn` runs before each reply. */
function scripted(onTurn: (req: ChatRequest) => Promise<void>): ChatModel {
  return {
    label: 'scripted',
    simulated: false,
    async chat(req: ChatRequest) {
      await onTurn(req);
      const text = req.tags.turn === 0 ? 'I am not sure what to do here.' : 'Thought: look around.\nAction: look';
      return { text, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } };
    },
  } as ChatModel;
}

async function killedMidEpisodeRun(transport: 'local' | 'docker'): Promise<{ rows: Record<string, any>[]; bench: AlfworldBenchmark }> {
  const bench = createAlfworldBenchmark({
    env: 'standin',
    load: { validSplit: 'valid_seen', validate: false, gameFile: null, datasetRatio: 1, seed: 1 },
    bridge: { seed: 1, timeoutMs: 30_000, gamesPerType: { train: 1 } },
    poolSize: 1,
    docker: transport === 'docker' ? dockerSettings() : null,
    fewShotPath: join(sharedDataDir(), 'alfworld', 'alfworld_examples.json'),
    maxSteps: 4,
    temperature: 0,
  });
  const runDir = join(root, `killed-${transport}`);
  // The second game, before its third action in epoch 1: its bridge is killed from outside.
  const target = (await bench.load()).train[1]!.id;
  let victim: string | undefined;
  try {
    await runBenchmark({
      benchmark: bench,
      method: { module: 'none', memoryParams: defaultMemoryParams(), buildStrategy: 'proceduralization' },
      schedule: { epochs: 2, batchSize: 3, concurrency: 1, seed: 1 },
      validation: { run: false, beforeTraining: false },
      models: {
        agent: () =>
          scripted(async (req) => {
            if (req.tags.epoch !== 1 || req.tags.turn !== 2 || req.tags.taskId !== target || victim !== undefined) return;
            victim = target;
            const client = bench.pool.clients[0]!;
            if (transport === 'docker') await engineReq.engine!.docker.getContainer(client.containerId!).kill({ signal: 'SIGKILL' });
            else process.kill(client.pid!, 'SIGKILL');
          }),
        embedder: new LocalNgramEmbedder(),
      },
      folder: { dir: runDir, resume: false, manifest: {} },
      log: pino({ level: 'silent' }),
    });
  } finally {
    await bench.close();
  }
  expect(victim).toBeDefined();
  return { rows: readOutcomeRows(join(runDir, 'outcomes.jsonl')).rows as Record<string, any>[], bench };
}

describe.each(['local', 'docker'] as const)('ALFWorld run with the %s bridge killed mid-episode', (transport) => {
  it.skipIf(transport === 'docker' && engineReq.skip)(
    'records that episode as an error, runs every other episode on a restarted bridge, counts replies without an action in the rows',
    async () => {
      const { rows: r, bench } = await killedMidEpisodeRun(transport);
      expect(r).toHaveLength(12);
      const errors = r.filter((x) => x.status === 'error');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ epoch: 1, taskIndex: 1, steps: 2, success: false });
      expect(errors[0]!.error).toMatch(/bridge failed during step 3/);
      for (const x of r.filter((y) => y.status !== 'error')) {
        expect(x.status).toBe('fail');
        expect(x.steps).toBe(4);
      }
      // Turn 0 had no action (sent as it is, "Nothing happened."): counted in every row.
      for (const x of r) expect(x.extra.unparsedActions).toBe(1);
      const metrics = json(join(root, `killed-${transport}`, 'metrics.json'));
      expect(metrics.train.epochs.map((e: { errors: number }) => e.errors)).toEqual([1, 0]);
      expect(bench.pool.clients[0]!.starts).toBe(2);
      if (transport === 'docker') expect(await leftoverContainers(engineReq.engine!)).toEqual([]);
    },
    180_000,
  );
});
