/** The "Examples:" block that ends each command's --help. */
import type { Command } from 'commander';

export function withExamples(cmd: Command, lines: readonly string[]): Command {
  return cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
}
