/**
 * `memrl worker status --queue redis://…`: what waits on the queues and who takes it.
 * Every memrl queue on the Redis (sweep cells and run episodes, one queue per set of
 * needs), its job counts, and the workers listening to it, by the name each worker gave
 * (`--name`, host:pid by default). A queue with jobs waiting and no worker listening
 * says which capability no connected worker has, the usual reason a job sits there.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { checkReachable, parseQueueName, QUEUE_PREFIX, queueTarget, type Need } from './queue.js';

/** What BullMQ appends to a queue's client name for a named worker's connection. */
const NAMED_WORKER = ':w:';

export interface QueueCounts {
  queue: string;
  /** What a job on this queue needs of the machine (from the queue's name). */
  needs: Need[];
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  completed: number;
  /** Names of the workers listening to it (an unnamed BullMQ worker is "(unnamed)"). */
  workers: string[];
}

export interface ConnectedWorker {
  name: string;
  /** Its address as Redis sees it. */
  addr: string;
  /** Seconds since its oldest connection to a queue was opened. */
  connectedS: number;
  queues: string[];
}

export interface QueueStatus {
  /** The Redis URL, password hidden. */
  label: string;
  queues: QueueCounts[];
  workers: ConnectedWorker[];
}

/** The memrl queues that exist on this Redis (BullMQ keeps a meta hash per queue). */
async function queueNames(redis: Redis): Promise<string[]> {
  const names = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${QUEUE_PREFIX}:*:meta`, 'COUNT', 1000);
    cursor = next;
    for (const k of keys) {
      const name = k.slice(QUEUE_PREFIX.length + 1, -':meta'.length);
      if (parseQueueName(name)) names.add(name);
    }
  } while (cursor !== '0');
  return [...names].sort();
}

export async function queueStatus(url: string): Promise<QueueStatus> {
  const target = queueTarget(url);
  await checkReachable(target);
  // One connection for the scan and every queue's counts (a Queue given it does not close it).
  const redis = new Redis({ ...target.connection, maxRetriesPerRequest: null });
  try {
    const queues: QueueCounts[] = [];
    const workers = new Map<string, ConnectedWorker>();
    for (const name of await queueNames(redis)) {
      const q = new Queue(name, { connection: redis, prefix: QUEUE_PREFIX });
      try {
        const counts = await q.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed', 'completed');
        const listening: string[] = [];
        for (const c of await q.getWorkers()) {
          const raw = String(c.rawname ?? '');
          const at = raw.indexOf(NAMED_WORKER);
          const who = at >= 0 ? raw.slice(at + NAMED_WORKER.length) : '(unnamed)';
          listening.push(who);
          const seen = workers.get(who) ?? { name: who, addr: String(c.addr ?? '?'), connectedS: 0, queues: [] };
          seen.connectedS = Math.max(seen.connectedS, Number(c.age ?? 0));
          if (!seen.queues.includes(name)) seen.queues.push(name);
          workers.set(who, seen);
        }
        queues.push({
          queue: name,
          needs: parseQueueName(name)!.needs,
          waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
          active: counts.active ?? 0,
          delayed: counts.delayed ?? 0,
          failed: counts.failed ?? 0,
          completed: counts.completed ?? 0,
          workers: [...new Set(listening)].sort(),
        });
      } finally {
        await q.close();
      }
    }
    return { label: target.label, queues, workers: [...workers.values()].sort((a, b) => a.name.localeCompare(b.name)) };
  } finally {
    redis.disconnect();
  }
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows].map((r) => r.map((x, i) => (i === 0 ? x.padEnd(widths[i]!) : x.padStart(widths[i]!))).join('  '));
}

const duration = (s: number): string => (s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${(s / 3600).toFixed(1)} h`);

export function renderQueueStatus(st: QueueStatus): string {
  if (st.queues.length === 0) return `${st.label}: no memrl queues yet (a worker, \`memrl sweep --queue\` or \`memrl run --queue\` makes them)\n`;
  // A worker listens to a queue for every set of needs it could serve: most stay empty.
  const shown = st.queues.filter((q) => q.waiting + q.active + q.delayed + q.failed + q.completed > 0 || q.workers.length > 0);
  const rows = shown.map((q) => [q.queue, String(q.waiting), String(q.active), String(q.delayed), String(q.failed), String(q.completed), String(q.workers.length)]);
  const lines = [`${st.label}`, ...table(['queue', 'waiting', 'active', 'delayed', 'failed', 'completed', 'workers'], rows)];
  const hidden = st.queues.length - shown.length;
  if (hidden) lines.push(`(${hidden} more queue(s) without jobs or workers)`);
  lines.push('', st.workers.length ? 'workers:' : 'workers: none connected (start one: memrl worker --queue …)');
  for (const w of st.workers) lines.push(`  ${w.name}  ${w.addr}  connected ${duration(w.connectedS)}  ${w.queues.join(', ')}`);
  const stuck = st.queues.filter((q) => q.waiting + q.delayed > 0 && q.workers.length === 0);
  for (const q of stuck) {
    const what = q.needs.length ? `needs ${q.needs.join(' and ')}` : 'needs nothing special';
    lines.push('', `${q.queue}: ${q.waiting + q.delayed} job(s) wait and no worker listens (the queue ${what}; a worker that lacks it says so when it starts)`);
  }
  return lines.join('\n') + '\n';
}
