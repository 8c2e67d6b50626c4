/**
 * The compact baseline file written by `memrl compare --save-baseline <file>` and
 * meant to be committed next to a CI workflow (format documented in docs/compare.md):
 *
 *   { "memrlBaseline": 1, "memrlVersion": "0.1.0",
 *     "runs": [ { id, benchmark, method, model, simulated, split, seed, status,
 *                 phases: { train: { tasks, epochs: [{epoch, acc, csr}],
 *                                    metrics: {last, csr, forgetting_flip, forgetting_max, bwt},
 *                                    final: { "<taskId>": "<final-epoch status>" } },
 *                           valid?: { … } } } ] }
 *
 * One entry per run, so a baseline saved from several seeds keeps its spread for
 * the bootstrap. No timestamps: re-saving an unchanged baseline gives the same bytes.
 */
import { z } from 'zod';
import { writeFileAtomic } from '../util/fs.js';
import { UserError } from '../util/errors.js';
import { memrlVersion } from '../util/version.js';
import { runDataSchema, type RunData } from './run-data.js';
import { causeOf } from '../util/fs-errors.js';

export const BASELINE_FORMAT = 1;

const baselineSchema = z.object({
  memrlBaseline: z.literal(BASELINE_FORMAT),
  memrlVersion: z.string().optional(),
  runs: z.array(runDataSchema).min(1),
});

export function isBaselineJson(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'memrlBaseline' in value;
}

export function parseBaseline(value: unknown, file: string): RunData[] {
  const parsed = baselineSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UserError(
      `${file}: not a valid memrl baseline file (${issue.path.join('.') || '(top)'}: ${issue.message}); regenerate it with memrl compare --save-baseline ${file} <run-folder>`,
    );
  }
  return parsed.data.runs;
}

export function baselineText(runs: RunData[]): string {
  return `${JSON.stringify({ memrlBaseline: BASELINE_FORMAT, memrlVersion: memrlVersion(), runs }, null, 2)}\n`;
}

export function writeBaseline(file: string, runs: RunData[]): void {
  try {
    writeFileAtomic(file, baselineText(runs));
  } catch (err) {
    throw new UserError(`--save-baseline ${file}: cannot write (${causeOf(err)})`);
  }
}
