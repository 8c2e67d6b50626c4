/**
 * The paper's published numbers (data/paper-results.json), shown by `memrl table
 * --paper` as reference rows. Validated on read so a hand edit cannot slip in a typo.
 */
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { UserError } from '../util/errors.js';
import { asset } from '../util/paths.js';
import { causeOf } from '../util/fs-errors.js';

const paperEntry = z
  .object({
    /** null: the source does not say which benchmark. */
    benchmark: z.string().min(1).nullable(),
    method: z.string().min(1),
    metric: z.string().min(1),
    value: z.number().finite(),
    /** Task set the number is on, when the source says (e.g. held-out tasks). */
    setting: z.string().nullable(),
    note: z.string().optional(),
  })
  .strict();

const paperResultsSchema = z
  .object({
    source: z.string().min(1),
    url: z.string().url(),
    transcribed_from: z.string().optional(),
    caveat: z.string().optional(),
    results: z.array(paperEntry),
  })
  .strict();

export type PaperEntry = z.infer<typeof paperEntry>;
export type PaperResults = z.infer<typeof paperResultsSchema>;

export function defaultPaperResultsPath(): string {
  return asset('data', 'paper-results.json');
}

export function loadPaperResults(path = defaultPaperResultsPath()): PaperResults {
  if (!existsSync(path)) throw new UserError(`${path}: the paper's reference numbers are missing; restore data/paper-results.json or drop --paper`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UserError(`${path}: not readable JSON (${causeOf(err)})`);
  }
  const parsed = paperResultsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UserError(`${path}: ${issue.path.join('.') || '(file)'}: ${issue.message}`);
  }
  return parsed.data;
}
