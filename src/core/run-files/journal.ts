/**
 * journal.jsonl lines (see src/runner/journal.ts): while an epoch is unfinished, each
 * finished episode with what its barrier commit needs, and each committed barrier's
 * time. Only a run in progress (or stopped) has one.
 */
import { z } from 'zod';
import type { Experience } from '../method.js';
import { OUTCOME_PHASES, outcomeRowSchema } from '../../metrics/outcome-row.js';
import type { Same } from './format.js';
import { LedgerSnapshotSchema } from './usage.js';

export const JOURNAL_FILE = 'journal.jsonl';

/** The method's Experience for the barrier: plain JSON of the method's own making. */
const ExperienceSchema = z.object({ memoryId: z.string().optional() }).catchall(z.unknown());

export const JournalEpisodeSchema = z
  .object({
    kind: z.literal('episode'),
    phase: z.enum(OUTCOME_PHASES),
    epoch: z.number().int().nonnegative(),
    taskIndex: z.number().int().nonnegative(),
    taskId: z.string(),
    row: outcomeRowSchema,
    result: ExperienceSchema.optional(),
    /** This episode's model calls (agent, judge, memory writing). */
    usage: LedgerSnapshotSchema,
  })
  .strict();

export const JournalBarrierSchema = z
  .object({
    kind: z.literal('barrier'),
    epoch: z.number().int().nonnegative(),
    batch: z.number().int().nonnegative(),
    /** The commit time, so replayed commits stamp memories exactly as the first time. */
    at: z.number(),
  })
  .strict();

export const JournalEntrySchema = z.discriminatedUnion('kind', [JournalEpisodeSchema, JournalBarrierSchema]);

export type JournalEpisode = z.infer<typeof JournalEpisodeSchema>;
export type JournalBarrier = z.infer<typeof JournalBarrierSchema>;
export type JournalEntry = z.infer<typeof JournalEntrySchema>;

const check: Same<z.infer<typeof ExperienceSchema>, Experience> = true;
void check;

/** A journal line, or undefined for one that is no entry (the line a kill cut short, or damage): its episode runs again. */
export function parseJournalLine(line: string): JournalEntry | undefined {
  if (!line.trim()) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  // The line as written (validated, not rebuilt): a replayed entry is the one recorded, key order included.
  return JournalEntrySchema.safeParse(value).success ? (value as JournalEntry) : undefined;
}
