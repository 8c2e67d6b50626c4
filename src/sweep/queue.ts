/**
 * What the coordinator and the workers agree on: the Redis URL, the queues (one per set
 * of evaluators a cell needs, so a job only reaches a worker that can run it), the job
 * ids and the job data. BullMQ (on Debian's redis-server) does the queueing: locks,
 * stalled-job retries when a worker dies, deduplication by job id.
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { WORKER_NEEDS, type BenchmarkModule, type WorkerNeed } from '../core/benchmark.js';
import { redactUrlCredentials } from '../llm/redact.js';
import { UserError } from '../util/errors.js';
import type { Cell } from './plan.js';

/** What a cell may need of the machine that runs it. */
export type Need = WorkerNeed;
export const ALL_NEEDS: readonly Need[] = WORKER_NEEDS;

export const QUEUE_PREFIX = 'memrl';

/** Whole cells of sweeps, or single episodes of a run (`memrl run --queue`). */
export type JobKind = 'cells' | 'episodes';

/** The queue of jobs of this kind that need exactly these things. */
export function queueName(needs: readonly Need[], kind: JobKind = 'cells'): string {
  return needs.length === 0 ? kind : `${kind}-${[...needs].sort().join('+')}`;
}

/** What queueName made `name` from, or undefined for a name it does not make. */
export function parseQueueName(name: string): { kind: JobKind; needs: Need[] } | undefined {
  const [kind, rest] = name.split(/-(.*)/s) as [string, string | undefined];
  if (kind !== 'cells' && kind !== 'episodes') return undefined;
  const needs = rest === undefined ? [] : rest.split('+');
  if (!needs.every((n): n is Need => (ALL_NEEDS as readonly string[]).includes(n))) return undefined;
  return queueName(needs, kind) === name ? { kind, needs } : undefined;
}

/** Every queue of this kind a worker with these capabilities can serve: its needs are a subset. */
export function queuesFor(caps: ReadonlySet<Need>, kind: JobKind = 'cells'): string[] {
  const subsets: Need[][] = [[]];
  for (const n of ALL_NEEDS) if (caps.has(n)) for (const s of [...subsets]) subsets.push([...s, n]);
  return subsets.map((s) => queueName(s, kind));
}

/**
 * What a cell's (or a run's) episodes need of a worker, from its config: a container
 * engine with the docker backend, else what its benchmark's module says it needs.
 */
export function cellNeeds(cell: Pick<Cell, 'config'>, bench: Pick<BenchmarkModule, 'name' | 'workerNeeds'> | undefined): Need[] {
  const cfg = cell.config as { memrl?: { evaluator?: { backend?: string } } };
  if (cfg.memrl?.evaluator?.backend === 'docker') return ['containers'];
  const needs = [...(bench?.workerNeeds?.(cell.config) ?? [])];
  const unknown = needs.find((n) => !ALL_NEEDS.includes(n));
  if (unknown !== undefined) throw new UserError(`benchmark ${bench!.name}: workerNeeds gave \`${String(unknown)}\`, which no worker offers (known: ${ALL_NEEDS.join(', ')})`, 'plugin_invalid');
  return needs;
}

export interface CellJob {
  sweepDir: string;
  sweepName: string;
  cellId: string;
  /** The sweep's plug-ins, by absolute path: the worker loads them before it runs the cell. */
  plugins?: string[];
}

/** Stable across re-runs of the same sweep, so a cell is queued once however often the sweep command runs. */
export function cellJobId(sweepDir: string, cellId: string): string {
  return `${createHash('sha256').update(sweepDir).digest('hex').slice(0, 10)}-${cellId}`;
}

export interface QueueTarget {
  /** For ioredis/BullMQ. */
  connection: { host: string; port: number; username?: string; password?: string; db?: number; tls?: object };
  /** The URL with any password hidden, for messages. */
  label: string;
}

export function queueTarget(url: string): QueueTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UserError(`--queue ${redactUrlCredentials(url)}: not a URL; give redis://host:port`, 'bad_queue_url');
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw new UserError(`--queue ${redactUrlCredentials(url)}: expected redis://host:port (or rediss:// for TLS)`, 'bad_queue_url');
  const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : undefined;
  return {
    connection: {
      host: u.hostname || '127.0.0.1',
      port: u.port ? Number(u.port) : 6379,
      ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
      ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
      ...(db !== undefined && Number.isInteger(db) ? { db } : {}),
      ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    },
    label: `${u.protocol}//${u.username || u.password ? `${u.username}${u.password ? ':***' : ''}@` : ''}${u.host}${u.pathname.length > 1 ? u.pathname : ''}`,
  };
}

/** Fails in one line, within `timeoutMs`, when nothing answers at the URL. */
export async function checkReachable(target: QueueTarget, timeoutMs = 10_000): Promise<void> {
  const redis = new Redis({ ...target.connection, lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  let first: NodeJS.ErrnoException | undefined;
  redis.on('error', (e: NodeJS.ErrnoException) => (first ??= e)); // reported below, once
  try {
    await Promise.race([
      redis.connect().then(() => redis.ping()),
      new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer in ${timeoutMs / 1000} s`)), timeoutMs).unref()),
    ]);
  } catch (err) {
    const cause = first ?? (err as NodeJS.ErrnoException);
    const why = cause.code ?? (cause instanceof Error ? cause.message : String(cause));
    throw new UserError(`${target.label}: Redis not reachable (${why}); start it (bash scripts/setup.sh redis) or fix the URL`, 'queue_unreachable');
  } finally {
    redis.disconnect();
  }
}
