import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BridgeClient, BridgeFault, BridgeRequestError } from '../../src/bench/alfworld/bridge-client.js';
import { FAKE_ALFWORLD, fakeAlfworldData } from './helpers.js';
import { episodeScript, expectResetShape } from './protocol-script.js';

const clients: BridgeClient[] = [];
function client(opts: Partial<ConstructorParameters<typeof BridgeClient>[0]> = {}): BridgeClient {
  const c = new BridgeClient({ env: 'standin', seed: 7, timeoutMs: 20_000, ...opts });
  clients.push(c);
  return c;
}
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

describe('bridge protocol against the stand-in', () => {
  it('init reports household-standin; every message of the episode script has its fields; expert plans win', async () => {
    const c = client({ gamesPerType: { valid_seen: 2 } });
    const types = ['pick_and_place', 'pick_clean_then_place', 'pick_heat_then_place', 'pick_cool_then_place', 'look_at_obj_in_light', 'pick_two_obj'];
    await episodeScript(c, 'valid_seen', [...types, ...types]);
    expect(c.envLabel).toBe('household-standin');
  });

  it('is deterministic for a seed and differs across seeds and across seen/unseen', async () => {
    const a = await client({ seed: 3 }).listGames('train');
    const b = await client({ seed: 3 }).listGames('train');
    const c = await client({ seed: 4 }).listGames('train');
    expect(a).toEqual(b);
    expect(a.games.map((g) => g.observation)).not.toEqual(c.games.map((g) => g.observation));
    const seen = await client().listGames('valid_seen');
    const unseen = await client().listGames('valid_unseen');
    const rooms = (gs: typeof seen.games) => new Set(gs.map((g) => g.observation!.split('\n\n')[1]!.replace(/ \d+/g, '')));
    expect([...rooms(unseen.games)].some((r) => rooms(seen.games).has(r))).toBe(false);
    expect(a.games.length).toBe(120);
  });

  it('a missing game file and an unknown split are one-line request errors; the bridge keeps serving', async () => {
    const c = client();
    await expect(c.reset({ gameFile: 'standin/train/pick_and_place/9999' })).rejects.toThrow(/does not exist/);
    await expect(c.listGames('test_split')).rejects.toBeInstanceOf(BridgeRequestError);
    const r = await c.reset({ gameFile: 'standin/train/pick_two_obj/0001' });
    expect(r.task_type).toBe('pick_two_obj');
    expect(c.starts).toBe(1);
  });

  it('a killed bridge fails the pending request with a BridgeFault and restarts on the next one', async () => {
    const c = client();
    await c.reset({ split: 'train', index: 0 });
    const pid = c.pid!;
    const pending = c.step('look');
    process.kill(pid, 'SIGKILL');
    await expect(pending).rejects.toBeInstanceOf(BridgeFault);
    const r = await c.reset({ split: 'train', index: 1 });
    expectResetShape(r);
    expect(c.starts).toBe(2);
    expect(c.pid).not.toBe(pid);
  });

  it('a hung bridge is killed after the request timeout and restarted', async () => {
    const c = client({ timeoutMs: 1500, initTimeoutMs: 20_000, extraEnv: { MEMRL_BRIDGE_TEST: '1' } });
    await c.listGames('valid_seen', false);
    await expect(c.request({ cmd: '_sleep', seconds: 30 })).rejects.toThrow(/did not answer "_sleep" within 2 s/);
    const r = await c.reset({ split: 'valid_seen', index: 0 });
    expectResetShape(r);
    expect(c.starts).toBe(2);
  });
});

describe('bridge protocol against a fake alfworld package (the real one is not installable here)', () => {
  it('runs the same script through the documented API: get_environment, init_env(batch_size=1), reset, step([action])', async () => {
    const data = fakeAlfworldData();
    const c = client({ env: 'alfworld', config: data.config, extraEnv: { PYTHONPATH: FAKE_ALFWORLD, FAKE_ALFWORLD_LOG: data.logPath } });
    await episodeScript(c, 'train', ['pick_and_place', 'pick_heat_then_place']);
    expect(c.envLabel).toBe('alfworld');
    const calls = readFileSync(data.logPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(calls).toContainEqual({ call: 'get_environment', env_type: 'AlfredTWEnv' });
    expect(calls).toContainEqual({ call: 'AlfredTWEnv', train_eval: 'train' });
    const inits = calls.filter((x) => x.call === 'init_env');
    expect(inits.length).toBeGreaterThan(0);
    for (const i of inits) {
      expect(i.batch_size).toBe(1);
      expect((i.game_files as string[]).length).toBe(1);
    }
    expect(calls.filter((x) => x.call === 'step').every((x) => Array.isArray(x.actions) && (x.actions as string[]).length === 1)).toBe(true);

    const v = await c.listGames('valid_seen');
    expect(v.games.map((g) => g.task_type)).toEqual(['look_at_obj_in_light']);
    const after = readFileSync(data.logPath, 'utf8');
    expect(after).toContain('"train_eval": "eval_in_distribution"');
    await expect(c.reset({ gameFile: '/nonexistent/game.tw-pddl' })).rejects.toThrow(/does not exist/);
  });

  it('without the package, init fails with the install commands', async () => {
    const c = client({ env: 'alfworld', config: {} });
    await expect(c.listGames('train')).rejects.toThrow(/pip install alfworld && alfworld-download/);
  });
});
