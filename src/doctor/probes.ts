/**
 * Probes for `memrl doctor`: is a piece of the machine there and does it work, and if
 * not, why and what to run. Each is cheap and independent; none of them changes
 * anything. Benchmarks use them in their own doctor checks (probeEnv asks the env
 * registry's backend for its self-check; docker.ts checks the container engine and
 * every registered image).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describeError } from '../env/container/errors.js';
import { checkEnv, type EnvKind, type EnvKinds } from '../env/registry.js';

export interface DoctorCheck {
  backend: 'local' | 'docker';
  /** What this part is for, e.g. 'bcb tests', 'llb db server'. */
  part: string;
  ok: boolean;
  detail: string;
}

export type ProbeOutcome = { ok: true; detail: string } | { ok: false; detail: string };
type Outcome = ProbeOutcome;

/** Runs a probe; a throw becomes a failed check with the error's text. */
export async function settle(fn: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return await fn();
  } catch (err) {
    return { ok: false, detail: describeError(err) };
  }
}

/** The interpreter's version, or why it cannot run. */
export function pythonVersion(python: string): Outcome {
  if (!existsSync(python)) return { ok: false, detail: `${python} not found; install with: bash scripts/setup.sh` };
  const r = spawnSync(python, ['-c', 'import sys; print(sys.version.split()[0])'], { encoding: 'utf8', timeout: 10_000 });
  return r.status === 0 ? { ok: true, detail: `python ${r.stdout.trim()}` } : { ok: false, detail: `${python} does not run: ${r.stderr.trim().split('\n').at(-1)}` };
}


/** The self-check of an environment backend from the env registry (see checkEnv). */
export async function probeEnv<K extends EnvKind>(kind: K, backend: 'local' | 'docker', settings: EnvKinds[K]['settings']): Promise<Outcome> {
  return settle(async () => {
    const c = await checkEnv(kind, backend, settings);
    return c.ok ? { ok: true, detail: c.detail ?? 'works' } : { ok: false, detail: c.reason };
  });
}

/** Redis for `memrl sweep --queue` and `memrl worker`: the server binary, and whether one answers here. */
export function probeRedis(): Outcome {
  const v = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (v.status !== 0) return { ok: false, detail: 'redis-server not installed (memrl sweep --queue, memrl run --queue and memrl worker need a Redis): bash scripts/setup.sh redis' };
  const version = /v=(\S+)/.exec(v.stdout)?.[1] ?? 'unknown version';
  const ping = spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', '6379', 'ping'], { encoding: 'utf8', timeout: 3000 });
  return ping.stdout?.includes('PONG')
    ? { ok: true, detail: `redis-server ${version}, answering on 127.0.0.1:6379` }
    : { ok: true, detail: `redis-server ${version} installed, not running here (start it with: bash scripts/setup.sh redis; workers may use another host's)` };
}
