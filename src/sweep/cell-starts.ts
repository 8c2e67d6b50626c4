/**
 * What running a sweep again will do with each cell, said before anything starts: a
 * finished cell is left alone; one with a run folder resumes after that run's last
 * epoch checkpoint, taking the episodes its journal kept as recorded; one without
 * starts fresh. Read from the run folders without touching them, by the rules the
 * runner's --resume applies to the same files.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JOURNAL_FILE, parseJournalLine } from '../core/run-files/journal.js';
import { RunFolder } from '../runner/run-folder.js';
import { errorMessage } from '../util/errors.js';
import type { OpenSweep } from './prepare.js';
import { cellRunDir } from './state.js';

export type CellStart =
  | { id: string; kind: 'done'; epochs: number }
  | { id: string; kind: 'resume'; epoch: number; planned: number | null; journaled: number }
  | { id: string; kind: 'fresh' }
  | { id: string; kind: 'unreadable'; error: string };

export function cellStarts(sweep: OpenSweep): CellStart[] {
  const states = new Map(sweep.state.cells.map((c) => [c.id, c]));
  return sweep.cells.map((cell): CellStart => {
    const state = states.get(cell.id);
    if (state?.status === 'complete') return { id: cell.id, kind: 'done', epochs: state.epochsDone };
    const runDir = cellRunDir(sweep.dir, cell);
    if (!runDir) return { id: cell.id, kind: 'fresh' };
    try {
      const done = new RunFolder(runDir).readCheckpoint()?.epochCompleted ?? null;
      return { id: cell.id, kind: 'resume', epoch: (done ?? 0) + 1, planned: state?.epochsPlanned ?? null, journaled: journaledEpisodes(runDir, done) };
    } catch (e) {
      return { id: cell.id, kind: 'unreadable', error: errorMessage(e) };
    }
  });
}

/**
 * The episodes a resume takes from journal.jsonl: those after the checkpointed epoch
 * (all of them without a checkpoint), each once; a line cut short by a kill (or no entry) is skipped.
 */
function journaledEpisodes(runDir: string, checkpointed: number | null): number {
  const path = join(runDir, JOURNAL_FILE);
  if (!existsSync(path)) return 0;
  const kept = new Set<string>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const e = parseJournalLine(line);
    if (e?.kind === 'episode' && (checkpointed === null || e.epoch > checkpointed)) kept.add(`${e.phase}|${e.epoch}|${e.taskIndex}`);
  }
  return kept.size;
}

/** One line per cell (one line in all when every cell starts fresh), indented under the sweep's header. */
export function renderCellStarts(starts: readonly CellStart[]): string {
  if (starts.every((s) => s.kind === 'fresh')) return `  every cell starts fresh\n`;
  const width = Math.max(...starts.map((s) => s.id.length));
  const what = (s: CellStart): string => {
    switch (s.kind) {
      case 'done':
        return `done (${s.epochs} epoch${s.epochs === 1 ? '' : 's'}), not run again`;
      case 'fresh':
        return 'starts fresh';
      case 'unreadable':
        return `cannot tell where it resumes: ${s.error}`;
      case 'resume': {
        const at = s.planned !== null && s.epoch > s.planned ? `resumes after its last epoch (${s.planned})` : `resumes from epoch ${s.epoch}${s.planned !== null ? ` of ${s.planned}` : ''}`;
        return `${at} with ${s.journaled} journaled episode${s.journaled === 1 ? '' : 's'}`;
      }
    }
  };
  return starts.map((s) => `  ${s.id.padEnd(width)}  ${what(s)}\n`).join('');
}
