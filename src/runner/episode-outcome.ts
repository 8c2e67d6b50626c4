/**
 * The one place a failed episode becomes an `error` outcome. An EpisodeFault keeps what
 * the episode had (turns, tokens, transcript) and its message; a model failure the
 * episode did not wrap is "model call failed"; anything else is a crash of the
 * benchmark's own code.
 */
import { EpisodeFault, type Outcome } from '../core/outcome.js';
import { ProviderError } from '../llm/errors.js';
import { ZERO_USAGE } from '../llm/types.js';
import { errorMessage } from '../util/errors.js';

export function faultOutcome(err: unknown): Outcome {
  if (err instanceof EpisodeFault) {
    const p = err.partial;
    return { status: 'error', success: false, steps: p.steps ?? 0, error: err.message, trajectory: p.trajectory ?? '', usage: p.usage ?? ZERO_USAGE, ...(p.extra ? { extra: p.extra } : {}) };
  }
  const error = err instanceof ProviderError ? `model call failed: ${err.message}` : `episode crashed: ${errorMessage(err)}`;
  return { status: 'error', success: false, steps: 0, error, trajectory: '', usage: ZERO_USAGE };
}

/** An episode's outcome whatever happened: its own, or the error outcome of its fault. */
export async function settleEpisode(episode: Promise<Outcome>): Promise<Outcome> {
  try {
    return await episode;
  } catch (err) {
    return faultOutcome(err);
  }
}
