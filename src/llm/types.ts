/**
 * The chat-model interface every provider (openai-compatible, sim, cache) implements,
 * and the call a benchmark makes through it. Each is a zod schema: the TypeScript type
 * comes from it, the plug-in boundary checks a plug-in's calls against it, and its
 * `.describe()` texts are the reference page (docs/plugin-reference.md).
 */
import { z } from 'zod';
import { fn, named, opaque } from '../util/contract-schema.js';

export const CALL_ROLES = ['agent', 'judge', 'memory'] as const;
export type CallRole = (typeof CALL_ROLES)[number];
export const PHASES = ['train', 'valid', 'gold'] as const;
export type Phase = (typeof PHASES)[number];

/** Who is asking and why. Tags drive the cache key, the cost ledger and the sim model. */
export const chatTagsSchema = named(
  'ChatTags',
  z
    .object({
      benchmark: z.string().min(1).describe("The benchmark's name (its module's `name`). The sim model picks the benchmark's player by it; the response cache and the cost ledger file the call under it."),
      taskId: z.string().min(1).describe("The episode's task id. The sim player finds the task by it; the cache key and the transcript carry it."),
      epoch: z.number().int().min(0).describe("`ctx.epoch`: part of the cache key, so each epoch's call is answered afresh."),
      phase: z.enum(PHASES).describe("`ctx.phase`: part of the cache key."),
      role: z.enum(CALL_ROLES).describe("`agent` for the model under test, `judge` for a scoring model (`ctx.judge`), `memory` for memory-writing calls (methods). The cost ledger and the transcripts split calls by it."),
      purpose: z.string().optional().describe("A finer purpose inside the role (e.g. 'solve', 'judge', 'reflection'): part of the cache key, shown in transcripts."),
      turn: z.number().int().min(0).optional().describe('The turn inside a multi-turn episode (0-based): part of the cache key, so each turn gets its own reply.'),
    })
    .describe('Who is asking and why: part of every chat call.'),
);
export type ChatTags = z.infer<typeof chatTagsSchema>;

export const contentPartSchema = z.union([
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('image_url'), image_url: z.object({ url: z.string() }) }),
]);
export type ContentPart = z.infer<typeof contentPartSchema>;

export const chatMessageSchema = named(
  'ChatMessage',
  z.object({
    role: z.enum(['system', 'user', 'assistant']).describe('Who speaks.'),
    content: z.union([z.string(), z.array(contentPartSchema)]).describe('Text, or parts (text and image URLs) for a multimodal model.'),
  }),
);
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/** What the harness injected into the prompt. Real providers ignore it; the sim model reads it. */
export const injectedMemoryHintSchema = named(
  'MemoryHint',
  z.object({
    id: z.string().describe("The memory's id."),
    key: z.string().describe('The intent key it is filed under.'),
    success: z.boolean().describe('Whether the episode that wrote it succeeded.'),
    taskId: z.string().optional().describe('The task that wrote it.'),
  }),
);
export type InjectedMemoryHint = z.infer<typeof injectedMemoryHintSchema>;

export const chatRequestSchema = named(
  'ChatRequest',
  z
    .object({
      messages: z.array(chatMessageSchema).min(1).describe('The conversation so far, oldest first. Recorded as sent in the episode transcript.'),
      temperature: z.number().min(0).max(2).optional().describe("Sampling temperature (default: the run's `llm.temperature`)."),
      maxTokens: z.number().int().min(1).optional().describe("Completion token limit (default: `llm.max_tokens`, else the endpoint's)."),
      topP: z.number().min(0).max(1).optional().describe('Nucleus sampling.'),
      jsonMode: z.boolean().optional().describe('Ask for a JSON object reply where the endpoint supports it.'),
      acceptEmpty: z.boolean().optional().describe("Return an empty reply as '' for the caller to score (as the reference does) instead of failing the call. Not part of the response cache's key."),
      tags: chatTagsSchema,
      memoryHints: z
        .array(injectedMemoryHintSchema)
        .optional()
        .describe('The memories injected into this prompt (`ctx.memories` as `{id, key, success, taskId}`). Real endpoints never see them; the sim model raises its chance of a right answer with the successful ones, so without them a sim run cannot show memory helping.'),
    })
    .describe('One chat call: `ctx.model.chat(request, ctx.signal)`.'),
);
export type ChatRequest = z.infer<typeof chatRequestSchema>;

export const tokenUsageSchema = named(
  'TokenUsage',
  z
    .object({
      promptTokens: z.number().int().min(0).describe('Tokens in the prompt.'),
      completionTokens: z.number().int().min(0).describe('Tokens in the reply.'),
      totalTokens: z.number().int().min(0).describe('Their sum.'),
    })
    .describe('Tokens a call (or an episode) used.'),
);
export type TokenUsage = z.infer<typeof tokenUsageSchema>;

export const chatResponseSchema = named(
  'ChatResponse',
  z
    .object({
      text: z.string().describe("The reply's text."),
      usage: tokenUsageSchema.describe('Tokens this call used (zero when the reply came from the cache).'),
      model: z.string().describe("Model name as the provider reports it ('sim' for the simulator)."),
      systemFingerprint: z.string().optional().describe("The provider's system fingerprint, if it gives one."),
      latencyMs: z.number().min(0).describe('Wall time of the call.'),
      cached: z.boolean().optional().describe('True when the reply came from the response cache or a replayed run.'),
    })
    .describe('What `chat` resolves to.'),
);
export type ChatResponse = z.infer<typeof chatResponseSchema>;

export const chatModelSchema = named(
  'ChatModel',
  z
    .object({
      label: z.string().describe("Stable label written to every output, e.g. 'sim' or 'openai:gpt-4o-mini'."),
      simulated: z.boolean().describe('True for the offline simulator: its numbers are never results.'),
      chat: fn<(request: ChatRequest, signal?: AbortSignal) => Promise<ChatResponse>>(
        [
          ['request', chatRequestSchema],
          ['signal', opaque<AbortSignal>('AbortSignal').optional()],
        ],
        z.promise(chatResponseSchema),
      ).describe(
        "Sends one call; pass `ctx.signal` so Ctrl-C and budget stops cancel it. Retries, rate limits, caching, cost and the transcript are memrl's: a rejection means the endpoint failed after its retries (let it propagate, or wrap it in an EpisodeFault of kind 'model').",
      ),
    })
    .describe('The model client a benchmark gets as `ctx.model` (and `ctx.judge`).'),
);
export type ChatModel = z.infer<typeof chatModelSchema>;

export const ZERO_USAGE: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
