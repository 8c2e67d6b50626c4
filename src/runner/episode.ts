/**
 * Playing one episode, wherever it runs: in the run's own process, or on a worker that
 * took it from a queue (remote-episodes.ts). Both go through this function, so an
 * episode records the same transcript and reports the same outcome in either place.
 */
import type { Logger } from 'pino';
import type { Benchmark, InjectedMemory, TaskBase } from '../core/benchmark.js';
import type { Outcome } from '../core/outcome.js';
import type { RecordedCall } from '../metrics/transcripts.js';
import type { ChatModel, Phase } from '../llm/types.js';
import { errorMessage } from '../util/errors.js';
import { faultOutcome } from './episode-outcome.js';

export interface EpisodeModels {
  model: ChatModel;
  judge?: ChatModel;
}

export type PlayedEpisode = Outcome & { ms: number };

/** Never throws: a failed episode is an 'error' outcome. Also measures wall time. */
export async function playEpisode<T extends TaskBase>(
  bench: Benchmark<T>,
  task: T,
  models: EpisodeModels,
  at: { epoch: number; phase: Phase; memories: InjectedMemory[]; signal?: AbortSignal | undefined; log: Logger },
): Promise<PlayedEpisode> {
  const started = performance.now();
  let outcome: Outcome;
  // This episode's replies served from the response cache (outcome rows mark them).
  let cacheHits = 0;
  // Every call as sent and answered: the episode's transcript (transcripts.jsonl.gz).
  const calls: RecordedCall[] = [];
  const counted = (m: ChatModel, role: RecordedCall['role']): ChatModel => ({
    label: m.label,
    simulated: m.simulated,
    chat: async (req, signal) => {
      const messages = req.messages.map((x) => ({ role: x.role, content: x.content }));
      try {
        const res = await m.chat(req, signal);
        if (res.cached) cacheHits++;
        calls.push({ role, messages, reply: res.text, model: res.model, usage: res.usage, ...(res.cached ? { cached: true } : {}), latencyMs: res.latencyMs });
        return res;
      } catch (err) {
        calls.push({ role, messages, error: errorMessage(err) });
        throw err;
      }
    },
  });
  const { epoch, phase, memories, log } = at;
  try {
    outcome = await bench.episode(task, {
      model: counted(models.model, 'agent'),
      judge: models.judge && counted(models.judge, 'judge'),
      memories,
      epoch,
      phase,
      signal: at.signal ?? new AbortController().signal,
      log,
    });
  } catch (err) {
    log.error({ event: 'episode_error', task: task.id, epoch, phase, err: errorMessage(err) }, 'episode failed');
    outcome = faultOutcome(err);
  }
  if (cacheHits > 0) outcome = { ...outcome, extra: { ...outcome.extra, cacheHits } };
  // Journaled with the row, moved to the transcripts file when the batch commits.
  if (calls.length > 0) outcome = { ...outcome, extra: { ...outcome.extra, calls } };
  return { ...outcome, ms: Math.round(performance.now() - started) };
}
