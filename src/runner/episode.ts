/**
 * Playing one episode, wherever it runs: in the run's own process, or on a worker that
 * took it from a queue (remote-episodes.ts). Both go through this function, so an
 * episode records the same transcript and reports the same outcome in either place.
 */
import type { Logger } from 'pino';
import type { Benchmark, InjectedMemory, TaskBase } from '../core/benchmark.js';
import type { Outcome } from '../core/outcome.js';
import type { RecordedCall } from '../metrics/transcripts.js';
import type { ChatModel, ChatRequest, Phase } from '../llm/types.js';
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
  const counted = (m: ChatModel, role: RecordedCall['role']): ChatModel =>
    recording(m, role, (call) => {
      if (call.cached) cacheHits++;
      calls.push(call);
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

/** `m`, with every call as sent and answered (or failed) handed to `record`. */
export function recording(m: ChatModel, role: RecordedCall['role'], record: (call: RecordedCall, req: ChatRequest) => void): ChatModel {
  return {
    label: m.label,
    simulated: m.simulated,
    chat: async (req, signal) => {
      const messages = req.messages.map((x) => ({ role: x.role, content: x.content }));
      const purpose = role === 'memory' && req.tags.purpose ? { purpose: req.tags.purpose } : {};
      try {
        const res = await m.chat(req, signal);
        record({ role, ...purpose, messages, reply: res.text, model: res.model, usage: res.usage, ...(res.cached ? { cached: true } : {}), latencyMs: res.latencyMs }, req);
        return res;
      } catch (err) {
        record({ role, ...purpose, messages, error: errorMessage(err) }, req);
        throw err;
      }
    },
  };
}
