/**
 * Where the memory writer's templates (src/memory/prompts) sit in the reference code
 * (memrl/service/), for `memrl prompts import`. Locations only, never the text.
 */
import type { ReferencePrompt } from '../util/fidelity.js';

export const WRITER_REFERENCE_PROMPTS: readonly ReferencePrompt[] = [];
