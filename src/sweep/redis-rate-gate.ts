/**
 * The endpoint's rate limit kept in Redis, shared by the run's process and every worker:
 * one key per endpoint holds the next free slot; a Lua script reserves a slot and says
 * how long to wait for it, on Redis's clock (so the machines' clocks need not agree).
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { sleep, type RateGate, type RateGateFactory } from '../llm/rate-gate.js';
import { QUEUE_PREFIX, type QueueTarget } from './queue.js';

// KEYS[1]: the endpoint's key; ARGV[1]: milliseconds between calls. Returns the wait in ms.
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local slot = tonumber(redis.call('GET', KEYS[1]) or now)
if slot < now then slot = now end
redis.call('SET', KEYS[1], tostring(slot + interval), 'PX', math.ceil(slot + interval - now) + 60000)
return math.ceil(slot - now)
`;

export interface SharedRateGates {
  factory: RateGateFactory;
  close(): Promise<void>;
}

export function redisRateGates(target: QueueTarget): SharedRateGates {
  let redis: Redis | undefined;
  const client = (): Redis => (redis ??= new Redis({ ...target.connection, maxRetriesPerRequest: null }));
  const gates = new Map<string, RateGate>();
  return {
    factory: (endpoint, perSecond) => {
      const key = `${QUEUE_PREFIX}:rate:${createHash('sha256').update(endpoint).digest('hex').slice(0, 16)}`;
      const id = `${key}|${perSecond}`;
      let g = gates.get(id);
      if (!g) {
        const interval = String(1000 / perSecond);
        g = {
          acquire: async (signal) => {
            const wait = (await client().eval(RESERVE, 1, key, interval)) as number;
            await sleep(wait, signal);
          },
        };
        gates.set(id, g);
      }
      return g;
    },
    close: async () => {
      redis?.disconnect();
    },
  };
}
