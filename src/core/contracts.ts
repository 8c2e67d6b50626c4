/**
 * Every contract a plug-in meets, in the order docs/plugin-reference.md presents them.
 * The page is generated from this list (scripts/plugin-reference.ts, `npm run docs`);
 * test/architecture/plugin-reference.test.ts fails when the page and the schemas differ.
 */
import type { z } from 'zod';
import { chatModelSchema, chatRequestSchema, chatResponseSchema, chatTagsSchema, chatMessageSchema, injectedMemoryHintSchema, tokenUsageSchema } from '../llm/types.js';
import { benchmarkModuleSchema, benchmarkSchema, episodeContextSchema, sourceFileSchema, flagSchema, injectedMemorySchema, loadedTasksSchema, simPlayerSchema, taskSchema } from './benchmark.js';
import {
  commitEffectsSchema,
  experienceSchema,
  finishedEpisodeSchema,
  memoryRecordSchema,
  methodContextSchema,
  methodInstanceSchema,
  methodModuleSchema,
  methodStatsSchema,
  retrievalFieldsSchema,
  retrievalQuerySchema,
  retrievalSchema,
} from './method.js';
import { outcomeSchema } from './outcome.js';
import { epochEndEventSchema, reporterSchema, runEndEventSchema, runInfoSchema, runStartEventSchema } from './reporter.js';
import { EvaluatorFactsSchema } from './run-files/evaluator.js';

export interface ContractGroup {
  title: string;
  /** What the group is, in a few sentences (markdown). */
  intro: string;
  schemas: readonly z.ZodTypeAny[];
}

export const CONTRACT_GROUPS: readonly ContractGroup[] = [
  {
    title: 'A benchmark',
    intro:
      "A benchmark plug-in exports a `BenchmarkModule`. memrl reads its names, config section, defaults and flags when the command line is parsed, calls `resolve` with the validated config, then `create` once per run; the `Benchmark` that returns loads the tasks and plays one episode at a time, many at once. Tutorial: [plugins.md](plugins.md#a-benchmark-step-by-step).",
    schemas: [benchmarkModuleSchema, flagSchema, benchmarkSchema, loadedTasksSchema, sourceFileSchema, taskSchema, episodeContextSchema, injectedMemorySchema, outcomeSchema, simPlayerSchema, EvaluatorFactsSchema],
  },
  {
    title: 'The model client',
    intro: "An episode talks to the model under test through `ctx.model.chat(request, ctx.signal)`. memrl's client does the retries, rate limits, response cache, cost metering and the transcript; the request's tags say who asks and drive the cache key and the simulator.",
    schemas: [chatModelSchema, chatRequestSchema, chatTagsSchema, chatMessageSchema, injectedMemoryHintSchema, chatResponseSchema, tokenUsageSchema],
  },
  {
    title: 'A memory method',
    intro:
      "A method plug-in exports a `MethodModule`; its `create` returns a `MethodInstance` per run. For each batch the runner asks `retrieve` for every task from the memory as committed before the batch, hands each finished training episode to `learn`, and at the barrier gives the experiences to `commit` in task order. Tutorial: [plugins.md](plugins.md#a-memory-method-step-by-step).",
    schemas: [methodModuleSchema, methodContextSchema, methodInstanceSchema, retrievalQuerySchema, retrievalSchema, retrievalFieldsSchema, finishedEpisodeSchema, experienceSchema, commitEffectsSchema, memoryRecordSchema, methodStatsSchema],
  },
  {
    title: 'A reporter',
    intro: "Every output of a run is a reporter: hooks the runner calls in a fixed order. Plug-in modules do not register reporters; a program that starts runs with `startRun` from 'memrl/app' may add its own.",
    schemas: [reporterSchema, runInfoSchema, runStartEventSchema, epochEndEventSchema, runEndEventSchema],
  },
];
