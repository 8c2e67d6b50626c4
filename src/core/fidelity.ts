/**
 * Fidelity targets: a reference function recorded as input → output vectors
 * (../shared/fidelity/*.jsonl) and memrl's counterpart; `memrl fidelity <dir>`
 * replays the vectors and reports agreement. The switches themselves are plain data
 * in util/fidelity.ts, re-exported here.
 */
import type { Fidelity } from '../util/fidelity.js';

export * from '../util/fidelity.js';

/** One recorded reference function and memrl's counterpart. */
export interface FidelityTarget {
  /** The `target` named in a vector file's header line, e.g. 'bcb_extract_code'. */
  name: string;
  /** The reference function (path:function). */
  source: string;
  /**
   * `exact`: memrl's output must equal the recorded one. `structure`: the recorded
   * output holds the reference's wording, which memrl does not ship; both outputs are
   * reduced by `structure` (what is kept, order, cut points, lengths of kept content)
   * and those must be equal. With a prompt pack imported from a MemRL checkout the
   * wording is the reference's too, and `memrl fidelity --prompts` compares exactly.
   */
  compare: 'exact' | 'structure';
  /** Switches that can change this target's output (tried one by one to explain a difference). */
  switches: readonly string[];
  /**
   * memrl's output for one recorded input, in the recorded output's shape. Throws
   * FidelityInputError when the input does not fit the target (a malformed vector).
   */
  run(input: unknown, ctx: FidelityRunContext): unknown | Promise<unknown>;
  /** For `structure` targets: the comparable skeleton of an output (recorded or memrl's). */
  structure?(output: unknown, input: unknown): unknown;
}

export interface FidelityRunContext {
  fidelity: Fidelity;
  /** A prompt pack's folder (the target reads its own namespace, e.g. packNamespace(promptDir, 'bcb')); undefined: memrl's own templates. */
  promptDir?: string;
}

/** A vector whose input does not have the shape its target reads. */
export class FidelityInputError extends Error {
  override name = 'FidelityInputError';
}
