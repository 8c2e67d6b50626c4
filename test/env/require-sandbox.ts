/**
 * Whether the real sandbox parts exist here. Outside CI a missing part skips the
 * suites that need it (with the reason printed); under CI=true they run and fail,
 * so a broken CI image cannot pass by skipping.
 */
import { BCB_LIBRARIES } from '../../src/bench/bcb/libraries.js';
import { checkBwrap } from '../../src/env/bwrap/check.js';
import { LocalPythonTestRunner } from '../../src/env/python-tests/local.js';

export const IN_CI = /^(1|true)$/i.test(process.env.CI ?? '');

export interface Requirement {
  ok: boolean;
  reason: string;
  /** Pass to describe.skipIf(): true only when missing AND not in CI. */
  skip: boolean;
}

function requirement(ok: boolean, reason: string, what: string): Requirement {
  if (!ok && !IN_CI) process.stderr.write(`[skip] ${what} tests: ${reason}\n`);
  return { ok, reason, skip: !ok && !IN_CI };
}

export async function requireBwrap(): Promise<Requirement> {
  const check = await checkBwrap();
  return requirement(check.ok, check.ok ? '' : check.reason, 'sandbox');
}

/** bwrap plus Debian's python3 with the core BigCodeBench libraries. */
export async function requireBcbPython(): Promise<Requirement> {
  const bwrap = await checkBwrap();
  if (!bwrap.ok) return requirement(false, bwrap.reason, 'BigCodeBench evaluator');
  const libs = await new LocalPythonTestRunner().pythonModules(BCB_LIBRARIES);
  return requirement(libs.ok, libs.ok ? '' : libs.reason, 'BigCodeBench evaluator');
}
