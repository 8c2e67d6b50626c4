/**
 * memories.jsonl: the memory method's records at the end of the run (or attempt), one
 * per line, without embeddings. The record's schema is the method contract's (what a
 * method's records() returns); the engine's type (src/memory/types.ts) is checked equal.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { z } from 'zod';
import type { MemoryRecord } from '../../memory/types.js';
import { memoryRecordObject } from '../method.js';
import { parseRunFile, RunFileError, type Same } from './format.js';

export const MEMORIES_FILE = 'memories.jsonl';

/** A line: the method contract's memory record (core/method.ts), with no key besides its own. */
export const MemoryRecordSchema = memoryRecordObject.strict();

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
