/**
 * The two JSON files every run folder carries besides its outcome rows, as zod
 * schemas shared by the writers (runner, summary reporter) and the readers
 * (src/results: tables, reports, comparisons). Known fields are typed; anything
 * else a run records (evaluator facts, the resolved config, observed fingerprints)
 * passes through untouched. Fields are optional where older memrl versions or
 * hand-made fixtures may lack them; readers fill the gaps.
 */
import { z } from 'zod';
import { DATA_ORIGINS } from '../data/locations.js';

export const RUN_FORMAT = 1;

export const RunManifestSchema = z
  .object({
    memrlRunFormat: z.number().int().optional(),
    benchmark: z.string().min(1).optional(),
    /** Display name of the benchmark, so readers need not load its module (plug-ins). */
    benchmarkName: z.string().optional(),
    /** Environment label (e.g. 'bigcodebench', 'household-standin'). */
    env: z.string().optional(),
    method: z.string().min(1).optional(),
    methodName: z.string().optional(),
    model: z.string().optional(),
    simulated: z.boolean().optional(),
    embedder: z.string().optional(),
    seed: z.number().nullable().optional(),
    epochs: z.number().int().optional(),
    batchSize: z.number().int().optional(),
    concurrency: z.number().int().optional(),
    dataset: z
      .object({
        // Each file read; dataset to sample: which release it is (src/data/identify.ts), absent in runs before memrl data.
        sources: z
          .array(
            z
              .object({
                path: z.string(),
                sha256: z.string(),
                contentSha256: z.string().optional(),
                dataset: z.string().optional(),
                file: z.string().optional(),
                release: z.string().nullable().optional(),
                url: z.string().optional(),
                origin: z.enum(DATA_ORIGINS).optional(),
                sample: z.string().optional(),
              })
              .passthrough(),
          )
          .optional(),
        split: z.string().optional(),
        train: z.number().int().optional(),
        valid: z.number().int().optional(),
      })
      .passthrough()
      .optional(),
    trainTaskIds: z.array(z.string()).optional(),
    validTaskIds: z.array(z.string()).optional(),
    evaluator: z.record(z.unknown()).optional(),
    startedAt: z.string().optional(),
    resumes: z.array(z.object({ at: z.string(), fromEpoch: z.number().int(), journaled: z.number().int() }).passthrough()).optional(),
  })
  .passthrough();

export type RunManifest = z.infer<typeof RunManifestSchema>;

/** complete; interrupted (Ctrl-C, a budget: resumable); failed (too many error episodes: fix the cause, then resume). */
export const RUN_STATUSES = ['complete', 'interrupted', 'failed'] as const;

const headline = z
  .object({
    tasks: z.number().int(),
    last: z.number().nullable(),
    csr: z.number().nullable(),
  })
  .passthrough();

export const RunSummaryFileSchema = z
  .object({
    status: z.enum(RUN_STATUSES),
    /** Why a failed run stopped. */
    failure: z.string().optional(),
    epochsCompleted: z.number().int(),
    epochsPlanned: z.number().int(),
    benchmark: z.string(),
    method: z.string(),
    model: z.string(),
    simulated: z.boolean(),
    usage: z.record(z.unknown()).optional(),
    memory: z
      .object({
        /** Times the method fell back to something plainer, by kind (Self-RAG → plain top-k, Mem0 extraction → nothing stored); absent when none. */
        fallbacks: z.record(z.number().int().nonnegative()).optional(),
      })
      .passthrough()
      .optional(),
    train: headline,
    valid: headline.optional(),
    metrics: z.object({ train: z.record(z.unknown()), valid: z.record(z.unknown()).optional() }).passthrough(),
  })
  .passthrough();

export type RunSummaryFile = z.infer<typeof RunSummaryFileSchema>;

/** One line naming the file and the first field at fault. */
export function describeSchemaError(file: string, error: z.ZodError): string {
  const issue = error.issues[0];
  const at = issue?.path.join('.') || '(top level)';
  return `${file}: field \`${at}\`: ${issue?.message ?? 'invalid'}`;
}
