/**
 * memories.jsonl: the memory method's records at the end of the run (or attempt), one
 * per line, without embeddings. The record type is the engine's (src/memory/types.ts),
 * checked equal to this schema.
 */
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import type { MemoryRecord } from '../../memory/types.js';
import { parseRunFile, RunFileError, type Same } from './format.js';

export const MEMORIES_FILE = 'memories.jsonl';

export const MemoryRecordSchema = z
  .object({
    id: z.string(),
    key: z.string(),
    content: z.string(),
    success: z.boolean(),
    q: z.number(),
    visits: z.number().int().nonnegative(),
    rewardEma: z.number(),
    lastReward: z.number().nullable(),
    createdAt: z.number(),
    updatedAt: z.number(),
    relatedIds: z.array(z.string()),
    /** Where the memory came from (task, epoch, phase, status): the writer's, plus whatever a method adds. */
    meta: z.object({ taskId: z.string().optional(), epoch: z.number().optional(), phase: z.string().optional(), status: z.string().optional() }).catchall(z.unknown()),
    sourceKey: z.string().optional(),
  })
  .strict();

export type MemoryLine = z.infer<typeof MemoryRecordSchema>;

const check: Same<MemoryLine, MemoryRecord> = true;
void check;

/** The lines of memories.jsonl (none when the file is missing); a line that is not a record names the file and line. */
export function readMemories(path: string): MemoryLine[] {
  if (!existsSync(path)) return [];
  const out: MemoryLine[] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (!line.trim()) return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (err) {
        throw new RunFileError(`${path}:${i + 1}: not JSON (${(err as Error).message}); this run folder was not written by memrl, or was edited`);
      }
      out.push(parseRunFile(MemoryRecordSchema, value, `${path}:${i + 1}`));
    });
  return out;
}
