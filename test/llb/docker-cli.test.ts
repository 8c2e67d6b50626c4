/**
 * `memrl run llb --evaluator docker` and `memrl check-gold llb --evaluator docker`
 * as a user runs them (built bin/memrl.js): the run manifest names the engine, the
 * image and the server version, and the run removes its containers when it ends.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkShellSandbox } from '../../src/env/shell/local.js';
import { listMemrlContainers } from '../../src/env/container/cleanup.js';
import { requireDocker, TEST_DB_IMAGE, TEST_OS_IMAGE } from './require-docker.js';
import { runMemrl } from '../helpers/cli.js';

const bin = resolve('bin/memrl.js');
const work = mkdtempSync(join(tmpdir(), 'memrl-llb-docker-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const db = await requireDocker(TEST_DB_IMAGE, 1);
const os = await requireDocker(TEST_OS_IMAGE, 1);

function memrl(args: string[]) {
  return runMemrl(args, { cwd: work, timeoutMs: 300_000 });
}

async function leftovers(pid: number): Promise<string[]> {
  const all = await listMemrlContainers(db.backend!.engine);
  return all.filter((c) => c.pid === pid).map((c) => `${c.id.slice(0, 12)} ${c.role}`);
}

beforeAll(() => {
  if (!existsSync(bin) || !existsSync(resolve('dist/src/cli/main.js'))) throw new Error('run `npm run build` first (npm test does)');
  writeFileSync(
    join(work, 'docker.yaml'),
    [
      'llm: {provider: sim, model: sim}',
      'embedding: {provider: local}',
      'memrl:',
      '  evaluator:',
      '    backend: docker',
      '    docker:',
      `      images: {llb_db: '${TEST_DB_IMAGE}', llb_os: '${TEST_OS_IMAGE}'}`,
      '      memory_mb: 512',
      '      pull: never',
      '',
    ].join('\n'),
  );
});

describe.skipIf(db.skip || os.skip)('memrl llb --evaluator docker', () => {
  it('the engine and images are there (under CI a missing one fails here)', () => {
    expect([db.reason, os.reason]).toEqual(['', '']);
  });

  it('run llb --task db: episodes on the server container, which is gone afterwards', async () => {
    const r = await memrl(['run', 'llb', '--task', 'db', '--config', 'docker.yaml', '--limit', '4', '--epochs', '1', '--output-dir', 'out-db']);
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    const dir = join(work, 'out-db', 'llb', readdirSync(join(work, 'out-db', 'llb'))[0]!);
    const manifest = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { evaluator: Record<string, unknown> };
    expect(manifest.evaluator).toMatchObject({ backend: 'docker', dialect: 'mariadb', image: { image: TEST_DB_IMAGE }, engine: { name: expect.any(String) } });
    expect(String(manifest.evaluator.server)).toMatch(/MariaDB/);
    const rows = readFileSync(join(dir, 'outcomes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { status: string });
    expect(rows).toHaveLength(4);
    expect(rows.every((o) => o.status === 'pass' || o.status === 'fail')).toBe(true);
    expect(await leftovers(r.pid!)).toEqual([]);
  }, 120_000);

  it('run llb --task os: one container per task, none left afterwards', async () => {
    const r = await memrl(['run', 'llb', '--task', 'os', '--evaluator', 'docker', '--config', 'docker.yaml', '--limit', '3', '--epochs', '1', '--output-dir', 'out-os']);
    expect(r.code).toBe(0);
    const dir = join(work, 'out-os', 'llb', readdirSync(join(work, 'out-os', 'llb'))[0]!);
    const manifest = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { evaluator: Record<string, unknown> };
    expect(manifest.evaluator).toMatchObject({ backend: 'docker', image: { image: TEST_OS_IMAGE } });
    const statuses = (d: string) => readFileSync(join(d, 'outcomes.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { status: string }).status);
    expect(statuses(dir).every((s) => s === 'pass' || s === 'fail')).toBe(true);
    expect(await leftovers(r.pid!)).toEqual([]);
    // The sim is deterministic: the local sandbox must give the same outcomes.
    if ((await checkShellSandbox()).ok) {
      const l = await memrl(['run', 'llb', '--task', 'os', '--evaluator', 'local', '--config', 'docker.yaml', '--limit', '3', '--epochs', '1', '--output-dir', 'out-os-local']);
      expect(l.code).toBe(0);
      expect(statuses(dir)).toEqual(statuses(join(work, 'out-os-local', 'llb', readdirSync(join(work, 'out-os-local', 'llb'))[0]!)));
    }
  }, 120_000);

  it('check-gold llb --evaluator docker names the evaluator and reports', async () => {
    const r = await memrl(['check-gold', 'llb', '--task', 'db', '--evaluator', 'docker', '--image', TEST_DB_IMAGE, '--limit', '6', '-q']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/evaluator: docker, .*llb-db-mariadb.*server .*MariaDB/);
    expect(r.stdout).toMatch(/passed 6\/6/);
    expect(await leftovers(r.pid!)).toEqual([]);
  }, 120_000);
});
