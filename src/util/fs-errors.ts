/**
 * System errors (errno codes) in words: the one table from ENOSPC, EACCES, EROFS,
 * EISDIR, ENAMETOOLONG, ENOENT, … to a line that names the path, says what happened
 * and what to do. The CLI's top-level handler sends every such error through here, so
 * no message is a raw `EISDIR: illegal operation on a directory, read`; readers of the
 * user's files (readUserFile) use it to name the file even when Node's error does not.
 *
 * Whose fault: the user's machine or input (a full disk, a read-only folder, a path that
 * does not exist), so exit 2 (kind `user`), except EIO and EMFILE-like limits, which are
 * still the machine's, never memrl's logic.
 */
import { readFileSync, statSync } from 'node:fs';
import { MemrlError, UserError } from './errors.js';

/** What the caller knows that Node's error may not: the path, what it is, how to resume. */
export interface FsErrorContext {
  /** The path concerned, when the error does not carry it (a write's ENOSPC, a read's EISDIR). */
  path?: string;
  /** What the path is, in words ("the HLE data file", "--output-dir"); the message starts with it. */
  what?: string;
  /** The command that resumes the interrupted run (ENOSPC and other write failures during a run). */
  resume?: string;
}

interface Explained {
  /** The cause in words (after the path). */
  cause: string;
  /** What to do. */
  fix: string;
}

const WRITE_SYSCALLS = new Set(['write', 'open', 'mkdir', 'rename', 'copyfile', 'fsync', 'fdatasync', 'ftruncate', 'unlink', 'rmdir', 'symlink', 'link']);

function explain(code: string, syscall: string | undefined, path: string | undefined): Explained | undefined {
  switch (code) {
    case 'ENOSPC':
      return { cause: 'no space left on the device (the disk is full)', fix: `free some space (df -h${path ? ` ${quote(path)}` : ''} shows how much is left)` };
    case 'EDQUOT':
      return { cause: 'the disk quota is exhausted', fix: 'free some space or ask for a larger quota' };
    case 'ENAMETOOLONG':
      return { cause: 'the path is too long for the file system (over 255 bytes in one name, or 4096 in all)', fix: 'choose a shorter path' };
    case 'EISDIR':
      return { cause: 'is a folder, not a file', fix: "give the file's own path" };
    case 'ENOTDIR':
      return { cause: 'a part of the path is a file, not a folder', fix: 'check the path' };
    case 'EACCES':
    case 'EPERM':
      return syscall && WRITE_SYSCALLS.has(syscall) && syscall !== 'open'
        ? { cause: 'permission denied (cannot write there)', fix: 'choose a folder you can write to, or change its permissions' }
        : { cause: 'permission denied', fix: 'check its permissions and those of the folders above it (ls -l)' };
    case 'EROFS':
      return { cause: 'the file system is read-only', fix: 'choose a writable location (or copy the files somewhere writable)' };
    case 'ENOENT':
      if (syscall === 'uv_cwd') return { cause: 'the current folder no longer exists (deleted or moved)', fix: 'cd into an existing folder and run the command again' };
      return { cause: 'no such file or folder', fix: 'check the path' };
    case 'EEXIST':
      return { cause: 'already exists', fix: 'remove it or choose another path' };
    case 'ENOTEMPTY':
      return { cause: 'the folder is not empty', fix: 'empty it or choose another path' };
    case 'EBUSY':
      return { cause: 'is busy (in use by another process or mounted)', fix: 'wait for the other process or choose another path' };
    case 'EMFILE':
    case 'ENFILE':
      return { cause: 'too many open files', fix: 'raise the limit (ulimit -n 65536) or lower --concurrency' };
    case 'EIO':
      return { cause: 'an input/output error from the device', fix: 'check the disk (dmesg) and try again' };
    case 'ELOOP':
      return { cause: 'too many symbolic links (a link loop?)', fix: 'check the links along the path' };
    case 'EXDEV':
      return { cause: 'cannot move across file systems', fix: 'keep the folder on one file system' };
    case 'ENXIO':
    case 'ENODEV':
      return { cause: 'cannot be opened as a file (a socket, or a device or pipe with nothing behind it)', fix: 'give a file, or pipe into memrl (… | memrl … --config /dev/stdin)' };
    case 'EFBIG':
      return { cause: 'the file is too large for the file system', fix: 'choose another location' };
    default:
      return undefined;
  }
}

function quote(path: string): string {
  return /\s/.test(path) ? `'${path}'` : path;
}

/** A Node system error (it has an errno code we know how to say in words). */
export function isSystemError(err: unknown): err is NodeJS.ErrnoException {
  if (!(err instanceof Error)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  return typeof code === 'string' && explain(code, (err as NodeJS.ErrnoException).syscall, undefined) !== undefined;
}

const NET_CAUSES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'no route to the host',
  ENETUNREACH: 'the network is unreachable',
  ETIMEDOUT: 'the connection timed out',
  ENOTFOUND: 'no such host name',
  EAI_AGAIN: 'the name lookup failed for now (DNS unavailable?)',
  EPROTO: 'a TLS protocol error',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its TLS certificate chain is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate cannot be verified',
  ERR_TLS_CERT_ALTNAME_INVALID: "its TLS certificate is for another host name",
};

/** A network error's cause in words (connection refused, no such host, …); its message when the code is not known. */
export function netCause(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code && NET_CAUSES[code]) return NET_CAUSES[code]!;
  return humanizeErrno(err instanceof Error ? err.message : String(err));
}

/** The cause of a system error in words ("the file system is read-only"), or undefined for another error. */
export function fsCause(err: unknown): string | undefined {
  return isSystemError(err) ? explain(err.code!, err.syscall, err.path)!.cause : undefined;
}

/** Any error's cause for a message: a system error's in words (fsCause), else its text with raw errno strings put into words. */
export function causeOf(err: unknown): string {
  return fsCause(err) ?? humanizeErrno(err instanceof Error ? err.message : String(err));
}

/** A path as shown in a message: a very long one (ENAMETOOLONG) cut in the middle, with its length. */
export function shownPath(path: string): string {
  return path.length <= 160 ? path : `${path.slice(0, 80)}…${path.slice(-50)} (${path.length} characters)`;
}

/** One line for a system error: `<what> <path>: <cause>; <what to do>`, or undefined for another error. */
export function fsErrorMessage(err: unknown, ctx: FsErrorContext = {}): string | undefined {
  if (!isSystemError(err)) return undefined;
  const dest = (err as { dest?: unknown }).dest;
  const path = ctx.path ?? err.path ?? (typeof dest === 'string' ? dest : undefined);
  const e = explain(err.code!, err.syscall, path)!;
  const subject = [ctx.what, path === undefined ? undefined : shownPath(path)].filter(Boolean).join(' ');
  const fix = ctx.resume ? `${e.fix}, then resume the run: ${ctx.resume}` : `${e.fix}${err.syscall === 'uv_cwd' ? '' : ', then run the command again'}`;
  return `${subject ? `${subject}: ` : ''}${e.cause}; ${fix}`;
}

/** A system error as a fault of the user's machine or input (exit 2); undefined for another error. */
export function fsError(err: unknown, ctx: FsErrorContext = {}): MemrlError | undefined {
  const message = fsErrorMessage(err, ctx);
  return message === undefined ? undefined : new UserError(message, `fs_${(err as NodeJS.ErrnoException).code!.toLowerCase()}`);
}

/** Node's own wording of an errno error ("ENOENT: no such file or directory, open '/x'"), wherever it sits in a text. */
const RAW_ERRNO = /\b(E[A-Z]{2,14}): [a-z][^,;()\n]*, ([a-z_]+)(?: '([^']*)')?(?: -> '([^']*)')?/g;

/**
 * A message with every raw errno string in it put into words (for messages built from a
 * caught error's text before this module existed, or by a library).
 */
export function humanizeErrno(message: string): string {
  return message.replace(RAW_ERRNO, (m, code: string, syscall: string, path: string | undefined) => {
    const e = explain(code, syscall, path);
    if (!e) return m;
    return path ? `${path}: ${e.cause}` : e.cause;
  });
}

/**
 * A file the user named, read whole; a failure is one line naming it (`what path:
 * cause; fix`), never Node's raw error: a folder, a missing file, no permission.
 */
export function readUserFile(path: string, what: string): Buffer;
export function readUserFile(path: string, what: string, encoding: 'utf8'): string;
export function readUserFile(path: string, what: string, encoding?: 'utf8'): Buffer | string {
  try {
    // Checked first: reading a folder fails with an EISDIR that names no path.
    if (statSync(path).isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR', syscall: 'read', path });
    return encoding ? readFileSync(path, encoding) : readFileSync(path);
  } catch (err) {
    throw fsError(err, { path, what }) ?? err;
  }
}
