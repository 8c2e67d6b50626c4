/** Self-RAG's settings: the memrl.selfrag section (selfrag.ts registers it, selfrag-method.ts reads it). */
import { z } from 'zod';
import type { FidelitySwitch } from '../util/fidelity.js';

export const RETRIEVAL_MODES = ['adaptive', 'always', 'never'] as const;

export const GATE_CALL = 'selfrag.gate-call';
export const DECISION_PARSE = 'selfrag.decision-parse';
/** The baseline's client; it left the reference after commit 3386d8e. */
const CLIENT = 'memrl/selfrag_core/client.py';

export const SELFRAG_SWITCHES: readonly FidelitySwitch[] = [
  {
    id: GATE_CALL,
    class: 'choice',
    reference: 'one model call per task: the decision says whether retrieval is needed and selects among the candidates (the gate prompt exists but is never called)',
    memrl: 'two calls: a gate decides from the task alone whether to retrieve, then the decision selects',
    source: `${CLIENT}:SelfRAGClient.decide at commit 3386d8e (gate_retrieval is called nowhere)`,
  },
  {
    id: DECISION_PARSE,
    class: 'bug',
    reference:
      'the decision is asked without JSON mode; the reply, stripped, is parsed whole when it starts with "{" (text after the object spoils it), else from its first "{" to its last "}"; should_retrieve and selected are Python truth values (the strings "false" and "no" are true); an id is selected when any of its entries is',
    memrl: 'asked in JSON mode; the first "{" to the last "}" of the reply; only true (or "true") is true; labels of ids that are no candidate are dropped, the first entry of an id counts',
    source: `${CLIENT}:SelfRAGClient._extract_json, SelfRAGClient._parse_decision at commit 3386d8e`,
  },
];

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
      .describe(
        "Self-RAG: drop candidates whose cosine similarity is below this before the decision; null = the reference's: rl_config.sim_threshold, or rl_config.tau where the benchmark reads it (-1 keeps all).",
      ),
  })
  .strict();

export type SelfRagSettings = z.output<typeof selfragSection>;
