/** Mem0's settings: the memrl.mem0 section (mem0.ts registers it, mem0-method.ts reads it). */
import { z } from 'zod';

export const mem0Section = z
  .object({
    limit: z
      .number()
      .int()
      .min(1)
      .nullable()
      .default(null)
      .describe('Mem0: memories injected per task (search limit k); null = memory.k_retrieve, as the reference.'),
    threshold: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .default(null)
      .describe("Mem0: minimum search score (mem0's threshold, 0..1); null = none (the reference's 0.0)."),
    infer: z
      .boolean()
      .default(false)
      .describe("Mem0: false = store each experience as one memory (the reference); true = Mem0's LLM extraction decides what to store (role memory calls)."),
  })
  .strict();

export type Mem0Settings = z.output<typeof mem0Section>;
