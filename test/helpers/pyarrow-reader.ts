/**
 * pyarrow, the reader most users open outcomes.arrow with (pandas and polars go through
 * it or its format code), installed once into a temporary --target from this machine's
 * pip mirror (test-only; memrl never needs it). Outside CI a failed install skips;
 * under CI=true it fails.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TARGET = join(tmpdir(), 'memrl-test-pyarrow');

export function requirePyarrow(): { ok: boolean; reason: string } {
  const probe = (): boolean => spawnSync('python3', ['-c', 'import pyarrow.ipc'], { env: { ...process.env, PYTHONPATH: TARGET }, stdio: 'ignore' }).status === 0;
  if (existsSync(TARGET) && probe()) return { ok: true, reason: '' };
  // --no-deps: reading an IPC file into Python values needs pyarrow alone (numpy is optional).
  const r = spawnSync('python3', ['-m', 'pip', 'install', '--quiet', '--no-deps', '--target', TARGET, 'pyarrow'], { encoding: 'utf8', timeout: 240_000 });
  if (r.status === 0 && probe()) return { ok: true, reason: '' };
  return { ok: false, reason: `could not install pyarrow into ${TARGET} with pip: ${(r.stderr || r.error?.message || '').trim().split('\n').at(-1)}` };
}

const READ = `
import json, sys
import pyarrow.ipc as ipc
t = ipc.open_file(sys.argv[1]).read_all()
print(json.dumps({'types': {f.name: str(f.type) + ('?' if f.nullable else '') for f in t.schema}, 'rows': t.to_pylist()}))
`;

/** The file's column types (nullable ones marked `?`) and its rows, as pyarrow reads them. */
export function readWithPyarrow(path: string): { types: Record<string, string>; rows: Record<string, unknown>[] } {
  return JSON.parse(execFileSync('python3', ['-c', READ, path], { encoding: 'utf8', env: { ...process.env, PYTHONPATH: TARGET }, maxBuffer: 64 << 20 })) as { types: Record<string, string>; rows: Record<string, unknown>[] };
}
