/**
 * A request rate limit for a model endpoint (memrl.llm.rate_limit, requests per second).
 * Calls are spaced evenly, 1/rate apart: each caller reserves the next free slot and
 * waits for it. Replies served from the response cache never reach the gate.
 *
 * In one process the slots are kept here (LocalRateGate); across the processes of a
 * distributed run they are kept in Redis (sweep/redis-rate-gate.ts), so every worker
 * and the run's own process draw from one limit.
 */
import type { ChatModel } from './types.js';
import { onAbort } from '../util/abort.js';

export interface RateGate {
  /** Resolves when this call may go out. */
  acquire(signal?: AbortSignal): Promise<void>;
}

/** Makes the gate of an endpoint (one per base URL and model, shared by every model object for it). */
export type RateGateFactory = (endpoint: string, perSecond: number) => RateGate;

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const stopWaiting = signal ? onAbort(signal, () => (clearTimeout(t), resolve())) : () => undefined;
    const t = setTimeout(() => (stopWaiting(), resolve()), ms);
  });
}

export class LocalRateGate implements RateGate {
  private next = 0;
  private readonly interval: number;

  constructor(perSecond: number, private readonly now: () => number = Date.now) {
    this.interval = 1000 / perSecond;
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    const t = this.now();
    const slot = Math.max(t, this.next);
    this.next = slot + this.interval;
    await sleep(slot - t, signal);
  }
}

const localGates = new Map<string, LocalRateGate>();

/** One gate per endpoint and rate in this process. */
export const localRateGates: RateGateFactory = (endpoint, perSecond) => {
  const key = `${endpoint}|${perSecond}`;
  let g = localGates.get(key);
  if (!g) localGates.set(key, (g = new LocalRateGate(perSecond)));
  return g;
};

export function rateLimited(inner: ChatModel, gate: RateGate): ChatModel {
  return {
    label: inner.label,
    simulated: inner.simulated,
    chat: async (req, signal) => {
      await gate.acquire(signal);
      return inner.chat(req, signal);
    },
  };
}
