/**
 * `memrl sweep <file> --queue redis://…`: the coordinator queues every unfinished cell
 * (one job each, id derived from the sweep folder and the cell, so re-running the
 * command never queues a cell twice) on the queue of what it needs, then follows the
 * jobs to the end, rewriting sweep.json as cells finish. Ctrl-C stops following; the
 * cells stay queued and the workers go on.
 */
import { Queue, QueueEvents } from 'bullmq';
import { CLOSE_GRACE_MS, closeWithin, droppedLine } from './close-within.js';
import type { OpenSweep } from './prepare.js';
import { cellNeeds, cellJobId, checkReachable, QUEUE_PREFIX, queueName, queueTarget, type CellJob } from './queue.js';
import { cellFromDisk, writeSweepState, type CellState } from './state.js';

export interface QueueSweepOptions {
  url: string;
  err(text: string): void;
  signal?: AbortSignal;
}

export async function runSweepOnQueue(sweep: OpenSweep, opts: QueueSweepOptions): Promise<CellState[]> {
  const target = queueTarget(opts.url);
  await checkReachable(target);
  const connection = { ...target.connection, maxRetriesPerRequest: null };
  const states = new Map(sweep.state.cells.map((c) => [c.id, c]));
  const save = (): void => writeSweepState(sweep.dir, { ...sweep.state, cells: sweep.cells.map((c) => states.get(c.id)!) });
  const todo = sweep.cells.filter((c) => states.get(c.id)!.status !== 'complete');
  const byQueue = new Map<string, typeof todo>();
  for (const c of todo) {
    const q = queueName(cellNeeds(c, sweep.registry.benchmarks.find((b) => b.name === c.benchmark)));
    byQueue.set(q, [...(byQueue.get(q) ?? []), c]);
  }
  const queues = new Map([...byQueue.keys()].map((q) => [q, new Queue<CellJob>(q, { connection, prefix: QUEUE_PREFIX })]));
  const events = new Map([...byQueue.keys()].map((q) => [q, new QueueEvents(q, { connection, prefix: QUEUE_PREFIX })]));
  opts.err(`memrl: sweep ${sweep.spec.name}: ${sweep.cells.length} cells, ${todo.length} queued on ${target.label} (${[...byQueue.entries()].map(([q, cs]) => `${q}: ${cs.length}`).join(', ')})\n`);
  try {
    await Promise.all([...events.values()].map((e) => e.waitUntilReady()));
    const stopped = new Promise<'stopped'>((resolve) => {
      if (opts.signal?.aborted) resolve('stopped');
      opts.signal?.addEventListener('abort', () => resolve('stopped'));
    });
    await Promise.all(
      [...byQueue.entries()].flatMap(([q, cells]) =>
        cells.map(async (cell) => {
          const job = await queues.get(q)!.add(
            'cell',
            { sweepDir: sweep.dir, sweepName: sweep.spec.name, cellId: cell.id, ...(sweep.spec.plugins.length ? { plugins: sweep.spec.plugins } : {}) },
            { jobId: cellJobId(sweep.dir, cell.id), attempts: 3, backoff: { type: 'fixed', delay: 2000 }, removeOnComplete: true, removeOnFail: true },
          );
          states.set(cell.id, { ...states.get(cell.id)!, status: 'running' });
          save();
          const outcome = await Promise.race([job.waitUntilFinished(events.get(q)!).then((r: CellState) => r, (e: Error) => e), stopped]);
          if (outcome === 'stopped') return;
          if (outcome instanceof Error) {
            states.set(cell.id, { ...cellFromDisk(sweep.dir, cell), status: 'error', error: outcome.message });
            opts.err(`[${cell.id}] failed on every attempt: ${outcome.message}\n`);
          } else {
            states.set(cell.id, { ...cellFromDisk(sweep.dir, cell), ...(outcome.worker ? { worker: outcome.worker } : {}), ...(outcome.error ? { error: outcome.error } : {}), ...(outcome.status === 'failed' ? { status: 'failed' as const } : {}) });
            opts.err(`[${cell.id}] ${outcome.status} on ${outcome.worker ?? 'a worker'}\n`);
          }
          save();
        }),
      ),
    );
    if (opts.signal?.aborted) opts.err('memrl: stopped following the sweep; its cells stay queued and the workers go on (run the same command to follow again)\n');
  } finally {
    if (!(await closeWithin([...queues.values(), ...events.values()], CLOSE_GRACE_MS))) opts.err(droppedLine(target.label, CLOSE_GRACE_MS));
    // Cells still queued or running read as interrupted from disk: keep them 'running' for status.
    save();
  }
  return sweep.cells.map((c) => states.get(c.id)!);
}
