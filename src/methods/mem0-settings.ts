/** Mem0's settings: the memrl.mem0 section (mem0.ts registers it, mem0-method.ts reads it). */
import { z } from 'zod';
import type { FidelitySwitch } from '../util/fidelity.js';

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
      .describe(
        "Mem0: minimum cosine similarity of a hit (mem0's threshold, 0..1); null = the reference's: rl_config.sim_threshold, or rl_config.tau where the benchmark reads it (0 keeps all).",
      ),
    infer: z
      .boolean()
      .default(false)
      .describe("Mem0: false = store each experience as one memory (the reference); true = Mem0's LLM extraction decides what to store (role memory calls)."),
  })
  .strict();

export type Mem0Settings = z.output<typeof mem0Section>;

export const RANKING = 'mem0.ranking';

export const MEM0_SWITCHES: readonly FidelitySwitch[] = [
  {
    id: RANKING,
    class: 'choice',
    reference: "hits ranked by cosine similarity alone, as mem0 1.0.1's Qdrant store ranked them (memrl reads mem0ai's semantic score through search's explain)",
    memrl: "hits ranked by mem0ai 3.x's hybrid score: cosine, BM25 keyword score and entity boosts, averaged",
    source: 'memrl/mem0_core/client.py:Mem0Client.search (commit 3386d8e; requirements.txt: mem0ai==1.0.1, default Qdrant vector store)',
  },
];
