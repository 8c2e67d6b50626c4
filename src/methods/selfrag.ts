/**
 * Self-RAG, as the paper's baseline and the reference (memrl/selfrag_core) define it: the
 * main LLM drives retrieval, no separately trained Self-RAG model.
 *
 * Memory: every finished training episode, stored as its task, trajectory and result
 * (src/memory/prompts/experience.md), embedded with the run's embedder and tagged with benchmark,
 * epoch, phase and success. Retrieval, per task: the top-k stored experiences by cosine
 * similarity of the task text to the stored text, those below the similarity
 * `threshold` dropped (the reference's: rl_config.sim_threshold, on HLE rl_config.tau);
 * then by `retrieval_mode`:
 *   always   inject the candidates;
 *   never    inject nothing;
 *   adaptive one decision call says whether retrieval is needed and labels every
 *            candidate (selected, relevance, support, utility); the selected ones are
 *            injected, in similarity order. Under selfrag.gate-call=memrl a gate call
 *            first asks, from the task alone, whether experience is worth it.
 * A call whose reply stays unparseable after `max_decision_retries` attempts falls back
 * to the candidates (`fallback_on_error`, else nothing). The calls are role `memory`
 * through the run's model, so they are metered, cached and replayed like every call,
 * and each task's decision is recorded in its outcome row (extra.retrieval).
 */
import type { MethodModule } from '../core/method.js';
import { SELFRAG_SWITCHES, selfragSection, type SelfRagSettings } from './selfrag-settings.js';

export type { SelfRagSettings } from './selfrag-settings.js';
export { DECISION_PARSE, GATE_CALL, SELFRAG_SWITCHES } from './selfrag-settings.js';

export const selfrag: MethodModule<SelfRagSettings | undefined> = {
  kind: 'method',
  name: 'selfrag',
  displayName: 'Self-RAG',
  description: 'the LLM gates retrieval and labels the top-k similar past experiences (selected, relevance, support, utility); selected ones are injected',
  configSection: selfragSection,
  fidelitySwitches: SELFRAG_SWITCHES,
  create: async (ctx) => new (await import('./selfrag-method.js')).SelfRag(ctx, ctx.settings ?? selfragSection.parse({})),
};
