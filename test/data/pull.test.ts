/**
 * `memrl data pull` against a loopback server that plays the manifest's sources
 * (data-server.ts): the built CLI as a user runs it, no network. Every download is
 * checked against its pinned sha256; a cut download resumes with a Range request; a
 * damaged file, a 404, a gated file without a token, a refused connection, the offline
 * switch: each one line, exit 2, nothing left that `memrl data list` would call present.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/util/free-port.js';
import { sharedDataDir } from '../../src/util/paths.js';
import { assertBuilt, MEMRL_BIN, runMemrl, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { HLE_TOKEN, specNamed, startDataServer, type DataServer } from './data-server.js';

const hasMirror = existsSync(join(sharedDataDir(), 'bigcodebench')) && existsSync(join(sharedDataDir(), 'llb'));

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p).map((f) => join(n, f)) : [n];
  });
}

function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

/** One line on stderr (the CLI prefixes `memrl: `), exit 2. */
function expectOneLine(r: CliResult, ...parts: (string | RegExp)[]): void {
  expect(r.code, r.stderr).toBe(2);
  const last = r.stderr.trim().split('\n').at(-1)!;
  expect(last.startsWith('memrl: '), r.stderr).toBe(true);
  for (const p of parts) expect(last).toMatch(p instanceof RegExp ? p : new RegExp(p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
}

describe.skipIf(!hasMirror)('memrl data pull from the loopback sources', () => {
  let server: DataServer;
  beforeAll(async () => {
    assertBuilt();
    server = await startDataServer();
  });
  afterAll(() => server?.close());

  /** The environment of a pull into `cache`, reading no mirror, fetching from the loopback server. */
  const env = (cache: string, extra: Record<string, string> = {}): Record<string, string> => ({
    MEMRL_DATA_DIR: cache,
    MEMRL_DATA_MIRROR: 'none',
    MEMRL_DATA_BASE_URL: server.url,
    HF_TOKEN: '',
    MEMRL_OFFLINE: '',
    HF_HUB_OFFLINE: '',
    ...extra,
  });
  const memrl = (args: string[], cache: string, extra: Record<string, string> = {}): Promise<CliResult> => runMemrl(args, { cwd: process.cwd(), env: env(cache, extra) });

  it('pulls every dataset, each file checked against its sha256; verify and list agree', async () => {
    const cache = tempDir('memrl-data-all-');
    const pulled = await memrl(['data', 'pull', 'all'], cache);
    expect(pulled.code, pulled.stderr).toBe(0);
    for (const name of ['bcb', 'llb', 'alfworld']) {
      for (const f of specNamed(name).files) expect(pulled.stderr).toContain(`${name}: ${f.path} downloaded from ${f.url}`);
    }
    expect(pulled.stderr.match(/sha256 matches the release/g)).toHaveLength(12);
    expect(pulled.stderr).toMatch(/hle: gated, so not part of all/);
    // The hub's Parquet came back as the release's JSON lines, byte for byte.
    const mirror = gunzipSync(readFileSync(join(sharedDataDir(), 'bigcodebench', 'bigcodebench_full.jsonl.gz')));
    expect(gunzipSync(readFileSync(join(cache, 'bigcodebench', 'bigcodebench_full.jsonl.gz'))).equals(mirror)).toBe(true);
    expect(files(cache).filter((f) => /\.(part|lock)$|\.tmp-/.test(f))).toEqual([]);

    const verified = await memrl(['data', 'verify', 'bcb', 'llb', 'alfworld'], cache);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout.trim().split('\n')).toHaveLength(12);
    expect(verified.stdout).not.toMatch(/missing|CORRUPT/);
    const list = await memrl(['data', 'list'], cache);
    expect(list.stdout).toMatch(/^bcb: BigCodeBench v0\.1\.0_hf, https:\/\/huggingface\.co\/datasets\/bigcode\/bigcodebench\n {2}licence: Apache-2\.0$/m);
    expect(list.stdout).toMatch(/present\s+bigcodebench\/bigcodebench_full\.jsonl\.gz/);
    expect(list.stdout).toMatch(/missing\s+hle\/test-00000-of-00001\.parquet/);
    const paths = await memrl(['data', 'path', 'llb'], cache);
    expect(paths.stdout.trim().split('\n')).toEqual(specNamed('llb').files.map((f) => join(cache, f.path)));

    // A second pull finds everything in place and fetches nothing.
    const before = server.requests.length;
    const again = await memrl(['data', 'pull', 'bcb'], cache);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/already in the cache/);
    expect(server.requests.length).toBe(before);
  });

  it('resumes a download cut halfway with a Range request, and ends with the same bytes', async () => {
    const cache = tempDir('memrl-data-cut-');
    server.fault('llb/db_train.json', 'cut-once');
    const r = await memrl(['data', 'pull', 'llb'], cache);
    expect(r.code, r.stderr).toBe(0);
    const path = new URL(specNamed('llb').files.find((f) => f.path === 'llb/db_train.json')!.url).pathname;
    const asked = server.requests.filter((q) => q.path === path).slice(-2);
    expect(asked[0]!.range).toBeUndefined();
    const from = Number(/^bytes=(\d+)-$/.exec(asked[1]!.range ?? '')?.[1]);
    expect(from).toBeGreaterThan(0);
    expect(from).toBeLessThan(server.bytesOf('llb/db_train.json').length);
    expect(readFileSync(join(cache, 'llb', 'db_train.json')).equals(server.bytesOf('llb/db_train.json'))).toBe(true);
  });

  it('tries a busy server (503) again', async () => {
    const cache = tempDir('memrl-data-busy-');
    server.fault('alfworld/alfworld_examples.json', 'busy-once');
    const r = await memrl(['data', 'pull', 'alfworld'], cache);
    expect(r.code, r.stderr).toBe(0);
    const path = new URL(specNamed('alfworld').files[0]!.url).pathname;
    expect(server.requests.filter((q) => q.path === path).length).toBeGreaterThanOrEqual(2);
    expect(sha256(readFileSync(join(cache, 'alfworld', 'alfworld_examples.json')))).toBe(specNamed('alfworld').files[0]!.sha256);
  });

  it('refuses a file with one byte changed: one line, and nothing of it kept', async () => {
    const cache = tempDir('memrl-data-corrupt-');
    server.fault('llb/db_val.json', 'corrupt');
    try {
      const r = await memrl(['data', 'pull', 'llb'], cache);
      const url = specNamed('llb').files.find((f) => f.path === 'llb/db_val.json')!.url;
      expectOneLine(r, 'llb/db_val.json', url, /has sha256 [0-9a-f]{64}, not the release's [0-9a-f]{64}; nothing of it was kept/);
      expect(files(cache).filter((f) => f.includes('db_val'))).toEqual([]);
      const list = await memrl(['data', 'list', 'llb'], cache);
      expect(list.stdout).toMatch(/missing\s+llb\/db_val\.json/);
    } finally {
      server.fault('llb/db_val.json', null);
    }
  });

  it('says in one line that a file is gone (404), naming file and URL', async () => {
    const cache = tempDir('memrl-data-404-');
    server.fault('alfworld/alfworld_examples.json', 'missing');
    try {
      const r = await memrl(['data', 'pull', 'alfworld'], cache);
      expectOneLine(r, 'alfworld/alfworld_examples.json', specNamed('alfworld').files[0]!.url, 'HTTP 404', '--from <dir>');
      expect(files(cache).filter((f) => !f.startsWith('.'))).toEqual([]);
    } finally {
      server.fault('alfworld/alfworld_examples.json', null);
    }
  });

  it('says how to get a gated set: accept its terms, set HF_TOKEN; the token is sent and never printed', async () => {
    const cache = tempDir('memrl-data-gated-');
    const none = await memrl(['data', 'pull', 'hle'], cache);
    expectOneLine(none, 'hle/test-00000-of-00001.parquet', 'HTTP 401', 'is gated: accept its terms at https://huggingface.co/datasets/cais/hle', 'HF_TOKEN is not set');
    const wrong = await memrl(['data', 'pull', 'hle'], cache, { HF_TOKEN: 'hf_wrong_secret_value' });
    expectOneLine(wrong, 'HTTP 403', 'HF_TOKEN is set but its account has not accepted them');
    expect(wrong.stderr + wrong.stdout).not.toContain('hf_wrong_secret_value');
    expect(files(cache).filter((f) => !f.startsWith('.'))).toEqual([]);

    const ok = await memrl(['data', 'pull', 'hle'], cache, { HF_TOKEN: HLE_TOKEN });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).not.toContain(HLE_TOKEN);
    // Nothing pins the gated file: the checksum it came with is recorded beside it and checked from then on.
    const got = sha256(readFileSync(join(cache, 'hle', 'test-00000-of-00001.parquet')));
    expect(readFileSync(join(cache, 'hle', 'test-00000-of-00001.parquet.sha256'), 'utf8')).toBe(`${got}  test-00000-of-00001.parquet\n`);
    expect(ok.stderr).toContain(`sha256 ${got} recorded`);
    const verify = await memrl(['data', 'verify', 'hle'], cache);
    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(/^present, unpinned\s+hle:/);
    writeFileSync(join(cache, 'hle', 'test-00000-of-00001.parquet'), 'not the file');
    const changed = await memrl(['data', 'verify', 'hle'], cache);
    expect(changed.code).toBe(2);
    expect(changed.stdout).toMatch(/^CORRUPT\s+hle:/);
  });

  it('names the host that refuses the connection, and what to do', async () => {
    const cache = tempDir('memrl-data-refused-');
    const closed = `http://127.0.0.1:${await freePort()}`;
    const r = await memrl(['data', 'pull', 'alfworld'], cache, { MEMRL_DATA_BASE_URL: closed });
    expectOneLine(r, 'alfworld/alfworld_examples.json', 'ECONNREFUSED', 'HTTPS_PROXY', '--from <dir>');
    expect(files(cache).filter((f) => !f.startsWith('.'))).toEqual([]);
  });

  it.skipIf(!existsSync('/dev/full'))('says the disk is full in one line, and removes what it wrote', async () => {
    const cache = tempDir('memrl-data-full-');
    mkdirSync(join(cache, 'alfworld'));
    // Every write to /dev/full fails with ENOSPC: the download's .part is made to be it.
    symlinkSync('/dev/full', join(cache, 'alfworld', 'alfworld_examples.json.part'));
    const r = await memrl(['data', 'pull', 'alfworld'], cache);
    expectOneLine(r, 'alfworld/alfworld_examples.json', specNamed('alfworld').files[0]!.url, 'the disk is full (ENOSPC)', 'MEMRL_DATA_DIR');
    expect(files(cache).filter((f) => !f.startsWith('.'))).toEqual([]);
  });

  it('offline (MEMRL_OFFLINE=1 or HF_HUB_OFFLINE=1) makes no request at all', async () => {
    const cache = tempDir('memrl-data-offline-');
    const before = server.requests.length;
    for (const flag of ['MEMRL_OFFLINE', 'HF_HUB_OFFLINE']) {
      const r = await memrl(['data', 'pull', 'bcb'], cache, { [flag]: '1' });
      expectOneLine(r, 'bigcodebench/bigcodebench_full.jsonl.gz', `${flag}=1 forbids downloading it`, '--from <dir>');
    }
    expect(server.requests.length).toBe(before);
    // A mirror still works offline.
    const copied = await memrl(['data', 'pull', 'bcb', '--from', sharedDataDir()], cache, { MEMRL_OFFLINE: '1' });
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stderr.match(/copied from .*sha256 matches the release/g)).toHaveLength(3);
    expect(server.requests.length).toBe(before);
  });

  it('a killed pull leaves nothing `data list` calls present; the next pull resumes its .part', async () => {
    const cache = tempDir('memrl-data-killed-');
    server.fault('llb/db_train.json', 'stall');
    const part = join(cache, 'llb', 'db_train.json.part');
    const child = spawn(process.execPath, [MEMRL_BIN, 'data', 'pull', 'llb'], { env: { ...process.env, ...env(cache) }, stdio: 'ignore' });
    try {
      for (let i = 0; i < 200 && !(existsSync(part) && statSync(part).size > 0); i++) await new Promise((r) => setTimeout(r, 50));
      expect(existsSync(part)).toBe(true);
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      server.fault('llb/db_train.json', null);
    }
    expect(existsSync(join(cache, 'llb', 'db_train.json'))).toBe(false);
    const list = await memrl(['data', 'list', 'llb'], cache);
    expect(list.stdout).toMatch(/missing\s+llb\/db_train\.json/);
    expect(list.stdout).not.toMatch(/present\s+llb\/db_train\.json/);

    const kept = statSync(part).size;
    const r = await memrl(['data', 'pull', 'llb'], cache);
    expect(r.code, r.stderr).toBe(0);
    const path = new URL(specNamed('llb').files[0]!.url).pathname;
    expect(server.requests.filter((q) => q.path === path).at(-1)!.range).toBe(`bytes=${kept}-`);
    expect(sha256(readFileSync(join(cache, 'llb', 'db_train.json')))).toBe(specNamed('llb').files[0]!.sha256);
    expect(files(cache).filter((f) => /\.part$/.test(f))).toEqual([]);
  });

  it("pulls a plug-in benchmark's own data files like the built-in ones", async () => {
    const dir = tempDir('memrl-data-plugin-');
    const cache = join(dir, 'cache');
    const body = Buffer.from('{"questions": [1, 2, 3]}\n');
    server.serve('/tiny/v1/questions.json', body);
    const plugin = join(dir, 'tiny.mjs');
    writeFileSync(
      plugin,
      `export default {
  kind: 'benchmark', name: 'tiny', displayName: 'Tiny', description: 'a plug-in that declares a data file',
  resolve: () => ({}), create: () => { throw new Error('not run here'); },
  data: { title: 'Tiny', release: 'v1', licence: 'CC0-1.0', homepage: 'https://example.org/tiny',
    files: [{ path: 'tiny/questions.json', url: 'https://example.org/tiny/v1/questions.json', sha256: '${sha256(body)}', size: ${body.length} }] },
};
`,
    );
    const r = await memrl(['data', 'pull', 'tiny', '--plugin', plugin], cache);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(cache, 'tiny', 'questions.json')).equals(body)).toBe(true);
    const list = await memrl(['data', 'list', 'tiny', '--plugin', plugin], cache);
    expect(list.stdout).toMatch(/^tiny: Tiny v1, https:\/\/example\.org\/tiny\n {2}licence: CC0-1\.0$/m);
    expect(list.stdout).toMatch(/present\s+tiny\/questions\.json/);
  });
});
