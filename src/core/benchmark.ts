/**
 * The benchmark contract. A benchmark is one folder under src/bench/ (or a plug-in
 * module) whose index exports one BenchmarkModule: everything memrl needs to know
 * about it, as data where it can be (config section, defaults, flags, TensorBoard
 * tags, display name, images) plus a few functions (settings, create, doctor, gold
 * check). The runner only ever sees the Benchmark that `create` returns.
 *
 * Each contract is a zod schema (util/contract-schema.ts): its type is inferred, a
 * plug-in is checked against it where it is registered (app/plugin-guard), and its
 * descriptions are docs/plugin-reference.md. A generic member (a benchmark's own task
 * and settings types) is declared again on the interface, in terms of those types.
 *
 * Keep a module's index cheap to import: `memrl --help` loads every registered one.
 * Heavy parts (datasets, evaluators, container clients) belong behind `create`'s
 * dynamic import.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import type { FlagDef, FlagValues } from '../config/flags.js';
import type { ConfigLayer, ConfigTree, DockerSettings, EvaluatorSettings, LlmSettings, ResolvedConfig, SettingsContext } from '../config/types.js';
import type { ImageSlot, MemrlConfig, SharedKeys } from '../config/schema.js';
import { RUN_PROFILES } from '../config/profile-names.js';
import type { SimPlayer } from '../llm/sim/model.js';
import { chatModelSchema, injectedMemoryHintSchema, PHASES, type ChatRequest } from '../llm/types.js';
import type { DoctorCheck } from '../doctor/probes.js';
import type { TagFamily, TagMetric } from '../metrics/tensorboard/tags.js';
import type { MemoryParams } from '../memory/types.js';
import { contract, fn, maybeAsync, named, opaque } from '../util/contract-schema.js';
import type { Fidelity, FidelitySwitch, ReferencePrompt } from '../util/fidelity.js';
import type { Rng } from '../util/rng.js';
import { datasetProblem, type DatasetDeclaration } from '../data/manifest.js';
import type { FidelityTarget } from './fidelity.js';
import { EvaluatorFactsSchema, type EvaluatorFacts } from './run-files/evaluator.js';
import { outcomeSchema, type Outcome } from './outcome.js';
import { dryRunFactsSchema, type DryRunFacts } from './dry-run.js';

/** What a reference tag carries (metrics/tensorboard/tags.ts's TagMetric). */
const TAG_METRICS = ['acc', 'csr', 'avgSteps'] as const satisfies readonly TagMetric[];
const tagListSchema = z.array(z.tuple([z.string().min(1), z.enum(TAG_METRICS)]).readonly()).readonly();
const tagFamilySchema: z.ZodType<TagFamily, z.ZodTypeDef, unknown> = z.union([
  z.literal('other'),
  z
    .object({
      train: tagListSchema.describe('Per training epoch: each tag and the metric it carries.'),
      valid: tagListSchema.describe("Per validation pass: each tag ('{set}' stands for the validation set's name) and its metric."),
      validSet: z.string().optional().describe("The validation set's name when the benchmark gives none."),
    })
    .strict(),
]);

/**
 * What episodes may need of the machine that plays them (a `memrl worker` takes jobs
 * only from the queues whose needs it has): the bubblewrap sandbox, the local MariaDB,
 * a container engine.
 */
export type WorkerNeed = 'bwrap' | 'mariadb' | 'containers';
export const WORKER_NEEDS: readonly WorkerNeed[] = ['bwrap', 'mariadb', 'containers'];

const NAME = /^[a-z][a-z0-9_-]*$/;

export const taskSchema = contract('Task', 'One task of a benchmark. A task may carry any fields of its own besides these (the answer, test code, a file path): memrl hands the same object back to `episode`.', {
  id: z.string().min(1).describe("Stable id, unique within its list (train or valid), e.g. 'BigCodeBench/13'. Outcome rows, the journal, resume, `memrl view` and the sim model's draws are keyed by it."),
  key: z.string().min(1).describe("The task's intent text (usually the question or instruction): what retrieval embeds and matches memories by, and the `key` of a memory written from this task."),
});
export type TaskBase = z.infer<typeof taskSchema>;

/** A memory as shown to the agent. */
export const injectedMemorySchema = named(
  'InjectedMemory',
  injectedMemoryHintSchema
    .extend({
      content: z.string().describe('What to show the model: a procedure, a trajectory or a note (per the method and `memory.build_strategy`).'),
      q: z.number().describe('Its learned utility (MemRL; 0 for methods without one).'),
      sim: z.number().describe("Its similarity to this task's key (0 for methods that do not rank by similarity)."),
      attempt: z
        .object({ trajectory: z.string() })
        .optional()
        .describe("Set by the reflection baseline: this is the task's own previous attempt, not a retrieved memory; `content` is a generic note on it, and a benchmark with its own note builds that from the trajectory."),
    })
    .describe('A memory the method chose for this task. Put `content` into the prompt; pass `{id, key, success, taskId}` of each as `memoryHints` on the chat call.'),
);
export type InjectedMemory = z.infer<typeof injectedMemorySchema>;

export const episodeContextSchema = contract('EpisodeContext', "The second argument of `episode`: the models, the memories chosen for this task, and where the episode stands. memrl builds it; a benchmark only reads it.", {
  model: chatModelSchema.describe('The agent under test. Every call through it is cached, metered, rate-limited and recorded in the transcript.'),
  judge: chatModelSchema.optional().describe('The scoring model, for a benchmark whose module has `judge` (e.g. HLE).'),
  memories: z.array(injectedMemorySchema).describe('What the method retrieved for this task, in prompt order (empty in a memory-free pass). Show them in the prompt.'),
  epoch: z.number().int().min(0).describe('The epoch, from 1 (0: the validation pass before training). Tag chat calls with it.'),
  phase: z.enum(PHASES).describe("'train' (memory learns from the outcome), 'valid' (memory read-only) or 'gold' (check-gold). Tag chat calls with it."),
  signal: opaque<AbortSignal>('AbortSignal').describe('Aborted on Ctrl-C or a budget stop: pass it to `chat` and to anything slow.'),
  log: opaque<Logger>('pino Logger').describe("The run's logger (log.jsonl)."),
});
export type EpisodeContext = z.infer<typeof episodeContextSchema>;

export const sourceFileSchema = named(
  'SourceFile',
  z
    .object({
      path: z.string().describe('The file, as read.'),
      sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 in hex').describe('Its sha256, in hex: a worker, a resume and a results table compare it.'),
    })
    .describe("A file the tasks were read from. memrl adds which release of the benchmark's data it is (dataset, release, url, origin) and records it in run.json's `dataset.sources`."),
);
/** A data file the tasks came from, as a benchmark's load() gives it. */
export type SourceFile = z.infer<typeof sourceFileSchema>;

export const loadedTasksSchema = contract('LoadedTasks', "What `load` resolves to. memrl applies `--limit` to a plug-in's lists itself (the first N of each).", {
  train: z.array(taskSchema).min(1).describe('Training tasks, in the order they run. Memory learns from these.'),
  valid: z.array(taskSchema).describe('Validation tasks (may be empty): scored with the memory read-only after epochs when validation is on.'),
  sources: z
    .array(sourceFileSchema)
    .describe("Files the tasks were read from, with their sha256, for run.json (a worker checks it has the same data). Empty for generated tasks."),
  splitLabel: z.string().min(1).describe("How the tasks were chosen, in a few words, e.g. 'full_seed123.json (798/342)'; shown in the run banner and run.json."),
}).superRefine((loaded, ctx) => {
  for (const list of ['train', 'valid'] as const) {
    const seen = new Set<string>();
    loaded[list].forEach((t, i) => {
      if (seen.has(t.id)) ctx.addIssue({ code: 'custom', path: [list, i, 'id'], message: `repeats the id '${t.id}' (ids are unique within a list)` });
      seen.add(t.id);
    });
  }
});
export interface LoadedTasks<T extends TaskBase = TaskBase> extends Omit<z.infer<typeof loadedTasksSchema>, 'train' | 'valid'> {
  train: T[];
  valid: T[];
}

export const simPlayerSchema = contract('SimPlayer', "The offline simulator's player for a benchmark (`llm.provider: sim`): it writes the model's replies, so a run works end to end without an endpoint. Its numbers are never results.", {
  reply: fn<(req: ChatRequest, rng: Rng, rngFor?: (req: ChatRequest) => Rng) => string>(
    [
      ['request', opaque<ChatRequest>('ChatRequest')],
      ['rng', opaque<Rng>('Rng')],
      ['rngFor', opaque<(req: ChatRequest) => Rng>('(request) => Rng').optional()],
    ],
    z.string(),
  ).describe(
    "The reply to one agent or judge call, in your benchmark's answer format. `request.tags.taskId` says which task; `successProbability({taskId, taskKey, memories: request.memoryHints ?? []})` gives how likely a right answer is (it grows with relevant successful memories); draw from `rng` (private to this call, deterministic) only. `rngFor` gives the generator another request would get.",
  ),
});

/** A benchmark ready to run: what `BenchmarkModule.create` returns and the runner drives. */
export const benchmarkSchema = contract('Benchmark', 'What `create` returns: the runnable benchmark for one run.', {
  name: z.string().regex(NAME).describe("The module's `name` again."),
  envLabel: z.string().min(1).describe("The environment's label, recorded in run.json as `env` (e.g. 'bigcodebench', 'household-standin'); often the name."),
  validSetLabel: z.string().optional().describe("Name of the validation set in the reference's `Evaluation/…/<set>` TensorBoard tags (e.g. ALFWorld's in- or out-of-distribution split); a plug-in with tag family 'other' leaves it out."),
  load: fn<() => Promise<LoadedTasks>>([], z.promise(loadedTasksSchema)).describe('Loads the tasks, once per run, before the run folder exists (a failure leaves nothing behind).'),
  episode: fn<(task: TaskBase, ctx: EpisodeContext) => Promise<Outcome>>(
    [
      ['task', taskSchema],
      ['ctx', episodeContextSchema],
    ],
    z.promise(outcomeSchema),
  ).describe(
    "Runs one episode: prompt the model (with `ctx.memories`), act, score. A wrong answer is a result, not an exception. A failure that is not the model's answer (sandbox, evaluator, the task's data) is a thrown `EpisodeFault`; any other exception is recorded as an `error` row ('episode crashed') with its stack in log.jsonl. Many run at once (`--concurrency`): keep no per-episode state on the benchmark.",
  ),
  simPlayer: fn<(tasks: TaskBase[]) => SimPlayer>([['tasks', z.array(taskSchema)]], simPlayerSchema).describe("The simulator's player for these tasks (every train and valid task)."),
  describeEvaluator: fn<() => Promise<EvaluatorFacts>>([], z.promise(EvaluatorFactsSchema)).describe('Facts about the scorer for run.json (versions, modes). Asked at the start and again at the end.'),
  close: fn<() => Promise<void>>([], z.promise(z.void())).optional().describe('Releases what the benchmark holds open (containers, bridges, servers), once, when the run ends however it ends.'),
});
type BenchmarkShape = z.infer<typeof benchmarkSchema>;
export interface Benchmark<T extends TaskBase = TaskBase> extends Omit<BenchmarkShape, 'load' | 'episode' | 'simPlayer'> {
  load(): Promise<LoadedTasks<T>>;
  episode(task: T, ctx: EpisodeContext): Promise<Outcome>;
  simPlayer(tasks: T[]): SimPlayer;
}

export type { DoctorCheck };

/** An image a benchmark's docker runs may use besides its configured slots (e.g. ALFWorld's stand-in). */
export interface ExtraImage {
  part: string;
  image: string;
}

/** Where a command writes: the CLI passes the process streams, tests pass buffers. */
export interface CommandIo {
  out(text: string): void;
  err(text: string): void;
}

export interface GoldCheckContext {
  io: CommandIo;
  signal: AbortSignal;
  /** The config as `memrl run <benchmark>` would load it (inspect mode: no key needed). */
  loadConfig(path: string | undefined, flags: FlagValues): ResolvedConfig;
}

export const flagSchema: z.ZodType<FlagDef, z.ZodTypeDef, unknown> = contract('Flag', "One of a benchmark's own flags for `memrl run <name>`. The commander option, its help line and the config overlay all come from it.", {
  flags: z.string().regex(/^--[a-z][a-z0-9-]*( <[^>]+>| \[[^\]]+\])?$/, "a long flag with its argument, e.g. '--problems <n>'").describe("The long flag and its argument, e.g. '--problems <n>' (no argument: a boolean switch)."),
  description: z.string().min(1).describe('The help line; say the default in words (a flag has no default of its own: an unset flag leaves the YAML value alone).'),
  choices: z.array(z.string()).readonly().optional().describe('The values it accepts; anything else fails in one line.'),
  parse: opaque<(raw: string) => unknown>('(raw: string) => unknown', (v) => typeof v === 'function', 'is not a function').optional().describe("Checks and converts the text; throw a FlagValueError saying what was expected. memrl exports `positiveInt`, `nonNegativeInt`, `integer(min, what)`, `decimal(check, what)`, `ratio`."),
  snake: z.string().optional().describe('A snake_case spelling accepted as a hidden alias (the reference\'s runners use them).'),
  path: z.array(z.string()).nullable().describe("The config key it sets, e.g. ['memrl', '<name>', 'train']; null: the benchmark reads the flag itself."),
  sets: opaque<(value: unknown) => [string[], unknown][]>('(value) => [path, value][]', (v) => typeof v === 'function', 'is not a function').optional().describe('For a flag that sets several keys at once; replaces `path`.'),
  transform: opaque<(value: unknown) => unknown>('(value) => unknown', (v) => typeof v === 'function', 'is not a function').optional().describe('Applied to the parsed value before it is used (e.g. splitting a comma list).'),
  negatable: z.string().optional().describe('A boolean flag that also has a --no-<name> form; this is that form\'s help line.'),
  repeatable: z.boolean().optional().describe('May be given several times; the values are collected in a list.'),
});

/** `memrl check-gold <benchmark>`: gold answers through the evaluator, to measure a machine rather than a model. */
export const goldCheckSchema = z.object({
  description: z.string().describe('What `memrl check-gold <name> --help` says.'),
  flags: z.array(flagSchema.and(z.object({ default: z.unknown().optional() }))).readonly().describe('Its own flags (none sets a config key; `default` gives commander defaults).'),
  run: fn<(values: FlagValues, ctx: GoldCheckContext) => Promise<void>>(
    [
      ['values', opaque<FlagValues>('FlagValues')],
      ['ctx', opaque<GoldCheckContext>('GoldCheckContext')],
    ],
    z.promise(z.void()),
  ).describe('Runs the check.'),
});
export type GoldCheck = z.infer<typeof goldCheckSchema>;

const imageSlotSchema: z.ZodType<ImageSlot, z.ZodTypeDef, unknown> = named('ImageSlot', z.object({
  key: z.string().regex(/^[a-z][a-z0-9_]*$/, 'a lowercase key (letters, digits, _)'),
  image: z.string().min(1),
  description: z.string(),
  instead: z.string().optional(),
}));

const SHARED_SECTIONS = ['experiment', 'environment', 'memrl.evaluator'];
const isSharedKeys = (v: unknown): boolean => {
  if (v === null || typeof v !== 'object') return false;
  const { section, after, keys } = v as { section?: unknown; after?: unknown; keys?: unknown };
  return (
    SHARED_SECTIONS.includes(section as string) &&
    (after === undefined || typeof after === 'string') &&
    keys !== null &&
    typeof keys === 'object' &&
    Object.values(keys).every((k) => k !== null && typeof k === 'object' && typeof (k as { safeParse?: unknown }).safeParse === 'function')
  );
};

/** A config layer: an object of config sections. */
const isLayer = (v: unknown): boolean => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((s) => s !== null && typeof s === 'object' && !Array.isArray(s));

const isZodObject = (v: unknown): boolean => v !== null && typeof v === 'object' && typeof (v as { safeParse?: unknown }).safeParse === 'function' && (v as { _def?: { typeName?: unknown } })._def?.typeName === 'ZodObject';

export const benchmarkModuleSchema = contract('BenchmarkModule', "What a benchmark's module exports: everything memrl needs before a run (names, config, flags) and `create` for the run itself. Export it (named or default) from the file given to `--plugin`.", {
  kind: z.literal('benchmark').describe("Always 'benchmark': how memrl tells a benchmark from a method among a module's exports."),
  name: z.string().regex(NAME, 'a lowercase name: a letter, then letters, digits, - or _').describe('The command-line name (`memrl run <name>`), the run folder (results/<name>/), the config section `memrl.<name>` and the `benchmark` tag of chat calls. Unique among benchmarks and methods.'),
  displayName: z.string().min(1).describe("How tables, reports and `memrl view` name it, e.g. 'BigCodeBench'."),
  description: z.string().min(1).describe('What `memrl run <name> --help` says it is (a few lines).'),
  examples: z.array(z.string()).readonly().optional().describe('Command lines shown at the end of `memrl run <name> --help`.'),
  configSection: opaque<z.ZodTypeAny>('zod object', isZodObject, 'is not a zod object schema (build it with z.object from memrl)')
    .optional()
    .describe("Its `memrl.<name>` YAML section: a `z.object` (build it with the `z` memrl exports) whose keys have defaults and `.describe()` texts; `memrl config --explain` lists them and a wrong value fails in one line naming the file and line."),
  fidelitySwitches: z.array(opaque<FidelitySwitch>('FidelitySwitch')).readonly().optional().describe('Where it may differ from the reference implementation, as switches (built-ins; see docs/fidelity.md).'),
  defaults: opaque<ConfigLayer>(
    '{ section: { key: value } }',
    isLayer,
    "is not a defaults layer: an object of config sections, e.g. { experiment: { num_sections: 3 } }",
  )
    .optional()
    .describe("Its defaults over memrl's, in the config file's shape, e.g. `{ experiment: { num_sections: 3 }, rl_config: { topk: 3 } }`. Precedence: memrl's defaults < these < the YAML file < flags."),
  profiles: z
    .record(z.enum(RUN_PROFILES), opaque<ConfigLayer>('{ section: { key: value } }', isLayer, 'is not a config layer: an object of config sections'))
    .optional()
    .describe("Its layer of each run profile, by name (`paper`: the paper's setting for it), in the config file's shape. Precedence: its defaults < the profile's common part < this < the YAML file < flags; without one a profile applies only its common part and says so."),
  flags: z
    .array(flagSchema)
    .readonly()
    .optional()
    .describe("Its own flags for `memrl run <name>`: `{ flags: '--problems <n>', description, path: ['memrl', '<name>', 'key'], parse? }`; `path` is the config key it sets (null: read by the benchmark itself), `parse` checks the text (`positiveInt`, `decimal`, ... from memrl)."),
  evaluatorFlags: z.boolean().optional().describe('True: it also takes --evaluator and --docker-host (it has a container backend).'),
  flagHelp: z.record(z.string()).optional().describe("Help text of common flags reworded for it, by flag (placeholders {a.b} take its defaults)."),
  keys: z
    .object({
      reads: z.array(z.string()).readonly().optional(),
      ignores: z.array(z.string()).readonly().optional(),
      labels: z.record(z.string()).optional(),
      help: z.record(z.string()).optional(),
    })
    .strict()
    .optional()
    .describe("Reference config keys only it reads (`reads`) or that everyone else reads but it does not (`ignores`): `memrl config` notes them; its own section is implied. `labels`: short words for its settings where they tell runs apart in a results table, by key, `{value}` standing for the value. `help`: what the help of keys it shares with other benchmarks says of it, by key."),
  sharedKeys: z
    .array(opaque<SharedKeys>('{ section, after?, keys }', isSharedKeys, 'is not { section: experiment, environment or memrl.evaluator; after?: a key of it; keys: { <key>: zod schema } }'))
    .readonly()
    .optional()
    .describe("Keys of shared sections (`experiment`, `environment`, `memrl.evaluator`) that only it reads, as zod shapes, inserted after the key `after` names."),
  images: z.array(imageSlotSchema).readonly().optional().describe('Container images it runs in (slots of `memrl.evaluator.docker.images`; `memrl doctor` checks them).'),
  resolve: fn<(tree: MemrlConfig, ctx: SettingsContext) => unknown>(
    [
      ['tree', opaque<MemrlConfig>('MemrlConfig')],
      ['ctx', opaque<SettingsContext>('SettingsContext')],
    ],
    z.unknown(),
  ).describe("Its settings from the validated config tree (usually `tree.memrl.<name>`, renamed as you like): what `create` and `manifest` get. Throw a UserError naming the key (`ctx.where(path)`) for a value that is valid alone but wrong in context; resolve relative paths against `ctx.cwd`."),
  memoryParams: fn<(params: MemoryParams, tree: MemrlConfig, fidelity: Fidelity) => MemoryParams>(
    [
      ['params', opaque<MemoryParams>('MemoryParams')],
      ['tree', opaque<MemrlConfig>('MemrlConfig')],
      ['fidelity', opaque<Fidelity>('Fidelity')],
    ],
    opaque<MemoryParams>('MemoryParams'),
  )
    .optional()
    .describe("Its own rules on the memory engine's parameters (e.g. HLE's fixed initial Q)."),
  runValidation: fn<(tree: MemrlConfig) => boolean>([['tree', opaque<MemrlConfig>('MemrlConfig')]], z.boolean())
    .optional()
    .describe('Whether validation runs when `memrl.run_validation` is null (default: yes).'),
  validInterval: fn<(tree: MemrlConfig) => number>([['tree', opaque<MemrlConfig>('MemrlConfig')]], z.number().int().min(0))
    .optional()
    .describe('Validate every N epochs (default 1).'),
  judge: fn<(settings: unknown) => LlmSettings | null>([['settings', opaque<unknown>('S')]], opaque<LlmSettings | null>('LlmSettings | null'))
    .optional()
    .describe("A second, scoring model's settings, if it has one: episodes get it as `ctx.judge`."),
  tagFamily: tagFamilySchema
    .optional()
    .describe("The reference runner's TensorBoard tags its scalars also go under, per phase (`{ train: [[tag, 'acc' | 'csr' | 'avgSteps'], ...], valid: [...], validSet? }`), beside memrl's own; a plug-in leaves it out or says 'other' (memrl's own tags only)."),
  standIn: z.string().optional().describe('The env label (run.json, outcome rows) of its offline stand-in, if it has one: tables mark such runs as a pipeline check, not a result.'),
  paper: z
    .object({ taskSimilarity: z.number(), gainOverNone: z.number() })
    .strict()
    .optional()
    .describe("What the paper reports of it that `memrl report` quotes: the mean pairwise similarity of its tasks, and MemRL's gain over no memory."),
  variants: z
    .record(z.record(z.unknown()))
    .optional()
    .describe("Variants a sweep's benchmark axis may name as `<name>-<variant>`, each the config keys it sets, e.g. `{ db: { 'experiment.task': 'db' } }`."),
  workerNeeds: fn<(config: ConfigTree) => readonly WorkerNeed[]>([['config', z.record(z.unknown())]], z.array(z.enum(['bwrap', 'mariadb', 'containers'])).readonly())
    .optional()
    .describe("What its episodes need of a `memrl worker` with the local evaluator ('bwrap', 'mariadb', 'containers'), given the run's or sweep cell's config tree as written; `--queue` and sweeps route its jobs only to workers that have them. With the docker evaluator every benchmark needs a container engine instead. None: any worker."),
  dryRun: fn<(settings: unknown, run: ResolvedConfig) => Promise<DryRunFacts>>(
    [
      ['settings', opaque<unknown>('S')],
      ['run', opaque<ResolvedConfig>('ResolvedConfig')],
    ],
    z.promise(dryRunFactsSchema),
  )
    .optional()
    .describe("What `memrl run <name> --dry-run` and `memrl sweep --dry-run` need to estimate calls, tokens, cost and time without a model call: task counts, the first prompts built with your prompt code, calls per episode, typical reply lengths. Read files only: no model, no sandbox, no network. Without it the estimate is one call per loaded task with the task's text as the prompt, and says so."),
  manifest: fn<(settings: unknown) => unknown>([['settings', opaque<unknown>('S')]], z.unknown())
    .optional()
    .describe("Its section of run.json, recorded under its name (default: its settings, secrets redacted)."),
  create: fn<(settings: unknown, run: ResolvedConfig) => Benchmark | Promise<Benchmark>>(
    [
      ['settings', opaque<unknown>('S')],
      ['run', opaque<ResolvedConfig>('ResolvedConfig')],
    ],
    maybeAsync(benchmarkSchema),
  ).describe("The runnable benchmark for one run, from `resolve`'s settings and the whole resolved config (`run.run.seed`, `run.llm.temperature`, `run.run.maxSteps`, ...). Import heavy parts here, dynamically, so `memrl --help` stays fast."),
  doctor: z
    .object({
      local: fn<(evaluator: EvaluatorSettings) => Promise<DoctorCheck[]>>([['evaluator', opaque<EvaluatorSettings>('EvaluatorSettings')]], z.promise(z.array(opaque<DoctorCheck>('DoctorCheck'))))
        .optional()
        .describe('Readiness of its local evaluator.'),
      extraImages: fn<(docker: DockerSettings) => ExtraImage[]>([['docker', opaque<DockerSettings>('DockerSettings')]], z.array(opaque<ExtraImage>('ExtraImage')))
        .optional()
        .describe('Images its docker runs may use beyond its slots.'),
    })
    .optional()
    .describe("`memrl doctor`'s checks for it."),
  goldCheck: goldCheckSchema.optional().describe('`memrl check-gold <name>`: its gold answers through its evaluator.'),
  data: opaque<DatasetDeclaration>('DatasetDeclaration', (v) => datasetProblem(v) === undefined, 'is not a dataset { title, release, licence, homepage, files: [{ path, url, sha256, size }] } (docs/data.md)')
    .optional()
    .describe("Its data files: each one's source URL, release, size and sha256 (docs/data.md). `memrl data pull <name>` fetches and verifies them, `memrl data list` shows them, run.json records which release a run read, and a resume refuses other data."),
  promptTemplates: z.string().optional().describe('Its prompt templates folder (relative to the package root, or absolute): the `<name>/` namespace of a prompt pack overrides them file by file.'),
  referencePrompts: z.array(opaque<ReferencePrompt>('ReferencePrompt')).readonly().optional().describe('Where its prompts sit in the reference code, for `memrl prompts import`.'),
  fidelityTargets: fn<() => Promise<readonly FidelityTarget[]>>([], z.promise(z.array(opaque<FidelityTarget>('FidelityTarget')).readonly()))
    .optional()
    .describe('Its recorded reference functions, for `memrl fidelity`.'),
}).strict();
type ModuleShape = z.infer<typeof benchmarkModuleSchema>;

/** A benchmark's module; `S` is its settings (what `resolve` returns), `T` its task type. */
export interface BenchmarkModule<S = any, T extends TaskBase = any> extends Omit<ModuleShape, 'resolve' | 'judge' | 'manifest' | 'create' | 'dryRun'> {
  resolve(tree: MemrlConfig, ctx: SettingsContext): S;
  judge?(settings: S): LlmSettings | null;
  manifest?(settings: S): unknown;
  create(settings: S, run: ResolvedConfig<S>): Benchmark<T> | Promise<Benchmark<T>>;
  dryRun?(settings: S, run: ResolvedConfig<S>): Promise<DryRunFacts>;
}
