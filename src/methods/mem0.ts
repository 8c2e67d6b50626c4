/**
 * Mem0, the paper's baseline, with the real Mem0 library (npm `mem0ai`, its open-source
 * `Memory`), as the reference (memrl/mem0_core) uses it:
 *   write   after each training episode, one add of the experience (task, trajectory and
 *           result, success in the metadata). infer=false (default) stores it as one
 *           memory; infer=true lets Mem0's own LLM extraction decide what to store
 *           (mem0ai 3.x extracts additively: it adds what it finds new, given the
 *           existing memories it is shown).
 *   read    before each episode, `search` with limit = k and a cosine threshold (the
 *           reference's by default); the hits are injected, best first: by cosine as
 *           the reference's mem0 1.0.1 ranked them, or by mem0ai 3.x's hybrid score
 *           (switch mem0.ranking).
 *   learns  nothing else: no utility, no reranking.
 * How mem0ai is wired to memrl's model and embedder, and how its ids, times and dates are
 * pinned so that resume and replay are exact: methods/mem0-bridge.ts. This file stays
 * light: the instance (mem0-method.ts), mem0ai and its SQLite addon load only when a
 * run uses the method.
 */
import type { MethodModule } from '../core/method.js';
import { MEM0_SWITCHES, mem0Section, type Mem0Settings } from './mem0-settings.js';

export type { Mem0Settings } from './mem0-settings.js';
export { MEM0_SWITCHES, RANKING } from './mem0-settings.js';

export const mem0: MethodModule<Mem0Settings | undefined> = {
  kind: 'method',
  name: 'mem0',
  displayName: 'Mem0',
  description: 'the mem0ai library: each experience added to its memory (infer=false by default), its search results injected',
  configSection: mem0Section,
  fidelitySwitches: MEM0_SWITCHES,
  create: async (ctx) => (await import('./mem0-method.js')).openMem0(ctx, ctx.settings ?? mem0Section.parse({})),
};
