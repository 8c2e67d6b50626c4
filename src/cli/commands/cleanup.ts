/**
 * `memrl cleanup`: removes containers memrl left behind (a run killed with SIGKILL
 * cannot remove its own). By default only those whose memrl process is gone.
 */
import { basename } from 'node:path';
import type { Command } from 'commander';
import { UserError } from '../../util/errors.js';

interface CleanupFlags {
  config?: string;
  dockerHost?: string;
  run?: string;
  all?: boolean;
  dryRun?: boolean;
}

export function registerCleanupCommand(program: Command): void {
  program
    .command('cleanup')
    .description('remove containers left by crashed memrl runs (found by their dev.memrl labels)')
    .option('--config <yaml>', 'read memrl.evaluator.docker.host from this config')
    .option('--docker-host <url>', 'container engine (default: memrl.evaluator.docker.host, else DOCKER_HOST, else the usual sockets)')
    .option('--run <id>', "only the containers of this run (its folder, or the folder's name), whether its process lives or not")
    .option('--all', 'every memrl container on the engine, including those of running memrl processes')
    .option('--dry-run', 'list what would be removed')
    .addHelpText('after', `\nExamples:\n  memrl cleanup --dry-run          # what a crashed run left\n  memrl cleanup --run results/bcb/<run-id>\n  memrl cleanup --all              # every memrl container, also of live runs\n`)
    .action(async (flags: CleanupFlags) => {
      if (flags.run && flags.all) throw new UserError('memrl cleanup: give --run <id> or --all, not both');
      // The config loader and the container engine's client load when the command runs, not for its --help.
      const { loadConfig } = await import('../../app/config.js');
      const { defaultBenchmark } = await import('../../app/registry.js');
      const { isOrphan, listMemrlContainers, removeContainers } = await import('../../env/container/cleanup.js');
      const { openEngine } = await import('../../env/container/engine.js');
      const cfg = loadConfig(flags.config, flags.dockerHost ? { dockerHost: flags.dockerHost } : {}, defaultBenchmark(), { inspect: true });
      const { engine } = await openEngine(cfg.evaluator.docker.host);
      const all = await listMemrlContainers(engine);
      // A run's label is its folder's name, so a path to the folder names it too.
      const run = flags.run ? basename(flags.run.replace(/\/+$/, '')) : undefined;
      const chosen = all.filter((c) => (flags.all ? true : run ? c.run === run : isOrphan(c)));
      for (const c of chosen) process.stdout.write(`${flags.dryRun ? 'would remove' : 'removing'} ${c.id.slice(0, 12)}  ${c.role}  run ${c.run}  pid ${c.pid}  ${c.state}\n`);
      const removed = flags.dryRun ? 0 : await removeContainers(engine, chosen.map((c) => c.id));
      const kept = all.length - chosen.length;
      process.stdout.write(
        `${flags.dryRun ? `${chosen.length} to remove` : `removed ${removed}`}` + (kept > 0 ? `; kept ${kept} of live memrl processes (--all removes them too)` : '') + '\n',
      );
    });
}
