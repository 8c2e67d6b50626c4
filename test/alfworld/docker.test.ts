/**
 * The ALFWorld bridge through `--evaluator docker`, against the real engine (Podman's
 * Docker API here) and the stand-in image memrl/alfworld-standin:latest. Outside CI a
 * missing engine or image skips these suites; under CI=true they fail.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BridgeClient, BridgeFault, BridgeRequestError, type BridgeOptions } from '../../src/bench/alfworld/bridge-client.js';
import { leftoverContainers, requireEngine } from '../helpers/require-engine.js';
import { containerTransport, dockerSettings, STANDIN_IMAGE, type ContainerTransport } from './docker-helpers.js';
import { FAKE_ALFWORLD } from './helpers.js';
import { episodeScript, expectResetShape } from './protocol-script.js';

const engineReq = await requireEngine([STANDIN_IMAGE]);

const transports: ContainerTransport[] = [];
const clients: BridgeClient[] = [];
function client(opts: Partial<BridgeOptions> = {}, t: Partial<Parameters<typeof containerTransport>[0]> = {}): { c: BridgeClient; transport: ContainerTransport } {
  const transport = containerTransport({ settings: dockerSettings(), concurrency: 1, image: STANDIN_IMAGE, extraEnv: opts.extraEnv, ...t });
  transports.push(transport);
  const c = new BridgeClient({ env: 'standin', seed: 7, timeoutMs: 30_000, transport, ...opts });
  clients.push(c);
  return { c, transport };
}
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(transports.splice(0).map((t) => t.close()));
});

const TYPES = ['pick_and_place', 'pick_clean_then_place', 'pick_heat_then_place', 'pick_cool_then_place', 'look_at_obj_in_light', 'pick_two_obj'];

/** Files of a directory, recursively, as putFiles entries named relative to `base`. */
function filesUnder(dir: string, base: string): { name: string; content: Buffer }[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !e.name.endsWith('.pyc'))
    .map((e) => {
      const path = join(e.parentPath, e.name);
      return { name: relative(base, path), content: readFileSync(path) };
    });
}

describe.skipIf(engineReq.skip)('ALFWorld bridge in a container', () => {
  afterAll(async () => {
    // Nothing of this test process may be left on the engine.
    if (engineReq.engine) expect(await leftoverContainers(engineReq.engine)).toEqual([]);
  });

  it('has the engine and the stand-in image', () => {
    expect(engineReq.reason).toBe('');
  });

  it('runs the protocol script: every message has its fields, expert plans win, init says household-standin', async () => {
    const { c, transport } = client({ gamesPerType: { valid_seen: 2 } });
    await episodeScript(c, 'valid_seen', [...TYPES, ...TYPES]);
    expect(c.envLabel).toBe('household-standin');
    expect(c.containerId).toMatch(/^[0-9a-f]{64}$/);
    expect(c.pid).toBeUndefined();
    expect(transport.started).toBe(1);
    const facts = await transport.describe();
    expect(facts).toMatchObject({ backend: 'docker', image: STANDIN_IMAGE, network: 'none', memoryMb: 512, pids: 128 });
  }, 120_000);

  it('gives the same games and observations as the local bridge for the same seed', async () => {
    const { c } = client({ seed: 3 });
    const local = new BridgeClient({ env: 'standin', seed: 3, timeoutMs: 30_000 });
    try {
      expect(await c.listGames('train')).toEqual(await local.listGames('train'));
    } finally {
      await local.close();
    }
  }, 120_000);

  it('runs hardened: no network, read-only root, no capabilities, limits, the run labels', async () => {
    const { c } = client();
    await c.listGames('valid_seen', false);
    const info = await engineReq.engine!.docker.getContainer(c.containerId!).inspect();
    expect(info.HostConfig.NetworkMode).toBe('none');
    expect(info.HostConfig.ReadonlyRootfs).toBe(true);
    // The bridge (pid 1) has no capabilities and cannot gain any.
    const exec = await engineReq.engine!.docker.getContainer(c.containerId!).exec({ Cmd: ['grep', '-E', '^(CapEff|NoNewPrivs)', '/proc/1/status'], AttachStdout: true, AttachStderr: true });
    const stream = await exec.start({ hijack: true, stdin: false });
    const chunks: Buffer[] = [];
    await new Promise<void>((resolve) => {
      stream.on('data', (b: Buffer) => chunks.push(b));
      stream.on('end', () => resolve());
    });
    const status = Buffer.concat(chunks).toString('latin1');
    expect(status).toMatch(/CapEff:\s+0000000000000000/);
    expect(status).toMatch(/NoNewPrivs:\s+1/);
    expect(info.HostConfig.Memory).toBe(512 * 1024 * 1024);
    expect(info.HostConfig.PidsLimit).toBe(128);
    expect(info.Config.Labels['dev.memrl.role']).toBe('alfworld');
    expect(info.Config.Labels['dev.memrl.pid']).toBe(String(process.pid));
  }, 120_000);

  it('a missing game file and an unknown split are one-line request errors; the bridge keeps serving', async () => {
    const { c, transport } = client();
    await expect(c.reset({ gameFile: 'standin/train/pick_and_place/9999' })).rejects.toThrow(/does not exist/);
    await expect(c.listGames('test_split')).rejects.toBeInstanceOf(BridgeRequestError);
    const r = await c.reset({ gameFile: 'standin/train/pick_two_obj/0001' });
    expect(r.task_type).toBe('pick_two_obj');
    expect(c.starts).toBe(1);
    expect(transport.started).toBe(1);
  }, 120_000);

  it('a container killed from outside fails the pending request with a BridgeFault; the next request gets a new container; the dead one is removed', async () => {
    const { c, transport } = client({ extraEnv: { MEMRL_BRIDGE_TEST: '1' } });
    await c.reset({ split: 'train', index: 0 });
    const id = c.containerId!;
    // A request that is still pending when the kill lands.
    const pending = c.request({ cmd: '_sleep', seconds: 20 }).then(() => null, (e: Error) => e);
    await engineReq.engine!.docker.getContainer(id).kill({ signal: 'SIGKILL' });
    const err = await pending;
    expect(err).toBeInstanceOf(BridgeFault);
    expect(err?.message).toMatch(/container [0-9a-f]{12} exited with 137/);
    const r = await c.reset({ split: 'train', index: 1 });
    expectResetShape(r);
    expect(c.starts).toBe(2);
    expect(transport.started).toBe(2);
    expect(c.containerId).not.toBe(id);
    await expect(engineReq.engine!.docker.getContainer(id).inspect()).rejects.toMatchObject({ statusCode: 404 });
  }, 120_000);

  it('a hung bridge is stopped after the request timeout (its container removed) and restarted', async () => {
    const { c } = client({ timeoutMs: 1500, initTimeoutMs: 30_000, extraEnv: { MEMRL_BRIDGE_TEST: '1' } });
    await c.listGames('valid_seen', false);
    const id = c.containerId!;
    await expect(c.request({ cmd: '_sleep', seconds: 30 })).rejects.toThrow(/did not answer "_sleep" within 2 s/);
    const r = await c.reset({ split: 'valid_seen', index: 0 });
    expectResetShape(r);
    expect(c.starts).toBe(2);
    // Podman may answer 500 while the removal is still under way: give it a few seconds to finish.
    let status: number | undefined;
    for (let i = 0; i < 50 && status !== 404; i++) {
      status = await engineReq.engine!.docker.getContainer(id).inspect().then(
        () => 200,
        (e: { statusCode?: number }) => e.statusCode,
      );
      if (status !== 404) await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe(404);
  }, 120_000);

  it('the real-env path with a fake alfworld package in the image: the env config and its $ALFWORLD_DATA paths pass through unchanged', async () => {
    // The fake package and its games go next to bridge.py (on its sys.path); the config
    // names the data the way the real image's config does, through $ALFWORLD_DATA.
    const game = (split: string, folder: string, task: string, solution: string[]) => ({
      name: `data/json_2.1.1/${split}/${folder}/trial_T1/game.tw-pddl`,
      content: Buffer.from(JSON.stringify({ task, room: 'You are in the middle of a room. Looking quickly around you, you see a desk 1.', solution })),
    });
    const files = [
      ...filesUnder(join(FAKE_ALFWORLD, 'alfworld'), FAKE_ALFWORLD),
      game('train', 'pick_and_place_simple-Key-None-Desk-1', 'put a keychain in desk.', ['go to desk 1', 'take keychain 1 from desk 1', 'move keychain 1 to desk 1']),
      game('train', 'pick_heat_then_place_in_recep-Mug-None-Desk-2', 'heat some mug and put it in desk.', ['go to desk 1', 'heat mug 1 with microwave 1']),
      game('valid_seen', 'look_at_obj_in_light-Book-None-DeskLamp-3', 'look at book under the desklamp.', ['go to desk 1', 'use desklamp 1']),
    ];
    const config = {
      dataset: { data_path: '$ALFWORLD_DATA/json_2.1.1/train', eval_id_data_path: '$ALFWORLD_DATA/json_2.1.1/valid_seen', eval_ood_data_path: '$ALFWORLD_DATA/json_2.1.1/valid_unseen' },
      env: { type: 'AlfredTWEnv' },
    };
    const { c } = client({ env: 'alfworld', config }, { files, extraEnv: { ALFWORLD_DATA: '/opt/memrl-bridge/data' } });
    await episodeScript(c, 'train', ['pick_and_place', 'pick_heat_then_place']);
    expect(c.envLabel).toBe('alfworld');
    const v = await c.listGames('valid_seen');
    expect(v.games.map((g) => g.task_type)).toEqual(['look_at_obj_in_light']);
    expect(v.games[0]!.game_file).toMatch(/^\/opt\/memrl-bridge\/data\/json_2\.1\.1\/valid_seen\//);
    // --game-file paths are paths inside the container.
    await expect(c.reset({ gameFile: '/nonexistent/game.tw-pddl' })).rejects.toThrow(/game file \/nonexistent\/game\.tw-pddl does not exist/);
    expect((await c.reset({ gameFile: v.games[0]!.game_file })).task_type).toBe('look_at_obj_in_light');
  }, 120_000);

  it('without the alfworld package in the image, init fails with the install hint', async () => {
    const { c } = client({ env: 'alfworld', config: {} });
    await expect(c.listGames('train')).rejects.toMatchObject({ code: 'missing_alfworld' });
  }, 120_000);

  it('a missing image and a missing engine are one clear line each', async () => {
    const noImage = client({}, { image: 'memrl/no-such-image:latest' }).c;
    const err1 = await noImage.listGames('train').then(() => null, (e: Error) => e);
    expect(err1?.name).toBe('ImageUnavailableError');
    expect(err1?.message.split('\n')).toHaveLength(1);
    expect(err1?.message).toContain('image memrl/no-such-image:latest is not on the container engine');
    expect(err1?.message).toContain('scripts/build-images.sh');

    const noEngine = client({}, { settings: dockerSettings({ host: 'unix:///nonexistent/engine.sock' }) }).c;
    const err2 = await noEngine.listGames('train').then(() => null, (e: Error) => e);
    expect(err2?.name).toBe('EngineUnavailableError');
    expect(err2?.message.split('\n')).toHaveLength(1);
    expect(err2?.message).toContain('no container engine at unix:///nonexistent/engine.sock');
  }, 120_000);

  it('close() removes the containers of every bridge, running or not', async () => {
    const transport = containerTransport({ settings: dockerSettings(), concurrency: 3, image: STANDIN_IMAGE });
    transports.push(transport);
    const cs = [0, 1, 2].map(() => new BridgeClient({ env: 'standin', seed: 1, timeoutMs: 30_000, transport }));
    await Promise.all(cs.map((c, i) => c.reset({ split: 'train', index: i })));
    const ids = cs.map((c) => c.containerId!);
    expect(new Set(ids).size).toBe(3);
    await transport.close();
    for (const id of ids) await expect(engineReq.engine!.docker.getContainer(id).inspect()).rejects.toMatchObject({ statusCode: 404 });
    await expect(cs[0]!.reset({ split: 'train', index: 0 })).rejects.toBeInstanceOf(BridgeFault);
  }, 120_000);
});
