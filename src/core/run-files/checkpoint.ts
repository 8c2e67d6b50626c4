/**
 * checkpoint.json: the whole learning state at the last completed epoch (the previous
 * one is kept beside it as checkpoint.prev.json). It has its own `version`: its format
 * changed apart from the folder's.
 *
 *   1  reflection's attempts beside the memory method's state
 *   2  the method's state is whatever its snapshot() returned, attempts included
 */
import { z } from 'zod';
import { formatOf, parseRunFile } from './format.js';
import { LedgerSnapshotSchema } from './usage.js';

export const CHECKPOINT_FILE = 'checkpoint.json';
export const PREVIOUS_CHECKPOINT_FILE = 'checkpoint.prev.json';
export const CHECKPOINT_VERSION = 2;

export const CheckpointSchema = z
  .object({
    version: z.literal(CHECKPOINT_VERSION),
    epochCompleted: z.number().int().nonnegative(),
    validatedBeforeTraining: z.boolean(),
    /** The memory method's state: what its snapshot() returned (each method its own, plain JSON). */
    memory: z.unknown().refine((m): boolean => m !== undefined && m !== null, 'missing (the memory method’s state)'),
    ledger: LedgerSnapshotSchema,
    savedAt: z.string(),
  })
  .strict();

export type Checkpoint = z.infer<typeof CheckpointSchema> & { memory: unknown };

function migrateCheckpointV1(c: { [key: string]: unknown }): { [key: string]: unknown } {
  const { memory, attempts, ...rest } = c;
  return { ...rest, version: CHECKPOINT_VERSION, memory: { ...(memory as object), ...(attempts ? { attempts } : {}) } };
}

/**
 * A parsed checkpoint of any version this memrl reads, as the current one. A version it
 * does not know is refused in one line (RunFileError); any other fault throws a
 * RunFileError too, which the run folder treats as damage (and falls back).
 */
export function readCheckpointJson(value: unknown, file: string): Checkpoint {
  const version = formatOf(file, value, { key: 'version', newest: CHECKPOINT_VERSION, oldest: 1, absent: 0 });
  const doc = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as { [key: string]: unknown }) : {};
  // The schema checks `memory` is there; zod types an unknown field as optional.
  return parseRunFile(CheckpointSchema, version === 1 ? migrateCheckpointV1(doc) : value, file) as Checkpoint;
}
