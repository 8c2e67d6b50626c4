/**
 * Exclusive lock files: a file created with O_EXCL that says who holds it (pid, host,
 * since, what). A lock whose holder is a dead process on this host is stale and is
 * broken; one held by a live process, or by a process on another host (whose life we
 * cannot check), is refused with one line saying who holds it.
 *
 * Breaking a stale lock renames it away first (rename is atomic: of two processes
 * breaking the same stale lock, one wins), so a fresh lock is never deleted by mistake.
 */
import { closeSync, existsSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { UserError } from './errors.js';

export interface LockInfo {
  pid: number;
  host: string;
  since: string;
  /** What holds it, e.g. 'memrl run bcb'. */
  what: string;
}

export class LockHeldError extends UserError {
  constructor(
    message: string,
    readonly holder: LockInfo | null,
  ) {
    super(message, 'lock_held');
    this.name = 'LockHeldError';
  }
}

export class FileLock {
  private held = true;

  private constructor(
    readonly path: string,
    readonly info: LockInfo,
  ) {}

  /** Take the lock or throw LockHeldError naming the holder; `label` names the locked thing in that message. */
  static acquire(path: string, what: string, label: string): FileLock {
    const info: LockInfo = { pid: process.pid, host: hostname(), since: new Date().toISOString(), what };
    for (let attempt = 0; attempt < 3; attempt++) {
      if (create(path, info)) return new FileLock(path, info);
      const holder = readHolder(path);
      if (holder && holder.pid === process.pid && holder.host === info.host) {
        throw new LockHeldError(`${label} is already in use by this process (${holder.what})`, holder);
      }
      if (holder && holder.host === info.host && !alive(holder.pid)) {
        breakStale(path, holder);
        continue;
      }
      if (!holder) {
        // Unreadable: a holder killed between creating and writing it, or a foreign file.
        breakStale(path, null);
        continue;
      }
      throw new LockHeldError(
        `${label} is in use by pid ${holder.pid} on ${holder.host} (${holder.what}, since ${holder.since}); wait for it or stop it` +
          (holder.host === info.host ? '' : `; if that process is gone, remove ${path}`),
        holder,
      );
    }
    throw new LockHeldError(`${label}: could not take its lock ${path} (contended); try again`, null);
  }

  /** Take the lock, waiting up to `waitMs` for a live holder to let go (short critical sections). */
  static acquireWaiting(path: string, what: string, label: string, waitMs: number): FileLock {
    const deadline = Date.now() + waitMs;
    for (;;) {
      try {
        return FileLock.acquire(path, what, label);
      } catch (err) {
        if (!(err instanceof LockHeldError) || Date.now() > deadline) throw err;
        sleepSync(5 + Math.random() * 20);
      }
    }
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    // Only our own lock: a holder that lost it (broken as stale) must not remove the new one.
    const holder = readHolder(this.path);
    if (holder && holder.pid === this.info.pid && holder.since === this.info.since && holder.host === this.info.host) rmSync(this.path, { force: true });
  }
}

/**
 * Who holds a lock file, as evidence for a reader: null when there is no lock file;
 * `alive` true or false for a holder on this host, null on another host (its life cannot
 * be checked from here). An unreadable lock file (its holder killed between creating and
 * writing it) has holder null and alive false.
 */
export function lockHolder(path: string): { holder: LockInfo | null; alive: boolean | null } | null {
  if (!existsSync(path)) return null;
  const holder = readHolder(path);
  if (!holder) return { holder: null, alive: false };
  return { holder, alive: holder.host === hostname() ? alive(holder.pid) : null };
}

function create(path: string, info: LockInfo): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, JSON.stringify(info));
  } finally {
    closeSync(fd);
  }
  return true;
}

function readHolder(path: string): LockInfo | null {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockInfo>;
    return typeof v.pid === 'number' && typeof v.host === 'string' ? { pid: v.pid, host: v.host, since: String(v.since ?? '?'), what: String(v.what ?? '?') } : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Moves a stale lock away, then deletes it if it still is the one judged stale (else puts it back). */
function breakStale(path: string, judged: LockInfo | null): void {
  const aside = `${path}.stale-${process.pid}`;
  try {
    renameSync(path, aside);
  } catch {
    return; // someone else broke it first
  }
  const moved = readHolder(aside);
  const same = judged === null ? moved === null : moved !== null && moved.pid === judged.pid && moved.since === judged.since;
  if (same) rmSync(aside, { force: true });
  else {
    try {
      renameSync(aside, path); // a fresh lock taken in between: give it back
    } catch {
      rmSync(aside, { force: true });
    }
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
