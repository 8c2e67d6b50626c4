import type { Command } from 'commander';
import type { Registry } from '../../app/registry.js';
import { UserError } from '../../util/errors.js';

interface WorkerFlags {
  queue: string;
  concurrency: string;
  episodes: string;
  name?: string;
  without?: string;
}

/**
 * `memrl worker --queue redis://…`: run sweep cells and run episodes from the queue until
 * stopped. `memrl worker status --queue redis://…`: what waits there and who takes it.
 */
export function registerWorkerCommand(program: Command, registry: Registry): void {
  const worker = program
    .command('worker')
    .description('take jobs from a BullMQ queue on Redis (cells of sweeps, episodes of `memrl run --queue`) and run them, until stopped (SIGTERM: finish the jobs in hand, then exit)')
    .addHelpText('after', '\nExamples:\n  memrl worker --queue redis://127.0.0.1:6379\n  memrl worker --queue redis://:secret@coordinator:6379 --concurrency 2 --episodes 16\n  memrl worker status --queue redis://127.0.0.1:6379\n\nDetails: docs/scale.md\n');
  worker
    .command('status')
    .description('print the queues on the Redis (jobs waiting, active, failed, done) and the workers listening to each')
    .requiredOption('--queue <url>', 'the Redis the coordinator queues on (redis://host:port)')
    .option('--json', 'print it as JSON')
    .action(async (flags: { queue: string; json?: boolean }) => {
      const { queueStatus, renderQueueStatus } = await import('../../sweep/queue-status.js');
      const status = await queueStatus(flags.queue);
      process.stdout.write(flags.json ? `${JSON.stringify(status, null, 2)}\n` : renderQueueStatus(status));
    });
  worker
    .command('start', { isDefault: true })
    .description('take jobs until stopped (the default: memrl worker --queue …)')
    .requiredOption('--queue <url>', 'the Redis the coordinator queues on (redis://host:port)')
    .option('--concurrency <n>', 'cells this worker runs at once', '1')
    .option('--episodes <n>', 'episodes of `memrl run --queue` runs this worker plays at once', '8')
    .option('--name <name>', 'how sweep.json names this worker (default: host:pid)')
    .option('--without <list>', 'act as if these were missing (comma-separated: bwrap, mariadb, containers)')
    .action(async (flags: WorkerFlags) => {
      const concurrency = Number(flags.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1) throw new UserError(`--concurrency ${flags.concurrency}: give a whole number ≥ 1`);
      const episodes = Number(flags.episodes);
      if (!Number.isInteger(episodes) || episodes < 1) throw new UserError(`--episodes ${flags.episodes}: give a whole number ≥ 1`);
      const without = (flags.without ?? '').split(',').map((s) => s.trim()).filter(Boolean);
      for (const w of without) if (!['bwrap', 'mariadb', 'containers'].includes(w)) throw new UserError(`--without ${w}: expected bwrap, mariadb or containers`);
      const { startWorker } = await import('../../sweep/worker.js');
      const running = await startWorker({
        url: flags.queue,
        registry,
        concurrency,
        episodes,
        ...(flags.name ? { name: flags.name } : {}),
        without: without as ('bwrap' | 'mariadb' | 'containers')[],
        log: (t) => process.stderr.write(t),
      });
      await new Promise<void>((resolve) => {
        let stopping = false;
        const stop = (sig: string): void => {
          if (stopping) process.exit(130);
          stopping = true;
          process.stderr.write(`memrl worker: ${sig}: finishing the jobs in hand, then exiting (again to quit now)\n`);
          void running.close().then(resolve);
        };
        process.on('SIGTERM', () => stop('SIGTERM'));
        process.on('SIGINT', () => stop('SIGINT'));
      });
      // The jobs in hand are done; a connection the queue library could not close must not keep the process.
      process.exit(process.exitCode ?? 0);
    });
}
