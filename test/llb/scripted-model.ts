/** A chat model that plays fixed replies, with a hook before each (e.g. to kill the evaluator mid-episode). */
import pino from 'pino';
import type { ChatModel } from '../../src/llm/types.js';
import type { EpisodeContext } from '../../src/core/index.js';

export function scriptedModel(replies: string[], before?: (turn: number) => Promise<void>): ChatModel {
  let turn = 0;
  return {
    label: 'scripted',
    simulated: true,
    async chat() {
      const t = turn++;
      await before?.(t);
      return { text: replies[Math.min(t, replies.length - 1)] ?? '', usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 }, model: 'scripted', latencyMs: 0 };
    },
  };
}

export function episodeContext(model: ChatModel): EpisodeContext {
  return { model, memories: [], epoch: 1, phase: 'train', signal: new AbortController().signal, log: pino({ level: 'silent' }) };
}
