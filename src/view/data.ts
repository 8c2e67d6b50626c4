/**
 * What `memrl view` serves, read from run folders: the run list, a run's task × epoch
 * grid, one episode (its row, transcript, injected memories with their provenance, the
 * memory it wrote, the Q changes of what it used), one memory's life, and two runs
 * side by side. Runs are read once and kept; folders written by an older memrl lack
 * transcripts or the Q history, and the answers say what is missing.
 */
import { redactTree } from '../util/redact.js';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  MEMORIES_FILE,
  Q_HISTORY_FILE,
  readMemories,
  readQHistory,
  readTranscripts,
  TRANSCRIPTS_FILE,
  type MemoryLine,
  type OutcomeRow,
  type QSnapshot,
} from '../core/run-files/index.js';
import { OUTCOME_STATUSES } from '../metrics/outcome-row.js';
import type { Transcript } from '../metrics/transcripts.js';
import { findRunFolders, readRunFolder, type RunFolder } from '../results/run-folder.js';
import { UserError } from '../util/errors.js';

interface LoadedRun {
  folder: RunFolder;
  label: string;
  transcripts: Map<string, Transcript> | null;
  memories: Map<string, MemoryLine>;
  qHistory: QSnapshot[];
  /** memory id → the row that wrote it. */
  writtenBy: Map<string, OutcomeRow>;
}

export class ViewData {
  private readonly dirs: string[];
  private readonly root: string;
  private readonly cache = new Map<number, LoadedRun>();

  constructor(paths: string[], cwd = process.cwd()) {
    this.dirs = findRunFolders(paths);
    this.root = cwd;
  }

  get runCount(): number {
    return this.dirs.length;
  }

  private run(n: number): LoadedRun {
    const dir = this.dirs[n];
    if (dir === undefined) throw new UserError(`no run ${n}`, 'view_not_found');
    let r = this.cache.get(n);
    // A running run is read again on every request: its status and rows change until it ends.
    if (!r || r.folder.status === 'running') {
      const folder = readRunFolder(dir);
      const memories = new Map(readMemories(join(dir, MEMORIES_FILE)).map((m) => [m.id, m]));
      const writtenBy = new Map<string, OutcomeRow>();
      for (const row of folder.rows) if (row.memoryId) writtenBy.set(row.memoryId, row);
      r = {
        folder,
        label: `${folder.method} · ${folder.benchmark}${folder.seed !== null ? ` · s${folder.seed}` : ''}`,
        transcripts: existsSync(join(dir, TRANSCRIPTS_FILE)) ? new Map(readTranscripts(dir).map((t) => [t.id, t])) : null,
        memories,
        qHistory: readQHistory(join(dir, Q_HISTORY_FILE)),
        writtenBy,
      };
      this.cache.set(n, r);
    }
    return r;
  }

  runs(): unknown[] {
    return this.dirs.map((dir, n) => {
      const r = this.run(n);
      const f = r.folder;
      return {
        n,
        path: relative(this.root, dir).startsWith('..') ? dir : relative(this.root, dir) || dir,
        label: r.label,
        benchmark: f.benchmark,
        method: f.method,
        model: f.model,
        simulated: f.simulated,
        seed: f.seed,
        status: f.status,
        ...(f.statusReason ? { statusReason: f.statusReason } : {}),
        tasks: f.metrics.train.tasks,
        epochs: f.metrics.train.epochs.length,
        last: f.metrics.train.last,
        csr: f.metrics.train.csrFinal,
        missing: missingOf(r),
      };
    });
  }

  /** The grid: one line per task, one cell per (phase, epoch), compact. */
  grid(n: number): unknown {
    const r = this.run(n);
    const f = r.folder;
    const columns = [...new Set(f.rows.map((x) => `${x.phase}/${x.epoch}`))].sort(byColumn);
    const taskIds = [...new Set(f.rows.map((x) => x.taskId))];
    const index = new Map(taskIds.map((t, i) => [t, i]));
    const col = new Map(columns.map((c, i) => [c, i]));
    const cells: ([string, number, number] | null)[][] = taskIds.map(() => columns.map(() => null));
    const category: (string | null)[] = taskIds.map(() => null);
    for (const row of f.rows) {
      // status, retrieved count, task index
      cells[index.get(row.taskId)!]![col.get(`${row.phase}/${row.epoch}`)!] = [row.status, row.retrievedIds.length, row.taskIndex];
      const c = row.extra?.category;
      if (typeof c === 'string') category[index.get(row.taskId)!] = c;
    }
    // Every status with its count (the legend names each colour, the filter offers each status).
    const counts = new Map<string, number>();
    for (const row of f.rows) counts.set(row.status, (counts.get(row.status) ?? 0) + 1);
    const statuses = OUTCOME_STATUSES.map((status) => ({ status, count: counts.get(status) ?? 0 }));
    return { run: this.runs()[n], columns, tasks: taskIds, category, cells, statuses, manifest: manifestOf(f) };
  }

  episode(n: number, phase: string, epoch: number, taskIndex: number): unknown {
    const r = this.run(n);
    const row = r.folder.rows.find((x) => x.phase === phase && x.epoch === epoch && x.taskIndex === taskIndex);
    if (!row) throw new UserError(`run ${n} has no ${phase} episode of task #${taskIndex} in epoch ${epoch}`, 'view_not_found');
    const tid = transcriptIdOf(row);
    const transcript = tid && r.transcripts ? (r.transcripts.get(tid) ?? null) : null;
    const qAt = (e: number, id: string): number | null => {
      const s = r.qHistory.find((x) => x.epoch === e);
      const i = s ? s.ids.indexOf(id) : -1;
      return s && i >= 0 ? s.q[i]! : null;
    };
    const injected = row.retrievedIds.map((id, i) => {
      const writer = r.writtenBy.get(id);
      const m = r.memories.get(id);
      return {
        id,
        sim: row.retrievedSim?.[i] ?? null,
        q: row.retrievedQ?.[i] ?? null,
        qAfterEpoch: qAt(row.epoch, id),
        // The update this very episode made at its batch's commit (runs recorded before these were kept have none).
        qUpdate: transcript?.qUpdates?.find((u) => u.memoryId === id) ?? null,
        success: m?.success ?? null,
        content: m?.content ?? null,
        writer: writer ? { taskId: writer.taskId, taskIndex: writer.taskIndex, epoch: writer.epoch, phase: writer.phase } : null,
      };
    });
    const written = row.memoryId ? (r.memories.get(row.memoryId) ?? { id: row.memoryId, content: null }) : null;
    const { extra, ...fields } = row;
    const { transcriptId: _t, ...evaluation } = extra ?? {};
    return {
      run: this.runs()[n],
      row: fields,
      evaluation,
      transcript,
      missing: transcript ? [] : [r.transcripts ? 'this episode has no transcript (it made no model call)' : 'no transcripts: this run was made by a memrl that did not record them'],
      injected,
      written,
    };
  }

  memory(n: number, id: string): unknown {
    const r = this.run(n);
    const m = r.memories.get(id);
    if (!m && !r.writtenBy.has(id)) throw new UserError(`run ${n} has no memory ${id}`, 'view_not_found');
    const writer = r.writtenBy.get(id);
    const qOverTime = r.qHistory.flatMap((s) => {
      const i = s.ids.indexOf(id);
      return i >= 0 ? [{ epoch: s.epoch, q: s.q[i]! }] : [];
    });
    const uses = r.folder.rows.flatMap((row) => {
      const i = row.retrievedIds.indexOf(id);
      if (i < 0) return [];
      // The Q this episode's outcome gave the memory at its commit (validation episodes give none).
      const tid = transcriptIdOf(row);
      const update = (tid && r.transcripts?.get(tid)?.qUpdates?.find((u) => u.memoryId === id)) || null;
      return [{ taskId: row.taskId, taskIndex: row.taskIndex, epoch: row.epoch, phase: row.phase, status: row.status, success: row.success, q: row.retrievedQ?.[i] ?? null, qAfter: update ? update.after : null, sim: row.retrievedSim?.[i] ?? null }];
    });
    return { run: this.runs()[n], memory: m ?? { id }, writer: writer ? { taskId: writer.taskId, taskIndex: writer.taskIndex, epoch: writer.epoch, phase: writer.phase, status: writer.status } : null, qOverTime, uses };
  }

  /** Two runs on their shared training tasks, at each run's last epoch: which flipped, and what each injected there. */
  compare(a: number, b: number): unknown {
    const [ra, rb] = [this.run(a), this.run(b)];
    const lastRows = (r: LoadedRun): Map<string, OutcomeRow> => {
      const last = Math.max(0, ...r.folder.rows.filter((x) => x.phase === 'train').map((x) => x.epoch));
      return new Map(r.folder.rows.filter((x) => x.phase === 'train' && x.epoch === last).map((x) => [x.taskId, x]));
    };
    const [la, lb] = [lastRows(ra), lastRows(rb)];
    const tasks = [...la.keys()].filter((t) => lb.has(t));
    const side = (row: OutcomeRow) => ({
      status: row.status,
      success: row.success,
      epoch: row.epoch,
      taskIndex: row.taskIndex,
      injected: row.retrievedIds.map((id, i) => ({ id, q: row.retrievedQ?.[i] ?? null, sim: row.retrievedSim?.[i] ?? null })),
    });
    const rows = tasks.map((t) => ({ taskId: t, a: side(la.get(t)!), b: side(lb.get(t)!), flipped: la.get(t)!.success !== lb.get(t)!.success }));
    return {
      a: this.runs()[a],
      b: this.runs()[b],
      shared: tasks.length,
      onlyA: rows.filter((x) => x.a.success && !x.b.success).length,
      onlyB: rows.filter((x) => !x.a.success && x.b.success).length,
      rows,
    };
  }
}

function missingOf(r: LoadedRun): string[] {
  const out: string[] = [];
  if (!r.transcripts) out.push('transcripts');
  if (r.qHistory.length === 0 && r.memories.size > 0) out.push('Q history');
  return out;
}

/** run.json for the page (redacted again: a run.json written before memrl redacted its command line), task id lists as their length, without the config. */
function manifestOf(f: RunFolder): object {
  const r = redactTree({ ...f.manifest });
  const { config: _config, ...m } = { ...r, trainTaskIds: `[${r.trainTaskIds.length} task ids]`, validTaskIds: `[${r.validTaskIds.length} task ids]` };
  return m;
}

/** The row's link to its transcript (rows of runs that recorded none have no link). */
function transcriptIdOf(row: OutcomeRow): string | undefined {
  const id = row.extra?.transcriptId;
  return typeof id === 'string' ? id : undefined;
}

function byColumn(a: string, b: string): number {
  const [pa, ea] = a.split('/') as [string, string];
  const [pb, eb] = b.split('/') as [string, string];
  return Number(ea) - Number(eb) || (pa === pb ? 0 : pa === 'valid' ? 1 : -1);
}
