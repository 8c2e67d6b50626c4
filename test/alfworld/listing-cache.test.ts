/**
 * The cache of real-ALFWorld game listings (each game's first observation), through
 * the fake alfworld package: a second load resets no game; a changed split lists again.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAlfworldBenchmark } from '../../src/bench/alfworld/benchmark.js';
import { sharedDataDir } from '../../src/util/paths.js';
import { FAKE_ALFWORLD, fakeAlfworldData } from './helpers.js';

const data = fakeAlfworldData();
const cacheDir = mkdtempSync(join(tmpdir(), 'memrl-alf-listing-'));
afterAll(() => {
  rmSync(cacheDir, { recursive: true, force: true });
  rmSync(data.dir, { recursive: true, force: true });
});

async function load(cache: string | null = cacheDir) {
  writeFileSync(data.logPath, '');
  const b = createAlfworldBenchmark({
    env: 'alfworld',
    load: { validSplit: 'valid_seen', validate: true, gameFile: null, datasetRatio: 1, seed: 1, listingCache: cache },
    bridge: { seed: 1, timeoutMs: 30_000, envConfigPath: data.configPath, extraEnv: { PYTHONPATH: FAKE_ALFWORLD, FAKE_ALFWORLD_LOG: data.logPath } },
    poolSize: 1,
    fewShotPath: join(sharedDataDir(), 'alfworld', 'alfworld_examples.json'),
    maxSteps: 5,
    temperature: 0,
  });
  try {
    const tasks = await b.load();
    const resets = readFileSync(data.logPath, 'utf8').split('\n').filter((l) => l.includes('"call": "reset"')).length;
    return { tasks, resets };
  } finally {
    await b.close();
  }
}

describe('real-ALFWorld game listing cache', () => {
  it('caches first observations per split; reuses them while the split has the same games; lists again when it changes', async () => {
    const first = await load();
    expect(first.resets).toBe(3); // two train games and one valid_seen game, each reset once to read its observation
    expect(readdirSync(cacheDir).sort()).toEqual([expect.stringMatching(/^train-[0-9a-f]{24}\.json$/), expect.stringMatching(/^valid_seen-[0-9a-f]{24}\.json$/)].sort());

    const second = await load();
    expect(second.resets).toBe(0);
    expect(second.tasks).toEqual(first.tasks);

    // A new train game: train is listed again (all three games), valid_seen still comes from the cache.
    const d = join(data.dir, 'json_2.1.1', 'train', 'pick_two_obj_and_place-Pen-None-Desk-4', 'trial_T1');
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, 'game.tw-pddl'), JSON.stringify({ task: 'put two pens in desk.', room: 'You are in the middle of a room.', solution: ['go to desk 1'] }));
    const third = await load();
    expect(third.resets).toBe(3);
    expect(third.tasks.train.map((t) => t.taskType)).toContain('pick_two_obj');
    expect(third.tasks.valid).toEqual(first.tasks.valid);

    // A damaged cache file is not trusted.
    for (const f of readdirSync(cacheDir)) writeFileSync(join(cacheDir, f), '{"truncated');
    const fourth = await load();
    expect(fourth.resets).toBe(4);
    expect(fourth.tasks).toEqual(third.tasks);
  }, 120_000);

  it('without a cache directory every load resets every game', async () => {
    expect((await load(null)).resets).toBe(4);
    expect((await load(null)).resets).toBe(4);
  }, 120_000);
});
