/**
 * `memrl plugin new <benchmark|method> <dir>`: a plug-in folder of its own (package.json,
 * tsconfig, the plug-in, one test) that runs as generated.
 */
import type { Command } from 'commander';
import { UserError } from '../../util/errors.js';
import { withExamples } from '../help.js';

export function registerPluginCommand(program: Command): void {
  const plugin = withExamples(program.command('plugin').description('write a plug-in: a benchmark or memory method in a folder of its own'), [
    'memrl plugin new benchmark ./my-bench',
    'memrl plugin new method ./my-method',
  ]);
  withExamples(
    plugin
      .command('new')
      .description('create a plug-in folder (package.json, tsconfig, index.ts, a README and one test) that runs as generated')
      .argument('<kind>', 'benchmark or method')
      .argument('<dir>', 'the new folder (must be empty or absent)')
      .option('--name <name>', "the plug-in's name (default: from the folder's name)")
      .option('--memrl <spec>', 'the memrl dependency in package.json (default: this memrl: its version, or file:<its folder> for a checkout)'),
    ['memrl plugin new benchmark my-bench && cd my-bench && npm install && npm test', 'memrl plugin new method ../recency --name recency'],
  ).action(async (kind: string, dir: string, flags: { name?: string; memrl?: string }) => {
    if (kind !== 'benchmark' && kind !== 'method') throw new UserError(`memrl plugin new: kind \`${kind}\` is neither benchmark nor method`, 'bad_input');
    const { scaffoldPlugin, shownDir } = await import('../../app/scaffold/index.js');
    const files = scaffoldPlugin(kind, dir, { ...(flags.name ? { name: flags.name } : {}), ...(flags.memrl ? { memrl: flags.memrl } : {}) });
    const shown = shownDir(dir);
    process.stdout.write(`wrote ${shown}: ${files.join(', ')}\nnext: cd ${shown} && npm install && npm test\n`);
  });
}
