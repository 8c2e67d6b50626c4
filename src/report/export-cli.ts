/** `memrl export`: flags checked, the run folder read, the bytes written to --out or stdout. */
import { existsSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRunFolder } from '../results/run-folder.js';
import { readTranscripts } from '../core/run-files/index.js';
import { UserError, errorMessage } from '../util/errors.js';
import { EXPORT_FORMATS, exportOutcomes, type ExportFormat } from './export-outcomes.js';
import { causeOf } from '../util/fs-errors.js';

export interface ExportFlags {
  format?: string;
  out?: string;
}

export interface ExportResult {
  bytes: Uint8Array;
  rows: number;
  format: ExportFormat;
}

export function buildExport(runDir: string, flags: ExportFlags): ExportResult {
  const format = flags.format;
  if (format === undefined) throw new UserError(`--format is required: one of ${EXPORT_FORMATS.join(', ')}`);
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) {
    throw new UserError(`--format ${format}: unknown export format; use one of ${EXPORT_FORMATS.join(', ')}`);
  }
  let run;
  try {
    run = readRunFolder(runDir);
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(`${errorMessage(err)} (in run folder ${runDir}; fix or move that folder)`);
  }
  const where = { runId: run.id, method: run.method, model: run.model, seed: run.seed, simulated: run.simulated };
  return { bytes: exportOutcomes(run.rows, format as ExportFormat, where), rows: run.rows.length, format: format as ExportFormat };
}

/** Write to a temp name and rename, so a failed export never leaves half a file under the real name, nor the temp file. */
export function writeExport(path: string, bytes: Uint8Array): void {
  if (existsSync(path) && statSync(path).isDirectory()) throw new UserError(`--out ${path}: is a folder; give a file name (e.g. ${join(path, 'out')})`);
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, bytes);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new UserError(`--out ${path}: cannot write (${causeOf(err)})`);
  }
}

/** Every transcript of the run, texts restored, one JSON line each; a run without them is one line saying so. */
export function writeTranscriptsExport(runDir: string, out: string): number {
  const run = readRunFolder(runDir);
  const transcripts = readTranscripts(run.dir);
  if (transcripts.length === 0) {
    throw new UserError(`${runDir}: no transcripts in this run folder (runs made before memrl recorded them have none); --format exports its outcome rows`, 'no_transcripts');
  }
  writeExport(out, Buffer.from(transcripts.map((t) => `${JSON.stringify(t)}\n`).join(''), 'utf8'));
  return transcripts.length;
}
