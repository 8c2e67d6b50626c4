/**
 * The harness's first two steps alone, outside any sandbox: the syntax check (a
 * SYNTAX_ERROR never runs) and, when asked, BigCodeBench's sanitizer. Both only parse
 * the code, so plain python3 is safe here; `memrl fidelity` uses this to compare them
 * with the reference's recorded gate.
 */
import { spawnSync } from 'node:child_process';
import { harnessSource } from './evaluate.js';

export interface PreparedCode {
  /** What the tests would run against (sanitized when asked and the code compiles). */
  code: string;
  syntaxOk: boolean;
}

export function prepareBcbCode(code: string, opts: { sanitize: boolean; entryPoint?: string; python?: string }): PreparedCode {
  const python = opts.python ?? process.env.MEMRL_SANDBOX_PYTHON ?? 'python3';
  const payload = { nonce: 'prepare', code, test: '', prefix: '', sanitize: opts.sanitize ? (opts.entryPoint ?? 'task_func') : null, prepare_only: true };
  // No fd 3 here: the harness writes its record to stdout.
  const run = spawnSync(python, ['-c', harnessSource()], { input: JSON.stringify(payload), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.error) throw new Error(`cannot run ${python} for the BigCodeBench syntax check: ${run.error.message}`);
  const line = run.stdout.split('\n').find((l) => l.includes('"nonce": "prepare"'));
  if (!line) throw new Error(`the BigCodeBench harness gave no result: ${(run.stderr || run.stdout).trim().split('\n').at(-1) ?? ''}`);
  const record = JSON.parse(line) as { status: string; code?: string };
  return { code: record.code ?? code, syntaxOk: record.status === 'prepared' };
}
