/**
 * The memory-method contract. A method is one file under src/methods/ (or a plug-in
 * module) exporting a MethodModule; the runner asks its instance, per batch, what
 * to inject into each task, hands it each finished training episode, and at the
 * barrier tells it to commit, in task order. The runner has no idea which method
 * it runs.
 *
 * Exactly-once across kills: `learn` runs inside the episode's slot and its result
 * (an Experience, plain JSON) is journaled with the episode; after a crash the
 * runner replays journaled experiences into `commit` instead of learning again.
 * So an Experience must carry everything `commit` needs, and `retrieve` must be a
 * pure function of the committed state and the RNG it is given.
 *
 * As in benchmark.ts, each contract is a zod schema: the type, the plug-in boundary's
 * check and the reference page's text come from it.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Embedder } from '../embed/types.js';
import { chatModelSchema, PHASES, type ChatModel } from '../llm/types.js';
import { BUILD_STRATEGIES, MEMORY_METHODS, type BuildStrategy, type MemoryParams, type MemoryRecord } from '../memory/types.js';
import { contract, fn, maybeAsync, named, opaque, plainJson } from '../util/contract-schema.js';
import type { Fidelity, FidelitySwitch, ReferencePrompt } from '../util/fidelity.js';
import type { Rng } from '../util/rng.js';
import { injectedMemorySchema, taskSchema, type TaskBase } from './benchmark.js';
import { outcomeSchema } from './outcome.js';

const NAME = /^[a-z][a-z0-9_-]*$/;

export const methodContextSchema = contract('MethodContext', "What `create` gets: the run's settings, models and, on `--resume`, the state `snapshot` returned.", {
  benchmark: z.string().describe("The benchmark's name."),
  settings: opaque<unknown>('C').describe('Its own `memrl.<name>` section, validated by its `configSection` (undefined when it has none).'),
  params: opaque<MemoryParams>('MemoryParams').describe("The memory engine's parameters resolved for this run (k1, k2, epsilon, alpha, Q init, ...); read what applies to you."),
  buildStrategy: z.enum(BUILD_STRATEGIES).describe('What a new memory should hold (`memory.build_strategy`): a written procedure, the raw trajectory, or a script.'),
  model: chatModelSchema.describe("The agent's model: memory-writing calls go through it with role `memory` (and are recorded, cached and metered like the agent's)."),
  embedder: opaque<Embedder>('Embedder').describe('The run\'s embedder: `embed(texts, signal)` → Float32Array[] (local n-grams or an OpenAI-compatible endpoint, cached).'),
  promptDir: z.string().optional().describe("A prompt pack's `memory` folder, if a pack is in use."),
  fidelity: opaque<Fidelity>('Fidelity').describe('Fidelity switch settings (docs/fidelity.md).'),
  log: opaque<Logger>('pino Logger').describe("The run's logger (log.jsonl)."),
  restored: opaque<unknown>('JSON').optional().describe('What `snapshot()` returned at the last checkpoint, when the run resumes: rebuild your state from it.'),
});
export interface MethodContext<C = unknown> extends Omit<z.infer<typeof methodContextSchema>, 'settings'> {
  settings: C;
}

export const retrievalQuerySchema = contract('RetrievalQuery', 'The second argument of `retrieve`.', {
  phase: z.enum(PHASES).describe("'train' or 'valid' (memory read-only)."),
  epoch: z.number().int().min(0).describe('The epoch (0: the validation pass before training).'),
  rng: opaque<Rng>('Rng').describe("The run's retrieval stream for this phase and epoch, drawn in task order: your only source of randomness (exploration), so a resumed run retrieves the same."),
  signal: opaque<AbortSignal>('AbortSignal').optional().describe('Aborted on Ctrl-C or a budget stop.'),
});
export type RetrievalQuery = z.infer<typeof retrievalQuerySchema>;

/** What the outcome row records about a retrieval. On resume, a journaled episode is reused only if these match. */
export const retrievalFieldsSchema = contract('RetrievalFields', "What the outcome row records about a retrieval. On resume, a journaled episode is reused only if these match.", {
  retrievedIds: z.array(z.string()).describe('Ids of the memories injected, in prompt order.'),
  retrievedQ: z.array(z.number()).optional().describe('Their Q values, if the method has them.'),
  retrievedSim: z.array(z.number()).optional().describe('Their similarities to the task, if the method ranks by similarity.'),
  pool: z.number().int().min(0).optional().describe('How many memories were candidates.'),
  explored: z.boolean().optional().describe('True when exploration picked the memories instead of the ranking.'),
});
export type RetrievalFields = z.infer<typeof retrievalFieldsSchema>;

export const retrievalSchema = contract('Retrieval', 'One task\'s retrieval: what `retrieve` returns for each task, in task order.', {
  memories: z.array(injectedMemorySchema).describe("What the benchmark's episode gets as `ctx.memories`, in prompt order."),
  fields: retrievalFieldsSchema.describe('What the outcome row says about them.'),
  detail: z.unknown().optional().describe("Your own data about this retrieval, handed back to `learn` as `episode.retrieval.detail` (never recorded)."),
  record: z
    .record(z.unknown())
    .optional()
    .describe("Why these memories, for a person reading the row (plain JSON), when a model decided it (Self-RAG's gate and labels): written to the row's `extra.retrieval` and compared on resume."),
});
export type Retrieval = z.infer<typeof retrievalSchema>;

/** A method's own account of a retrieval decision (the row's extra.retrieval): plain JSON, open-ended (each method its own). */
export type RetrievalRecord = NonNullable<Retrieval['record']>;

/** What a finished training episode hands to the barrier. Plain JSON: it is journaled. */
export const experienceSchema = contract('Experience', "What `learn` returns: what one finished training episode contributes at the barrier. Plain JSON (it is journaled with the episode and replayed into `commit` after a crash), carrying everything `commit` needs.", {
  memoryId: z.string().optional().describe('The id of the memory it will write, shown in the outcome row.'),
})
  .catchall(z.unknown())
  .superRefine((e, ctx) => {
    if (!plainJson().safeParse(e).success) ctx.addIssue({ code: 'custom', message: 'is not plain JSON (it is journaled: no functions, Maps, class instances, NaN)' });
  });
export type Experience = z.infer<typeof experienceSchema>;

export const finishedEpisodeSchema = contract('FinishedEpisode', "What `learn` gets: a training episode that ended with a result (not for `error` or `skipped` episodes: a harness fault is no experience).", {
  task: taskSchema.describe('The task.'),
  index: z.number().int().min(0).describe("The task's position in its phase's list."),
  epoch: z.number().int().min(1).describe('The epoch.'),
  retrieval: retrievalSchema.describe('What you retrieved for it (with your `detail`).'),
  outcome: outcomeSchema.describe("The episode's result. With `--reward-noise` its success may be flipped (the row keeps the true one)."),
  signal: opaque<AbortSignal>('AbortSignal').optional().describe('Aborted on Ctrl-C or a budget stop.'),
});
export interface FinishedEpisode<T extends TaskBase = TaskBase> extends Omit<z.infer<typeof finishedEpisodeSchema>, 'task'> {
  task: T;
}

/** What a commit did that belongs to single episodes (kept in their transcripts). */
export const commitEffectsSchema = contract('CommitEffects', 'What `commit` may return: what it did that belongs to single episodes (kept in their transcripts).', {
  qUpdates: z
    .array(z.object({ experience: z.number().int().min(0), memoryId: z.string(), before: z.number(), after: z.number() }))
    .optional()
    .describe('Q updates in the order applied; `experience` indexes the experiences given to commit.'),
});
export type CommitEffects = z.infer<typeof commitEffectsSchema>;

export const memoryRecordObject = contract('MemoryRecord', 'One memory as written to memories.jsonl and shown by `memrl view` and `memrl memory`.', {
  id: z.string().describe('Unique id.'),
  key: z.string().describe('The intent key it is filed under (usually the key of the task that wrote it).'),
  content: z.string().describe('What is injected.'),
  success: z.boolean().describe('Whether the episode that wrote it succeeded.'),
  q: z.number().describe('Learned utility (0 without one).'),
  visits: z.number().int().min(0).describe('Times it was injected and updated.'),
  rewardEma: z.number().describe('Moving average of the rewards it saw (0 without one).'),
  lastReward: z.number().nullable().describe('The last reward it saw, or null.'),
  createdAt: z.number().describe('Commit time (ms) it was written at: `commit`\'s `at`.'),
  updatedAt: z.number().describe('Commit time (ms) it last changed.'),
  relatedIds: z.array(z.string()).describe('Memories injected when the episode that wrote it ran.'),
  meta: z
    .object({
      taskId: z.string().optional().describe('The task whose episode wrote it,'),
      epoch: z.number().optional().describe('in which epoch,'),
      phase: z.string().optional().describe('phase'),
      status: z.string().optional().describe("and with which outcome status (memrl's writer sets all four)."),
    })
    .catchall(z.unknown())
    .describe('Where it came from, plus anything else of the method\'s (plain JSON).'),
  sourceKey: z.string().optional().describe("The task's own key, when it is filed under another (similar) key."),
  detached: z.boolean().optional().describe('True when a later memory of the same task text replaced its bucket (`engine.bucket-overwrite`): still stored, never retrieved again.'),
});
export const memoryRecordSchema: z.ZodType<MemoryRecord, z.ZodTypeDef, unknown> = memoryRecordObject;

/** A method's statistics for summary.json `memory`: open-ended, each method its own (the built-ins: computeStats's counts and Q summary, plus their settings), and the fallbacks it counted. */
export const methodStatsSchema = named(
  'MethodStats',
  z
    .object({
      fallbacks: z
        .record(z.number().int().nonnegative())
        .optional()
        .describe("Times the method did something plainer than asked, by kind (Self-RAG's unparseable reply → plain top-k; Mem0's unparseable extraction → nothing stored); absent when none."),
    })
    .catchall(z.unknown())
    .describe("What `stats` returns, recorded as summary.json `memory`: the method's own statistics, e.g. `computeStats(records, size)`'s counts and Q summary, its settings, and `fallbacks`."),
);
export type MethodStats = z.infer<typeof methodStatsSchema>;

export const methodInstanceSchema = contract('MethodInstance', "What `create` returns: the method for one run. The runner calls `retrieve` for each batch, `learn` after each training episode, `commit` at each barrier, `snapshot`/`records`/`stats` at each epoch's end.", {
  prepare: fn<(tasks: readonly TaskBase[], signal?: AbortSignal) => Promise<void>>(
    [
      ['tasks', z.array(taskSchema).readonly()],
      ['signal', opaque<AbortSignal>('AbortSignal').optional()],
    ],
    z.promise(z.void()),
  )
    .optional()
    .describe('Called once the tasks are known, before any retrieval (e.g. to embed their keys).'),
  trainTasks: fn<(tasks: readonly TaskBase[], ctx: { epoch: number; solved: ReadonlySet<string> }) => TaskBase[]>(
    [
      ['tasks', z.array(taskSchema).readonly()],
      ['ctx', opaque<{ epoch: number; solved: ReadonlySet<string> }>('{ epoch, solved: Set<taskId> }')],
    ],
    z.array(taskSchema),
  )
    .optional()
    .describe('The training tasks to run this epoch (default: all); pass@k and reflection retry only the unsolved.'),
  retrieve: fn<(tasks: readonly TaskBase[], query: RetrievalQuery) => Promise<Retrieval[]>>(
    [
      ['tasks', z.array(taskSchema).readonly()],
      ['query', retrievalQuerySchema],
    ],
    z.promise(z.array(retrievalSchema)),
  ).describe(
    "One retrieval per task, in task order, from the memory as committed before this batch. The runner may ask for a batch in consecutive slices (the RNG stream going on), while earlier slices' episodes run: a retrieval depends on the committed state, its task and its draws only.",
  ),
  learn: fn<(episode: FinishedEpisode) => Promise<Experience | undefined>>([['episode', finishedEpisodeSchema]], z.promise(experienceSchema.optional()))
    .optional()
    .describe("What a finished training episode will contribute at the barrier (undefined: nothing). Runs as the episode ends, concurrently with others: do not change what `retrieve` reads here."),
  commit: fn<(experiences: readonly Experience[], at: number) => void | CommitEffects | Promise<void | CommitEffects>>(
    [
      ['experiences', z.array(experienceSchema).readonly()],
      ['at', z.number()],
    ],
    maybeAsync(z.union([z.void(), commitEffectsSchema])),
  ).describe("The barrier: the batch's experiences in task order (from `learn`, or the journal after a crash), at commit time `at` (ms). Change the memory here and only here. May be async; the next batch retrieves after it."),
  snapshot: fn<() => unknown>([], plainJson()).describe("Your whole state as plain JSON, for the epoch checkpoint; `--resume` gives it back as `ctx.restored`."),
  records: fn<() => readonly Readonly<MemoryRecord>[]>([], z.array(memoryRecordSchema).readonly()).describe('Every memory, for memories.jsonl.'),
  stats: fn<() => MethodStats>([], methodStatsSchema).describe('Memory statistics for summary.json (`computeStats(records, size)` from memrl gives the usual ones).'),
  size: z.number().int().min(0).describe('Number of memories (a getter): the epoch lines and TensorBoard print it.'),
  close: fn<() => void | Promise<void>>([], maybeAsync(z.void()))
    .optional()
    .describe('Release what the method holds open (a server, a database); called once when the run ends.'),
});
type InstanceShape = z.infer<typeof methodInstanceSchema>;
export interface MethodInstance extends Omit<InstanceShape, 'trainTasks' | 'size'> {
  trainTasks?<T extends TaskBase>(tasks: readonly T[], ctx: { epoch: number; solved: ReadonlySet<string> }): T[];
  readonly size: number;
}

export const methodModuleSchema = contract('MethodModule', "What a memory method's module exports. Export it (named or default) from the file given to `--plugin`; select it with `--method <name>` or `memrl.method`.", {
  kind: z.literal('method').describe("Always 'method': how memrl tells a method from a benchmark among a module's exports."),
  name: z.string().regex(NAME, 'a lowercase name: a letter, then letters, digits, - or _').describe('`--method <name>`, the config section `memrl.<name>`, the run folder name. Unique among benchmarks and methods.'),
  displayName: z.string().min(1).describe("How tables and reports name it, e.g. 'MemRL'."),
  description: z.string().min(1).describe('One line for help and docs.'),
  configSection: opaque<z.ZodTypeAny>('zod object', (v) => v !== null && typeof v === 'object' && (v as { _def?: { typeName?: unknown } })._def?.typeName === 'ZodObject', 'is not a zod object schema (build it with z.object from memrl)')
    .optional()
    .describe("Its `memrl.<name>` YAML section (a `z.object` with defaults and `.describe()` texts); `create` gets it validated as `ctx.settings`."),
  fidelitySwitches: z.array(opaque<FidelitySwitch>('FidelitySwitch')).readonly().optional().describe('Where it may differ from the reference (built-ins; docs/fidelity.md).'),
  engine: z.enum(MEMORY_METHODS).optional().describe("The memory engine's behaviour its parameters carry, for methods built on memrl's engine ('none', the default, for a method that keeps its own memory)."),
  buildStrategy: z.enum(BUILD_STRATEGIES).optional().describe('A build strategy it always uses, whatever `memory.build_strategy` says.'),
  create: fn<(ctx: MethodContext) => InstanceShape | Promise<InstanceShape>>([['ctx', methodContextSchema]], maybeAsync(methodInstanceSchema)).describe('The method for one run.'),
  referencePrompts: z.array(opaque<ReferencePrompt>('ReferencePrompt')).readonly().optional().describe('Where its templates sit in the reference code, for `memrl prompts import`.'),
}).strict();

/** A memory method's module; `C` is its settings (its config section's output). */
export interface MethodModule<C = any> extends Omit<z.infer<typeof methodModuleSchema>, 'create'> {
  create(ctx: MethodContext<C>): MethodInstance | Promise<MethodInstance>;
}

export type { ChatModel, BuildStrategy };
