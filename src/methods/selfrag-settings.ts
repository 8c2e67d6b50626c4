/** Self-RAG's settings: the memrl.selfrag section (selfrag.ts registers it, selfrag-method.ts reads it). */
import { z } from 'zod';

export const RETRIEVAL_MODES = ['adaptive', 'always', 'never'] as const;

export const selfragSection = z
  .object({
    top_k: z
      .number()
      .int()
      .min(1)
      .nullable()
      .default(null)
      .describe('Self-RAG: candidates found by similarity for each task (the decision call labels them); null = memory.k_retrieve, as the reference.'),
    retrieval_mode: z
      .enum(RETRIEVAL_MODES)
      .default('adaptive')
      .describe('Self-RAG: adaptive = the LLM gates retrieval and selects among the candidates; always = inject the top-k; never = no retrieval.'),
    max_decision_retries: z
      .number()
      .int()
      .min(1)
      .default(2)
      .describe('Self-RAG: calls made for a gate or decision until its reply parses as JSON (the reference counts 2 = one retry).'),
    fallback_on_error: z
      .boolean()
      .default(true)
      .describe('Self-RAG: when no reply parses, inject the plain top-k (true) or nothing (false).'),
    threshold: z
      .number()
      .min(-1)
      .max(1)
      .nullable()
      .default(null)
      .describe('Self-RAG: drop candidates whose cosine similarity is below this before the decision; null = keep all top-k.'),
  })
  .strict();

export type SelfRagSettings = z.output<typeof selfragSection>;
