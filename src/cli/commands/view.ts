import type { Command } from 'commander';
import { UserError } from '../../util/errors.js';

/** `memrl view [paths...]`: browse runs episode by episode in a local web app. */
export function registerViewCommand(program: Command): void {
  program
    .command('view')
    .argument('[paths...]', 'run folders, or folders holding them (a sweep, results/)', ['results'])
    .description('browse runs in a local web app (127.0.0.1 only): task × epoch grids, each episode’s transcript and memories, two runs side by side, a memory’s life')
    .option('--port <n>', 'port on 127.0.0.1 (0: any free one)', '7420')
    .addHelpText('after', '\nExamples:\n  memrl view results/\n  memrl view sweeps/paper --port 0\n\nDetails: docs/view.md\n')
    .action(async (paths: string[], flags: { port: string }) => {
      const port = Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UserError(`--port ${flags.port}: give a port number 0–65535`);
      const { startViewServer } = await import('../../view/server.js');
      const server = await startViewServer(paths, port);
      process.stdout.write(`memrl view: ${server.url}\n`);
      process.stderr.write('memrl view: serving on 127.0.0.1 only; Ctrl-C to stop\n');
      await new Promise<void>((resolve) => {
        const stop = (): void => void server.close().then(resolve);
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
    });
}
