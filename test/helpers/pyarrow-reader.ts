/**
 * pyarrow, the reader most users open outcomes.arrow with (pandas and polars go through
 * it or its format code); see pip-target.ts.
 */
import { execFileSync } from 'node:child_process';
import { pipTargetEnv, requirePipTarget, type PipTarget } from './pip-target.js';

const FOLDER = 'memrl-test-pyarrow';

export function requirePyarrow(): PipTarget {
  // --no-deps: reading an IPC file into Python values needs pyarrow alone (numpy is optional).
  return requirePipTarget(FOLDER, 'pyarrow.ipc', ['pyarrow']);
}

const READ = `
import json, sys
import pyarrow.ipc as ipc
t = ipc.open_file(sys.argv[1]).read_all()
print(json.dumps({'types': {f.name: str(f.type) + ('?' if f.nullable else '') for f in t.schema}, 'rows': t.to_pylist()}))
`;

/** The file's column types (nullable ones marked `?`) and its rows, as pyarrow reads them. */
export function readWithPyarrow(path: string): { types: Record<string, string>; rows: Record<string, unknown>[] } {
  return JSON.parse(execFileSync('python3', ['-c', READ, path], { encoding: 'utf8', env: pipTargetEnv(FOLDER), maxBuffer: 64 << 20 })) as { types: Record<string, string>; rows: Record<string, unknown>[] };
}
