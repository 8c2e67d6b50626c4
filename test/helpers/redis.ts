/**
 * A real redis-server for the queue tests, on a free loopback port, no persistence,
 * stopped when the test file ends. The binary comes from `bash scripts/setup.sh redis`.
 * Under CI=true a missing binary fails; elsewhere the suites skip with the reason.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { afterAll } from 'vitest';
import { freePort } from '../../src/util/free-port.js';
import { eventually } from './processes.js';
import { IN_CI } from './require-engine.js';

export const HAVE_REDIS = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
if (!HAVE_REDIS && !IN_CI) console.warn('[redis] skipped: redis-server not found (bash scripts/setup.sh redis)');
/** For describe.skipIf: true only when missing and not in CI (there the test fails instead). */
export const SKIP_REDIS = !HAVE_REDIS && !IN_CI;

const started: ChildProcess[] = [];
afterAll(() => {
  for (const p of started.splice(0)) p.kill('SIGKILL');
});

export interface RedisServer {
  url: string;
  port: number;
  stop(): void;
}

/** Starts redis-server on `port` (default: a free one) and waits until it answers. */
export async function startRedis(port?: number): Promise<RedisServer> {
  if (!HAVE_REDIS) throw new Error('redis-server is missing: bash scripts/setup.sh redis');
  const p = port ?? (await freePort());
  const child = spawn('redis-server', ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  started.push(child);
  const up = await eventually(() => spawnSync('redis-cli', ['-p', String(p), 'ping'], { encoding: 'utf8' }).stdout.includes('PONG'), 10_000, 100);
  if (!up) throw new Error(`redis-server did not answer on port ${p}`);
  return { url: `redis://127.0.0.1:${p}`, port: p, stop: () => child.kill('SIGKILL') };
}
