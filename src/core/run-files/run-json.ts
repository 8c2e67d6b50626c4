/**
 * run.json: what the run is. Written once when the run folder is created (the app's
 * account of how it composed the run, then the runner's facts), extended by each
 * resume (`resumes`) and at the end of each attempt (`observed`).
 *
 * The runner's fields are required: every run folder has them. The app's are optional,
 * for a program that calls the runner directly has none to give (`memrl run` always
 * writes them). The benchmark's own settings sit under its name (`bcb`, `llb`, …).
 */
import { z } from 'zod';
import { DATA_ORIGINS } from '../../data/locations.js';
import type { DataSource } from '../../data/identify.js';
import { BUILD_STRATEGIES, MEMORY_METHODS, type MemoryParams } from '../../memory/types.js';
import { EvaluatorFactsSchema } from './evaluator.js';
import { NOT_RECORDED, parseRunFile, RunFileError, runFormatOf, type Same } from './format.js';

export const RUN_JSON_FILE = 'run.json';

const count = z.number().int().nonnegative();

export const MemoryParamsSchema = z
  .object({
    method: z.enum(MEMORY_METHODS),
    k1: z.number(),
    simThreshold: z.number(),
    k2: z.number(),
    epsilon: z.number(),
    alpha: z.number(),
    successReward: z.number(),
    failureReward: z.number(),
    qInitPos: z.number(),
    qInitNeg: z.number(),
    qFloor: z.number().nullable(),
    qMinThreshold: z.number(),
    recencyBoost: z.number(),
    weightSim: z.number(),
    weightQ: z.number(),
    simNormMean: z.number(),
    simNormStd: z.number(),
    zScore: z.boolean(),
    dedupByTaskId: z.boolean(),
    addSimilarityThreshold: z.number(),
    updateStrategy: z.enum(['adjustment', 'vanilla', 'validation']),
    baselineThreshold: z.number().optional(),
  })
  .strict();

/**
 * A data file the tasks came from, and which release it is (src/data/identify.ts): the
 * manifest's dataset and file it is a copy of, where that is downloaded from, and where
 * this copy was found. Runs before `memrl data` recorded only the path and sha256.
 */
export const DataSourceSchema = z
  .object({
    path: z.string(),
    sha256: z.string(),
    /** sha256 of what memrl read, when that differs from the file's (a .gz file: its uncompressed bytes). */
    contentSha256: z.string().optional(),
    dataset: z.string().optional(),
    file: z.string().optional(),
    /** null: a file at a manifest's place whose bytes are not that release. */
    release: z.string().nullable().optional(),
    url: z.string().optional(),
    origin: z.enum(DATA_ORIGINS).optional(),
    /** An embedded sample: what it holds. */
    sample: z.string().optional(),
  })
  .strict();

const PromptsSchema = z
  .object({ name: z.string(), dir: z.string().optional(), hash: z.string().nullable(), source: z.string().nullable(), overrides: z.array(z.string()) })
  .strict();

const ReportedSchema = z.object({ models: z.array(z.string()), systemFingerprints: z.array(z.string()) }).strict();

/** How the app composed the run (`memrl run`); absent when a program called the runner itself. */
const compositionFields = {
  memrlVersion: z.string(),
  gitCommit: z.string().nullable(),
  node: z.string(),
  platform: z.string(),
  command: z.array(z.string()),
  /** Relative paths in the config are relative to it. */
  cwd: z.string(),
  /** Plug-in modules the run loaded (absolute paths). */
  plugins: z.array(z.string()),
  configSource: z.string(),
  methodReason: z.string(),
  /** The resolved config, secrets redacted: open-ended (the reference's YAML keys plus memrl's own). */
  config: z.record(z.unknown()),
  memoryParams: MemoryParamsSchema,
  buildStrategy: z.enum(BUILD_STRATEGIES),
  fidelity: z.object({ profile: z.enum(['reference', 'fixed']), switches: z.record(z.enum(['reference', 'memrl'])) }).strict(),
  prompts: PromptsSchema,
  /** The run profile (--profile) and each part of its setting this run could not match, one line each. */
  profile: z.object({ name: z.string(), unmatched: z.array(z.string()) }).strict(),
  /** Display names, so readers need not load a plug-in's module. */
  benchmarkName: z.string(),
  methodName: z.string(),
  logFile: z.string(),
  cache: z.object({ recording: z.string(), shared: z.string().nullable(), replayOf: z.string().nullable() }).strict(),
};
const composition = Object.fromEntries(Object.entries(compositionFields).map(([k, v]) => [k, v.optional()])) as {
  [K in keyof typeof compositionFields]: z.ZodOptional<(typeof compositionFields)[K]>;
};

/** What the runner records: every run folder has these. */
const runnerFacts = {
  benchmark: z.string().min(1),
  /** Environment label (e.g. 'bigcodebench', 'household-standin'). */
  env: z.string(),
  method: z.string().min(1),
  model: z.string(),
  simulated: z.boolean(),
  embedder: z.string(),
  seed: z.number(),
  epochs: count,
  batchSize: count,
  concurrency: count,
  dataset: z.object({ sources: z.array(DataSourceSchema), split: z.string(), train: count, valid: count }).strict(),
  trainTaskIds: z.array(z.string()),
  validTaskIds: z.array(z.string()),
  evaluator: EvaluatorFactsSchema,
  startedAt: z.string(),
};

const laterFacts = {
  /** One entry per --resume; `journaled`: finished episodes of the unfinished epoch taken over from the journal. */
  resumes: z.array(z.object({ at: z.string(), fromEpoch: count, journaled: count }).strict()).optional(),
  /** Rewritten at the end of each attempt: what the provider said about itself, and the tasks the harness could not score. */
  observed: z
    .object({
      provider: z.object({ agent: ReportedSchema, judge: ReportedSchema, memory: ReportedSchema, embedding: ReportedSchema }).partial().strict(),
      unscoredTasks: z.array(
        z.object({ taskId: z.string(), phase: z.string(), status: z.string(), epochs: z.array(count), reason: z.string().nullable() }).strict(),
      ),
      at: z.string(),
    })
    .strict()
    .optional(),
};

const known = { memrlRunFormat: z.number().int(), ...composition, ...runnerFacts, ...laterFacts };
const KNOWN_KEYS = new Set(Object.keys(known));

/** The runner's part, from `runnerFacts`: what RunFolder.create is given besides the app's part. */
const RunnerFactsSchema = z.object(runnerFacts).strict();
export type RunnerFacts = z.infer<typeof RunnerFactsSchema>;

const CompositionSchema = z.object(composition).strict();
/** The app's part of run.json, handed to the runner (RunPlan.manifest), and the benchmark's settings under its name. */
export type RunComposition = z.infer<typeof CompositionSchema> & { [benchmarkSection: string]: unknown };

/**
 * run.json. Its keys are the ones above plus one: the benchmark's settings, under the
 * benchmark's name. `memrlRunFormat` is RUN_FORMAT as written; as read, the format the
 * file was written in (an older one read through its migration).
 */
export const RunJsonSchema = z
  .object(known)
  .catchall(z.unknown())
  .superRefine((doc, ctx) => {
    for (const key of Object.keys(doc)) {
      if (!KNOWN_KEYS.has(key) && key !== doc.benchmark) {
        ctx.addIssue({ code: z.ZodIssueCode.unrecognized_keys, keys: [key], path: [], message: `unknown key \`${key}\` (a benchmark's settings go under its name, here \`${doc.benchmark}\`)` });
      }
    }
  });

export type RunJson = z.infer<typeof RunJsonSchema>;

const checks: [Same<z.infer<typeof MemoryParamsSchema>, MemoryParams>, Same<z.infer<typeof DataSourceSchema>, DataSource>] = [true, true];
void checks;

/**
 * Format 1: every memrl wrote the runner's fields, but a run.json made by hand (tests,
 * other tools) may hold little more than benchmark, method, model and seed. What is
 * missing is filled explicitly: the environment is the benchmark's name, a model named
 * `sim` is the simulator, text says NOT_RECORDED, counts 0, lists and facts empty; a
 * resume recorded before the journal took over no episodes.
 */
function migrateRunJsonV1(doc: { [key: string]: unknown }, file: string): { [key: string]: unknown } {
  for (const key of ['benchmark', 'method', 'model', 'seed']) {
    if (doc[key] === undefined) throw new RunFileError(`${file}: field \`${key}\`: missing (every memrl writes it); this run folder was not written by memrl, or was edited`);
  }
  const dataset = typeof doc.dataset === 'object' && doc.dataset !== null ? (doc.dataset as { [key: string]: unknown }) : {};
  const resumes = Array.isArray(doc.resumes) ? doc.resumes.map((r: unknown) => (typeof r === 'object' && r !== null ? { ...r, journaled: (r as { journaled?: unknown }).journaled ?? 0 } : r)) : undefined;
  return {
    memrlRunFormat: 1,
    ...doc,
    env: doc.env ?? doc.benchmark,
    simulated: doc.simulated ?? doc.model === 'sim',
    embedder: doc.embedder ?? NOT_RECORDED,
    epochs: doc.epochs ?? 0,
    batchSize: doc.batchSize ?? 0,
    concurrency: doc.concurrency ?? 0,
    dataset: { sources: [], split: NOT_RECORDED, train: 0, valid: 0, ...dataset },
    trainTaskIds: doc.trainTaskIds ?? [],
    validTaskIds: doc.validTaskIds ?? [],
    evaluator: doc.evaluator ?? {},
    startedAt: doc.startedAt ?? NOT_RECORDED,
    ...(resumes ? { resumes } : {}),
  };
}

/** A parsed run.json of any format this memrl reads, as the current format (format 1 through its migration). */
export function readRunJson(value: unknown, file: string): RunJson {
  const format = runFormatOf(file, value);
  const doc = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as { [key: string]: unknown }) : {};
  return parseRunFile(RunJsonSchema, format === 1 ? migrateRunJsonV1(doc, file) : value, file);
}
