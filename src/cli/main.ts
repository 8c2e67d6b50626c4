import { Command, CommanderError } from 'commander';
import { UserError, errorMessage } from '../util/errors.js';
import { memrlVersion } from '../util/version.js';
import { normalizeSnakeCaseArgs } from './run-flags.js';
import { registerRunCommand } from './commands/run.js';
import { registerConfigCommand } from './commands/config.js';
import { registerMemoryCommand } from './commands/memory-replay.js';
import { registerCheckGoldCommand } from './commands/check-gold.js';
import { registerTableCommand } from './commands/table.js';
import { registerCompareCommand } from './commands/compare.js';
import { registerExportCommand } from './commands/export.js';
import { registerReportCommand } from '../report/report-cli.js';
import { registerDoctorCommand } from './commands/doctor.js';
import { registerCleanupCommand } from './commands/cleanup.js';

export function buildProgram(): Command {
  const program = new Command('memrl')
    .description('Memory-augmented LLM agents on real benchmarks (MemRL, arXiv 2601.03192) and their baselines')
    .version(memrlVersion(), '-V, --version')
    .exitOverride();
  registerRunCommand(program);
  registerConfigCommand(program);
  registerMemoryCommand(program);
  registerCheckGoldCommand(program);
  registerTableCommand(program);
  registerCompareCommand(program);
  registerExportCommand(program);
  registerReportCommand(program);
  registerDoctorCommand(program);
  registerCleanupCommand(program);
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}

/** Entry point: user errors become one line on stderr and a non-zero exit code, never a stack trace. */
export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(normalizeSnakeCaseArgs(argv));
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version exit 0; commander already printed its message.
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    if (err instanceof UserError) {
      process.stderr.write(`memrl: ${err.message}\n`);
      process.exitCode = err.exitCode;
      return;
    }
    process.stderr.write(`memrl: ${errorMessage(err)}\n`);
    if (process.env.MEMRL_DEBUG) process.stderr.write(`${(err as Error)?.stack ?? ''}\n`);
    process.exitCode = 1;
  }
}
