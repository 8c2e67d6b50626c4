/**
 * Shared pieces of the trust benchmarks: an OpenAI-compatible chat server on
 * 127.0.0.1 that answers after a fixed delay, and a benchmark without a sandbox
 * (one agent call per task, scored from the reply) run through runBenchmark.
 */
import { Worker } from 'node:worker_threads';
import pino from 'pino';
import type { Benchmark, TaskBase } from '../src/core/benchmark.js';
import { LocalNgramEmbedder } from '../src/embed/local.js';
import { CachedChatModel, closeCacheLayers, OfflineChatModel, runCacheLayers } from '../src/llm/cache.js';
import { OpenAIChatModel } from '../src/llm/openai.js';
import { ZERO_USAGE } from '../src/llm/types.js';
import { defaultMemoryParams } from '../src/memory/params.js';
import { runBenchmark, type RunResult } from '../src/runner/run.js';

export interface Loopback {
  url: string;
  calls: () => number;
  close: () => Promise<void>;
}

/**
 * Every chat request is answered after `delayMs`; the answer passes or fails by a hash
 * of the prompt. The server runs on a worker thread: like a remote API, its work does
 * not compete with the runner for the event loop being measured.
 */
export async function startLoopback(delayMs: number): Promise<Loopback> {
  const counter = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(LOOPBACK_SERVER, { eval: true, workerData: { delayMs, counter } });
  const port = await new Promise<number>((resolvePort, reject) => {
    worker.once('message', (m: { port: number }) => resolvePort(m.port));
    worker.once('error', reject);
  });
  return {
    url: `http://127.0.0.1:${port}/v1`,
    calls: () => Atomics.load(counter, 0),
    close: async () => {
      await worker.terminate();
    },
  };
}

/** The server's source (plain JS: a worker evaluates it as is). */
const LOOPBACK_SERVER = `
const { createServer } = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const { delayMs, counter } = workerData;
const server = createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => (raw += c.toString()));
  req.on('end', () => {
    Atomics.add(counter, 0, 1);
    const body = JSON.parse(raw || '{}');
    const text = JSON.stringify(body.messages || []);
    let h = 0;
    for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) >>> 0;
    const content = h % 3 === 0 ? 'ANSWER: correct' : 'ANSWER: wrong, because the edge case was missed';
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({
        id: 'x', object: 'chat.completion', created: 0, model: 'bench-model',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 50, completion_tokens: 8, total_tokens: 58 },
      }));
    }, delayMs);
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
`;

const TOPICS = ['parse csv rows', 'plot a histogram', 'hash a file', 'merge two dataframes', 'count words in text', 'fit a regression'];

export function benchTasks(n: number): TaskBase[] {
  return Array.from({ length: n }, (_, i) => ({ id: `bench/${i}`, key: `Write a function to ${TOPICS[i % TOPICS.length]} (case ${i}).` }));
}

/** No sandbox: the episode is one model call; the reply decides pass/fail. */
export function benchBenchmark(tasks: TaskBase[]): Benchmark<TaskBase> {
  return {
    name: 'bench',
    envLabel: 'bench',
    load: async () => ({ train: tasks, valid: [], sources: [], splitLabel: 'bench' }),
    simPlayer: () => ({ reply: () => 'ANSWER: correct' }),
    describeEvaluator: async () => ({ backend: 'none' }),
    async episode(task, ctx) {
      const memo = ctx.memories.map((m) => m.content).join('\n');
      const reply = await ctx.model.chat(
        {
          messages: [
            { role: 'system', content: memo ? `Helpful notes:\n${memo}` : 'Solve the task.' },
            { role: 'user', content: task.key },
          ],
          temperature: 0.7,
          tags: { benchmark: 'bench', taskId: task.id, epoch: ctx.epoch, phase: ctx.phase, role: 'agent', purpose: 'solve' },
        },
        ctx.signal,
      );
      const success = reply.text.includes('correct');
      return { status: success ? 'pass' : 'fail', success, steps: 1, trajectory: reply.text, usage: reply.usage ?? ZERO_USAGE };
    },
  };
}

export interface BenchRunOptions {
  url: string;
  tasks: TaskBase[];
  epochs: number;
  concurrency: number;
  batchSize: number;
  runDir: string;
  /** Read replies from this run folder's recording, offline. */
  replayFrom?: string;
}

/** One memrl run (retrieval, Q updates, memory writing through the model, commits) through runBenchmark. */
export async function benchRun(o: BenchRunOptions): Promise<RunResult> {
  const layers = runCacheLayers({ runDir: o.runDir, replayFrom: o.replayFrom });
  const id = { provider: 'openai' as const, baseUrl: o.url, model: 'bench-model', defaultTemperature: 0.7 };
  try {
    return await runBenchmark({
      benchmark: benchBenchmark(o.tasks),
      method: { module: 'memrl', memoryParams: defaultMemoryParams({ method: 'memrl' }), buildStrategy: 'proceduralization' },
      schedule: { epochs: o.epochs, batchSize: o.batchSize, concurrency: o.concurrency, seed: 1 },
      validation: { run: false, beforeTraining: false },
      models: {
        agent: () =>
          new CachedChatModel(
            o.replayFrom ? new OfflineChatModel('openai:bench-model', false) : new OpenAIChatModel({ apiKey: 'sk-bench', baseURL: o.url, model: 'bench-model', maxRetries: 0 }),
            id,
            layers,
          ),
        embedder: new LocalNgramEmbedder({}),
      },
      folder: { dir: o.runDir, resume: false, manifest: {} },
      log: pino({ level: 'silent' }),
    });
  } finally {
    closeCacheLayers(layers);
  }
}
