/**
 * TensorBoard's own event reader (the `tensorboard` package's EventAccumulator), to
 * check memrl's event files with the code TensorBoard itself runs. Installed once into
 * a temporary --target from this machine's pip mirror (test-only; memrl never needs it).
 * Outside CI a failed install skips; under CI=true it fails.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const TARGET = join(tmpdir(), 'memrl-test-tensorboard');
const SCRIPT = resolve('test/metrics/read_tb_with_tensorboard.py');

export interface TbReader {
  ok: boolean;
  reason: string;
}

export function requireTensorBoard(): TbReader {
  const probe = (): boolean => spawnSync('python3', ['-c', 'import tensorboard.backend.event_processing.event_accumulator'], { env: { ...process.env, PYTHONPATH: TARGET }, stdio: 'ignore' }).status === 0;
  if (existsSync(TARGET) && probe()) return { ok: true, reason: '' };
  // --no-deps: the reader needs only these; the full dependency set pulls a web server.
  const r = spawnSync('python3', ['-m', 'pip', 'install', '--quiet', '--no-deps', '--target', TARGET, 'tensorboard', 'protobuf', 'packaging', 'absl-py', 'six'], { encoding: 'utf8', timeout: 240_000 });
  if (r.status === 0 && probe()) return { ok: true, reason: '' };
  return { ok: false, reason: `could not install tensorboard into ${TARGET} with pip: ${(r.stderr || r.error?.message || '').trim().split('\n').at(-1)}` };
}

export interface TbHistogram {
  step: number;
  num: number;
  min: number;
  max: number;
  sum: number;
  bucket_limit: number[];
  bucket: number[];
}

/** Histograms and scalar tags of the run's tb/ folder, as TensorBoard reads them. */
export function readWithTensorBoard(dir: string): { histograms: Record<string, TbHistogram[]>; scalars: string[] } {
  return JSON.parse(execFileSync('python3', [SCRIPT, dir], { encoding: 'utf8', env: { ...process.env, PYTHONPATH: TARGET } })) as { histograms: Record<string, TbHistogram[]>; scalars: string[] };
}
