/**
 * TensorBoard's own event reader (the `tensorboard` package's EventAccumulator), to
 * check memrl's event files with the code TensorBoard itself runs (see pip-target.ts).
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pipTargetEnv, requirePipTarget, type PipTarget } from './pip-target.js';

const SCRIPT = resolve('test/metrics/read_tb_with_tensorboard.py');
// --no-deps: the reader needs only these; the full dependency set pulls a web server.
const PACKAGES = ['tensorboard', 'protobuf', 'packaging', 'absl-py', 'six'];
const FOLDER = 'memrl-test-tensorboard';

export function requireTensorBoard(): PipTarget {
  return requirePipTarget(FOLDER, 'tensorboard.backend.event_processing.event_accumulator', PACKAGES);
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
  return JSON.parse(execFileSync('python3', [SCRIPT, dir], { encoding: 'utf8', env: pipTargetEnv(FOLDER) })) as { histograms: Record<string, TbHistogram[]>; scalars: string[] };
}
