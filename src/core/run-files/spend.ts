/**
 * spend.json: what a run folder has spent on the provider over every attempt (billed
 * calls only), which --budget-usd and --budget-tokens check on resume. The meter that
 * counts lives below core (src/llm/budget.ts); it keeps its count here, through this
 * store. It has its own `version`.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import type { SpendStore } from '../../llm/budget.js';
import { formatOf, parseRunFile, RunFileError } from './format.js';
import { SpendBucketSchema } from './usage.js';

export const SPEND_FILE = 'spend.json';
export const SPEND_VERSION = 1;

const NOTE = 'billed calls of every attempt of this run (cache hits excluded); read by --budget-usd / --budget-tokens on resume';

export const SpendFileSchema = z
  .object({
    version: z.literal(SPEND_VERSION),
    note: z.string(),
    byRole: z.object({ agent: SpendBucketSchema, judge: SpendBucketSchema, memory: SpendBucketSchema, embedding: SpendBucketSchema }).strict(),
    updatedAt: z.string(),
  })
  .strict();

export type SpendFile = z.infer<typeof SpendFileSchema>;

/** The spend.json of a run folder as the meter's store. */
export function spendFile(runDir: string): SpendStore {
  const file = join(runDir, SPEND_FILE);
  return {
    load() {
      if (!existsSync(file)) return {};
      let value: unknown;
      try {
        value = JSON.parse(readFileSync(file, 'utf8'));
      } catch (err) {
        // Never reset silently: a budget must not forget what was spent.
        throw new RunFileError(`${file} is unreadable (${err instanceof Error ? err.message : String(err)}); it holds what this run has spent: repair it or remove it to count from zero`);
      }
      formatOf(file, value, { key: 'version', newest: SPEND_VERSION, oldest: SPEND_VERSION, absent: 0 });
      // The file as written (validated, not rebuilt): the counts go on in their own order.
      parseRunFile(SpendFileSchema, value, file);
      return (value as SpendFile).byRole;
    },
    /**
     * Rename over the old file, so a crash leaves either version whole. No fsync: losing
     * the last few calls' count in a power cut is acceptable, a slow disk write on every
     * model call is not.
     */
    save(byRole) {
      const doc: SpendFile = { version: SPEND_VERSION, note: NOTE, byRole, updatedAt: new Date().toISOString() };
      mkdirSync(dirname(file), { recursive: true });
      const tmp = `${file}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(doc, null, 2)}\n`);
      renameSync(tmp, file);
    },
  };
}
