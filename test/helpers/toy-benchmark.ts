/**
 * A fast benchmark for runner tests: real runner, real memory engine, real sim model,
 * but the "environment" is just the sim reply (no sandbox), so many epochs run in ms.
 * Episodes sleep a task-dependent time so completion order differs from task order.
 */
import type { Benchmark, TaskBase } from '../../src/core/index.js';
import type { SimPlayer } from '../../src/llm/sim/model.js';
import { successProbability } from '../../src/llm/sim/shaping.js';
import { ZERO_USAGE } from '../../src/llm/types.js';

const TOPICS = ['parse csv rows', 'plot a histogram', 'hash a file', 'merge two dataframes', 'count words in text'];
const TWISTS = ['and sort the result', 'with missing values', 'for a given column', 'into a dictionary'];

export interface ToyTask extends TaskBase {
  n: number;
}

export function toyTasks(count: number, offset = 0): ToyTask[] {
  return Array.from({ length: count }, (_, i) => {
    const n = i + offset;
    return { id: `toy/${n}`, key: `Write a function to ${TOPICS[n % TOPICS.length]} ${TWISTS[n % TWISTS.length]} (variant ${n % 7}).`, n };
  });
}

export interface ToyOptions {
  train?: number;
  valid?: number;
  /** Task ids whose episode throws (harness error path). */
  crash?: Set<string>;
  /** Record the reply as a one-turn transcript (exercises traces.jsonl). */
  transcript?: boolean;
  /** Called at the start of each episode (tests use it to interrupt a run). */
  onEpisode?: (task: ToyTask, epoch: number, phase: string) => void;
}

export function toyBenchmark(opts: ToyOptions = {}): Benchmark<ToyTask> {
  const train = toyTasks(opts.train ?? 12);
  const valid = toyTasks(opts.valid ?? 0, 1000);
  const player: SimPlayer = {
    reply(req, rng) {
      const task = [...train, ...valid].find((t) => t.id === req.tags.taskId)!;
      const p = successProbability({ taskId: task.id, taskKey: task.key, memories: req.memoryHints ?? [] });
      return rng.next() < p ? 'ANSWER: correct' : 'ANSWER: wrong';
    },
  };
  return {
    name: 'toy',
    envLabel: 'toy',
    load: async () => ({ train, valid, sources: [], splitLabel: 'toy' }),
    simPlayer: () => player,
    describeEvaluator: async () => ({ backend: 'none' }),
    async episode(task, ctx) {
      opts.onEpisode?.(task, ctx.epoch, ctx.phase);
      if (opts.crash?.has(task.id)) throw new Error(`toy crash in ${task.id}`);
      await new Promise((r) => setTimeout(r, (task.n * 7) % 5));
      const reply = await ctx.model.chat({
        messages: [{ role: 'user', content: task.key }],
        tags: { benchmark: 'toy', taskId: task.id, epoch: ctx.epoch, phase: ctx.phase, role: 'agent' },
        memoryHints: ctx.memories.map(({ id, key, success, taskId }) => ({ id, key, success, taskId })),
      });
      const success = reply.text.includes('correct');
      const extra = opts.transcript ? { transcript: [{ turn: 0, reply: reply.text }] } : undefined;
      return { status: success ? 'pass' : 'fail', success, steps: 1, trajectory: reply.text, usage: reply.usage ?? ZERO_USAGE, ...(extra ? { extra } : {}) };
    },
  };
}
