/**
 * traces.jsonl: each multi-turn episode's whole conversation as its benchmark records it
 * (an outcome's `extra.transcript`), one line per outcome row that has one.
 */
import { z } from 'zod';
import { OUTCOME_PHASES } from '../../metrics/outcome-row.js';

export const TRACES_FILE = 'traces.jsonl';

export const TraceLineSchema = z
  .object({
    benchmark: z.string(),
    taskId: z.string(),
    taskIndex: z.number().int().nonnegative(),
    epoch: z.number().int().nonnegative(),
    phase: z.enum(OUTCOME_PHASES),
    /** The benchmark's own record of the conversation (its turns, observations, actions). */
    transcript: z.unknown(),
  })
  .strict();

export type TraceLine = z.infer<typeof TraceLineSchema>;
