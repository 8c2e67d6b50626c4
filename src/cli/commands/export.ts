import type { Command } from 'commander';
import type { ExportFlags } from '../../report/export-cli.js';
import { UserError } from '../../util/errors.js';

/** `memrl export <run-dir> --format parquet|arrow|csv [--out file]`: the outcome matrix for pandas / polars. */
export function registerExportCommand(program: Command): void {
  program
    .command('export')
    .argument('<run-dir>', 'a run folder (results/<benchmark>/<run-id>)')
    .description('write the outcome matrix (one row per task × epoch × phase) as Parquet, Arrow IPC or CSV')
    .option('--format <format>', 'parquet, arrow or csv')
    .option('--out <file>', 'output file (default: stdout)')
    .option('--transcripts <file>', "also write every episode's transcript (each model call: messages as sent, reply) as JSON lines, one per outcome row (its extra.transcriptId)")
    .addHelpText('after', `\nExamples:\n  memrl export results/bcb/<run-id> --format parquet --out run.parquet\n  memrl export results/bcb/<run-id> --format csv > run.csv\n  memrl export results/bcb/<run-id> --format parquet --out run.parquet --transcripts transcripts.jsonl\n`)
    .action(async (runDir: string, flags: ExportFlags & { transcripts?: string }) => {
      // Arrow and Parquet writers load when the command runs, not for its --help.
      const { buildExport, writeExport, writeTranscriptsExport } = await import('../../report/export-cli.js');
      if (flags.transcripts) {
        const n = writeTranscriptsExport(runDir, flags.transcripts);
        process.stderr.write(`memrl: wrote ${n} transcripts to ${flags.transcripts}\n`);
      }
      const result = buildExport(runDir, flags);
      if (flags.out) {
        writeExport(flags.out, result.bytes);
        process.stderr.write(`memrl: wrote ${result.rows} rows to ${flags.out}\n`);
        return;
      }
      // Binary on a terminal is never what anyone wants.
      if (result.format !== 'csv' && process.stdout.isTTY) {
        throw new UserError(`--format ${result.format} is binary: give --out <file> or redirect stdout`);
      }
      process.stdout.write(result.bytes);
    });
}
