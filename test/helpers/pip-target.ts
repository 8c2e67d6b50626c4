/**
 * Test-only Python readers (TensorBoard's, pyarrow), installed once into a folder under
 * the temp dir from this machine's pip mirror and put on PYTHONPATH; memrl never needs
 * them. Outside CI a failed install skips the test; under CI=true it fails.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PipTarget {
  ok: boolean;
  reason: string;
}

/** The environment to run python3 with so it finds what was installed into `folder`. */
export function pipTargetEnv(folder: string): NodeJS.ProcessEnv {
  return { ...process.env, PYTHONPATH: join(tmpdir(), folder) };
}

/**
 * `packages` installed with --no-deps into $TMPDIR/<folder> (unless `module` already
 * imports from there): the caller names every package its reader needs.
 */
export function requirePipTarget(folder: string, module: string, packages: string[]): PipTarget {
  const target = join(tmpdir(), folder);
  const env = pipTargetEnv(folder);
  const probe = (): boolean => spawnSync('python3', ['-c', `import ${module}`], { env, stdio: 'ignore' }).status === 0;
  if (existsSync(target) && probe()) return { ok: true, reason: '' };
  const r = spawnSync('python3', ['-m', 'pip', 'install', '--quiet', '--no-deps', '--target', target, ...packages], { encoding: 'utf8', timeout: 240_000 });
  if (r.status === 0 && probe()) return { ok: true, reason: '' };
  return { ok: false, reason: `could not install ${packages[0]} into ${target} with pip: ${(r.stderr || r.error?.message || '').trim().split('\n').at(-1)}` };
}
