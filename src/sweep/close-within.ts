/**
 * Closing BullMQ's queues, event streams and workers without waiting forever.
 *
 * After a Redis outage a connection can sit between two reconnect attempts (BullMQ
 * spaces them up to 20 s apart). Told to disconnect then, ioredis cancels the attempt but
 * never reports the connection ended (redis/ioredis#2169), and BullMQ's close waits for
 * exactly that report (taskforcesh/bullmq#4656). So every close here gets a grace period;
 * past it, the connections are dropped, which leaves nothing that keeps the process up.
 */

/** How long a run's or a sweep's connections get to close (a worker's get theirs after its last job). */
export const CLOSE_GRACE_MS = 5_000;

/** What BullMQ's Queue, QueueEvents and Worker all have. */
export interface Closable {
  close(): Promise<void>;
  disconnect(): Promise<void>;
}

/**
 * Closes `parts`; once `from` has settled (default: now), they get `graceMs` to finish, and
 * then are disconnected. True when they closed in time; false when they were dropped.
 */
export async function closeWithin(parts: Closable[], graceMs: number, from: Promise<unknown> = Promise.resolve()): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = from.then(() => new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), graceMs).unref())));
  const closed = await Promise.race([Promise.all(parts.map((p) => p.close())).then(() => true as const), late]);
  clearTimeout(timer);
  if (!closed) for (const p of parts) void p.disconnect().catch(() => undefined);
  return closed;
}

/** The line a run or a sweep prints when its connections to Redis at `label` were dropped. */
export function droppedLine(label: string, graceMs: number): string {
  return `memrl: the connections to Redis at ${label} did not close within ${graceMs / 1000} s; dropped them\n`;
}
