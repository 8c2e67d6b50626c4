/** Every system error in words: the path, the cause, what to do; never Node's raw errno text. */
import { describe, expect, it } from 'vitest';
import { fsError, fsErrorMessage, humanizeErrno, netCause } from '../../src/util/fs-errors.js';
import { EXIT, exitCodeFor } from '../../src/util/errors.js';

const sys = (code: string, syscall: string, path?: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: raw, ${syscall}${path ? ` '${path}'` : ''}`), { code, syscall, ...(path ? { path } : {}) });

describe('system errors', () => {
  it.each([
    ['ENOSPC', 'write', undefined, /^\/r\/run: no space left on the device \(the disk is full\); free some space \(df -h \/r\/run shows how much is left\), then resume the run: memrl run x --resume \/r\/run$/],
    ['EACCES', 'open', '/data/q.parquet', /^\/data\/q\.parquet: permission denied; check its permissions/],
    ['EROFS', 'open', '/ro/a.json', /^\/ro\/a\.json: the file system is read-only; choose a writable location/],
    ['EISDIR', 'read', '/d', /^\/d: is a folder, not a file/],
    ['ENAMETOOLONG', 'mkdir', '/x', /^\/x: the path is too long for the file system/],
    ['ENOENT', 'open', '/nope', /^\/nope: no such file or folder; check the path/],
    ['ENOENT', 'uv_cwd', undefined, /^the current folder no longer exists/],
  ] as const)('%s (%s)', (code, syscall, path, want) => {
    const ctx = code === 'ENOSPC' ? { path: '/r/run', resume: 'memrl run x --resume /r/run' } : {};
    const err = sys(code, syscall, path);
    expect(fsErrorMessage(err, ctx)).toMatch(want);
    expect(exitCodeFor(fsError(err, ctx))).toBe(EXIT.badInput);
  });

  it('leaves other errors alone, and puts raw errno text inside a message into words', () => {
    expect(fsError(new Error('boom'))).toBeUndefined();
    expect(humanizeErrno("cannot read x (EISDIR: illegal operation on a directory, read)")).toBe('cannot read x (is a folder, not a file)');
    expect(humanizeErrno("ENOENT: no such file or directory, open '/a/b.yaml'")).toBe('/a/b.yaml: no such file or folder');
    expect(netCause(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }))).toBe('connection refused');
  });
});
