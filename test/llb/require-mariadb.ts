/** MariaDB for the LLB db tests: skipped when missing, except under CI=true where they run and fail. */
import { checkMariadb } from '../../src/env/sql/local.js';

export const IN_CI = /^(1|true)$/i.test(process.env.CI ?? '');

export async function requireMariadb(): Promise<{ ok: boolean; reason: string; skip: boolean }> {
  const r = await checkMariadb();
  const reason = r.ok ? '' : r.reason;
  if (!r.ok && !IN_CI) process.stderr.write(`[skip] LLB db tests: ${reason}\n`);
  return { ok: r.ok, reason, skip: !r.ok && !IN_CI };
}
