/**
 * journal.jsonl: the write-ahead log of the epoch in progress, what makes a run crash
 * safe at task granularity.
 *
 * Each finished episode is written (one synchronous write, so a killed process keeps
 * it) the moment it finishes, and put on disk (fdatasync) in the background; the batch
 * barrier waits for the disk before it commits. Each entry holds everything the
 * barrier needs to commit it: its outcome row (transcript
 * included), what the memory method learned from it (for the built-in methods: the
 * Q-update targets and the new memory's text), and its own token usage.
 * Each committed barrier appends its commit time. At an epoch checkpoint the journal is
 * emptied. On --resume the runner restores the epoch checkpoint and replays the epoch's
 * batches from here: finished episodes are taken as recorded, unfinished ones run.
 *
 * Only the last line can be torn (a kill mid-write); opening drops it.
 */
import { closeSync, existsSync, fdatasync, fdatasyncSync, ftruncateSync, openSync, readFileSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { dirname } from 'node:path';
import { JOURNAL_FILE, parseJournalLine, type JournalBarrier, type JournalEntry, type JournalEpisode } from '../core/run-files/journal.js';
import type { OutcomePhase } from '../core/outcome.js';
import { fsyncDir, writeAllSync, writeFileAtomic } from '../util/fs.js';

/** The entries' schema is src/core/run-files/journal.ts. */
export { JOURNAL_FILE, type JournalBarrier, type JournalEntry, type JournalEpisode };

export class Journal {
  private fd: number | null;
  private readonly episodes = new Map<string, JournalEpisode>();
  private readonly barriers = new Map<string, number>();
  /** The flush running now, and the one that will follow it (shared by every write made meanwhile). */
  private inFlight: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  /** The flush covering the last record(), and the first error a background flush met. */
  private syncing: Promise<void> = Promise.resolve();
  private syncFailed: unknown;

  /** Open for appending; entries failing `keep` (from epochs already checkpointed) are dropped from the file. */
  constructor(
    readonly path: string,
    keep: (e: JournalEntry) => boolean,
  ) {
    // Rewritten so no stale entry or torn tail stays in front of new entries.
    if (existsSync(path)) for (const e of this.rewriteKeeping(keep)) this.remember(e);
    this.fd = openSync(path, 'a');
  }

  get size(): number {
    return this.episodes.size;
  }

  episode(phase: OutcomePhase, epoch: number, taskIndex: number): JournalEpisode | undefined {
    return this.episodes.get(episodeKey(phase, epoch, taskIndex));
  }

  barrierAt(epoch: number, batch: number): number | undefined {
    return this.barriers.get(`${epoch}|${batch}`);
  }

  /**
   * Write an entry now and put it on disk in the background: from here on it survives a
   * kill of the process, and once `synced()` resolves, a power loss too. An episode's
   * slot goes on to its next task without waiting for the disk (with 32 slots the
   * flush completions queued behind other replies, ~1 ms a task); the barrier waits
   * once for all of them.
   */
  record(e: JournalEntry): void {
    this.write(e);
    // The newest flush starts after this write, so it covers every earlier one too. Writes
    // made while a flush runs share the next one (group commit: 32 episodes finishing
    // together cost two flushes, not 32 queued on the thread pool).
    this.syncing = this.flush().catch((err: unknown) => {
      this.syncFailed ??= err;
    });
  }

  /** Every entry written so far is on disk; rejects with the first error a background flush met. */
  async synced(): Promise<void> {
    await this.syncing;
    if (this.syncFailed !== undefined) throw this.syncFailed;
  }

  private write(e: JournalEntry): void {
    if (this.fd === null) throw new Error(`journal ${this.path} is closed`);
    writeAllSync(this.fd, Buffer.from(`${JSON.stringify(e)}\n`, 'utf8'));
    this.remember(e);
  }

  /** A flush that starts after this call: one running now may have begun before our write. */
  private flush(): Promise<void> {
    if (!this.inFlight) {
      const fd = this.fd;
      if (fd === null) return Promise.resolve();
      this.inFlight = datasync(fd).finally(() => {
        this.inFlight = null;
      });
      return this.inFlight;
    }
    this.queued ??= this.inFlight
      .catch(() => undefined)
      .then(() => {
        this.queued = null;
        return this.flush();
      });
    return this.queued;
  }

  /**
   * Drop these episodes, so a resume plays them again (a batch stopped because its
   * endpoint went away). The file is rewritten without them, atomically. Call it with
   * no flush in flight (after synced()).
   */
  forget(phase: OutcomePhase, epoch: number, taskIndices: readonly number[]): void {
    if (this.fd === null) return;
    const drop = new Set(taskIndices.map((i) => episodeKey(phase, epoch, i)).filter((k) => this.episodes.has(k)));
    if (drop.size === 0) return;
    for (const k of drop) this.episodes.delete(k);
    closeSync(this.fd);
    this.rewriteKeeping((e) => !(e.kind === 'episode' && drop.has(episodeKey(e.phase, e.epoch, e.taskIndex))));
    this.fd = openSync(this.path, 'a');
  }

  /** Rewrite the file (atomically) with the entries `keep` accepts; a torn line goes. Returns them. */
  private rewriteKeeping(keep: (e: JournalEntry) => boolean): JournalEntry[] {
    const kept: JournalEntry[] = [];
    const lines: string[] = [];
    for (const line of readFileSync(this.path, 'utf8').split('\n')) {
      const e = parseJournalLine(line);
      if (e && keep(e)) {
        kept.push(e);
        lines.push(`${line}\n`);
      }
    }
    writeFileAtomic(this.path, lines.join(''));
    return kept;
  }

  /** Empty it (after an epoch checkpoint: everything here is in the checkpoint now). */
  reset(): void {
    if (this.fd === null) return;
    ftruncateSync(this.fd, 0);
    fdatasyncSync(this.fd);
    this.episodes.clear();
    this.barriers.clear();
  }

  close(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }

  /** A finished run needs no journal. */
  remove(): void {
    this.close();
    rmSync(this.path, { force: true });
    fsyncDir(dirname(this.path));
  }

  private remember(e: JournalEntry): void {
    if (e.kind === 'episode') {
      const k = episodeKey(e.phase, e.epoch, e.taskIndex);
      if (!this.episodes.has(k)) this.episodes.set(k, e);
    } else {
      this.barriers.set(`${e.epoch}|${e.batch}`, e.at);
    }
  }
}

const datasync = promisify(fdatasync);

function episodeKey(phase: string, epoch: number, taskIndex: number): string {
  return `${phase}|${epoch}|${taskIndex}`;
}
