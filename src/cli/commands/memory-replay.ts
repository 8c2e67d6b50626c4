import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { UserError, errorMessage } from '../../util/errors.js';
import { replayOps } from '../../memory/replay.js';
import { withExamples } from '../help.js';
import { causeOf } from '../../util/fs-errors.js';

/** `memrl memory replay <ops.jsonl>`: run memory ops from a file, one JSON line out per retrieve/update. */
export function registerMemoryCommand(program: Command): void {
  const memory = program.command('memory').description('inspect and exercise the memory engine');
  withExamples(memory, [
    'memrl memory replay ops.jsonl               # one JSON line out per retrieve / update',
    'memrl memory replay ops.jsonl > ours.jsonl  # to compare with another implementation on the same ops',
  ]).addHelpText('after', 'The ops format: docs/memory-engine.md\n');
  memory
    .command('replay')
    .argument('<ops.jsonl>', 'JSON lines: optional config, then insert / retrieve / update ops')
    .description('replay memory operations against a fresh engine and print the results as JSON lines')
    .addHelpText('after', `\nExamples:\n  memrl memory replay ops.jsonl    # one JSON line out per retrieve / update (see docs/memory-engine.md)\n`)
    .action((file: string) => {
      runReplay(file);
    });
}

function runReplay(file: string): void {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return fail(new UserError(`cannot read ${file}: ${causeOf(err)}`));
  }
  let out: string[];
  try {
    out = replayOps(text.split(/\r?\n/), file);
  } catch (err) {
    return fail(err instanceof UserError ? err : new UserError(`${file}: ${errorMessage(err)}`));
  }
  if (out.length > 0) process.stdout.write(out.join('\n') + '\n');
}

/** The exit code is set here too, for callers that run the command in-process (not through the CLI entry). */
function fail(err: UserError): never {
  process.exitCode = err.exitCode;
  throw err;
}
