/**
 * The memrl configuration schema.
 *
 * Part 1 mirrors the reference implementation's pydantic `MempConfig` key for key
 * (sections llm, embedding, memory, environment, experiment, rl_config and the
 * top-level project_name/version), with the reference's own defaults, so the
 * reference's YAML files load unchanged. Part 2 is the `memrl:` section: settings
 * the reference does not have. Every object is strict: an unknown key is an error.
 *
 * The schema is composed (buildConfigSchema): each registered benchmark and memory
 * method may add its own `memrl.<name>` section, and the method names and container
 * images come from the registries, so a plug-in's keys are checked like built-in ones.
 * The reference's keys that only one benchmark reads (experiment.llb_q_floor,
 * environment.*) are that benchmark's too: its module adds them where the reference
 * has them (sharedKeys), and says what the help of keys it shares should say of it
 * (keys.help). No key here knows a benchmark by name.
 *
 * Defaults here are the *last* layer: a benchmark's defaults sit above them, then the
 * YAML file, then command-line flags.
 */
import type { FidelitySwitch } from '../util/fidelity.js';
import { RUN_PROFILES } from './profile-names.js';
import { z } from 'zod';
import { CONTAINER_DEFAULTS } from '../env/limits.js';
import { UserError } from '../util/errors.js';
import { bool, int, num } from './coerce.js';

/** A benchmark's or method's name (the registries hold the known ones). */
export type Benchmark = string;
export type Method = string;

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

// ---------------------------------------------------------------------------
// Part 1: the reference's sections
// ---------------------------------------------------------------------------

const apiKey = (what: string) =>
  z
    .string()
    .default('sk-8')
    .describe(
      `API key for the ${what} endpoint. Placeholders (sk-REPLACE_ME, API, sk-8, empty) are replaced by $OPENAI_API_KEY when the endpoint is OpenAI's. Use \${VAR} to read any variable.`,
    );

const baseUrl = z
  .string()
  .nullable()
  .default(DEFAULT_OPENAI_BASE_URL)
  .describe('Base URL of an OpenAI-compatible API (OpenAI, Azure, vLLM, Ollama, llama.cpp). Placeholder BASEURL or null → $OPENAI_BASE_URL, else OpenAI.');

const apiVersion = z.string().nullable().default(null).describe('API version query parameter (Azure OpenAI); null for other endpoints.');

export const LlmSchema = z
  .object({
    provider: z
      .enum(['openai', 'sim'])
      .default('openai')
      .describe('openai = any OpenAI-compatible chat endpoint; sim = the offline deterministic simulator (pipeline checks only, never results).'),
    api_key: apiKey('chat'),
    base_url: baseUrl,
    api_version: apiVersion,
    model: z.string().min(1).default('gpt-4.1-mini').describe('Chat model name sent to the endpoint.'),
    temperature: num(z.number().min(0).max(2)).default(0.7).describe('Sampling temperature of the agent (0..2).'),
    max_tokens: int((n) => n.positive())
      .nullable()
      .default(null)
      .describe('Maximum completion tokens per call; null = the endpoint default.'),
  })
  .strict();

export const EmbeddingSchema = z
  .object({
    provider: z
      .enum(['openai', 'local'])
      .default('openai')
      .describe('openai = OpenAI-compatible embeddings; local = deterministic hashed n-gram embedder (offline, no key).'),
    api_key: apiKey('embedding'),
    base_url: baseUrl,
    api_version: apiVersion,
    model: z.string().min(1).default('text-embedding-3-large').describe('Embedding model name (ignored by provider local).'),
    max_text_len: int((n) => n.min(0))
      .default(8196)
      .describe('Texts longer than this many characters are embedded in chunks and averaged; 0 disables chunking.'),
  })
  .strict();

/** The benchmarks' words on a key they share (their keys.help), in registry order. */
type WordsOn = (key: string) => string[];

/** "A, B: rest": the words as the lead of a sentence (none: the sentence alone). */
function lead(words: readonly string[], rest: string, joiner = ', '): string {
  return words.length ? `${words.join(joiner)}: ${rest}` : rest.charAt(0).toUpperCase() + rest.slice(1);
}

/** " (a, b)": the words as an aside (none: ''). */
function aside(words: readonly string[], open = ' ('): string {
  return words.length ? `${open}${words.join(', ')})` : '';
}

/** The reference's memory section; `w` gives the benchmarks' words for the help of shared keys. */
const memorySchema = (w: WordsOn) =>
  z
    .object({
      build_strategy: z
        .enum(['proceduralization', 'trajectory', 'script'])
        .default('proceduralization')
        .describe('What a new memory holds: proceduralization = script (success) or reflection (failure) + trajectory (the paper); trajectory = raw trajectory; script = script only.'),
      retrieve_strategy: z
        .enum(['query', 'random', 'avefact'])
        .default('query')
        .refine((v) => v === 'query', {
          message: 'only `query` retrieval is implemented (the paper\'s); remove the key or set it to query',
        })
        .describe('Retrieval key strategy. Only `query` (embed the task text) is implemented; kept for reference compatibility.'),
      update_strategy: z
        .enum(['adjustment', 'vanilla', 'validation'])
        .default('adjustment')
        .describe('adjustment = successes get scripts, failures reflections (the paper); vanilla = store failures like successes; validation = store successes only.'),
      k_retrieve: int((n) => n.min(0))
        .default(1)
        .describe('k1: number of intent keys kept by similarity recall (Phase A). 0 disables retrieval. CLI: --retrieve-k.'),
      max_keywords: int((n) => n.positive()).default(8).describe('Inert: keyword count for the reference\'s avefact retrieval.'),
      confidence_threshold: num(z.number().min(0).max(1)).default(0).describe('Inert: never read by the reference (retrieval uses rl_config.sim_threshold).'),
      memory_confidence: num(z.number().min(0).max(100)).default(100).describe('Inert: MemOS metadata in the reference; no effect on retrieval or Q.'),
      add_similarity_threshold: num()
        .default(0.9)
        .describe('A new memory joins the bucket of the most similar Phase-A key when sim >= this; otherwise its task text becomes a new key.'),
      mos_config_path: z.string().default('configs/mos_config.json').describe('Inert: the reference\'s MemOS storage config.'),
      user_id: z.string().default('memp_user').describe('Inert: the reference\'s MemOS user id.'),
      sim_norm_mean: num().default(0).describe(`Fixed mean used to z-score cosine similarity in Phase B${aside(w('memory.sim_norm_mean'), ' (per benchmark: ')}.`),
      sim_norm_std: num().default(0).describe(`Fixed std used to z-score cosine similarity${aside(w('memory.sim_norm_std'))}; <= 1e-9 means 1.`),
      load_from_checkpoint: bool()
        .default(false)
        .refine((v) => !v, {
          message: 'reference (MemOS) checkpoints cannot be loaded; resume a memrl run with --resume <run-dir> instead',
        })
        .describe('Unsupported when true (reference checkpoint format); use --resume.'),
      checkpoint_path: z.string().nullable().default(null).describe('Reference checkpoint path; see load_from_checkpoint.'),
    })
    .strict();

/** The reference's environment section: every key in it is one benchmark's (sharedKeys). */
const environmentShape = {};

const LOG_LEVELS = ['DEBUG', 'INFO', 'WARNING', 'WARN', 'ERROR', 'CRITICAL'] as const;

/** The reference's experiment section, but for the keys a benchmark adds (sharedKeys). */
const experimentShape = (w: WordsOn) => ({
  experiment_name: z.string().min(1).default('memrl').describe('Name used in run directory names and logs.'),
  algorithm: z
    .enum(['rl', 'memp', 'mdp', 'rlmdp', 'slow_rl'])
    .default('rl')
    .refine((v) => v === 'rl' || v === 'memp', {
      message: 'only `rl` and `memp` are implemented; choose the method with memrl.method or --method',
    })
    .describe('rl = MemRL; memp = similarity retrieval without Q learning. Used to derive memrl.method when that is unset.'),
  val_before_train: bool().default(true).describe('Run a memory-free validation pass before epoch 1 (only when validation runs at all).'),
  enable_value_driven: bool()
    .default(false)
    .describe('false = plain similarity retrieval, no Q updates (method memp). Used to derive memrl.method when that is unset.'),
  random_seed: int().nullable().default(42).describe('Seed for every random choice (data split, epsilon exploration, sim model). null = 42. CLI: --seed.'),
  mode: z.string().default('train').describe('Inert: memrl always trains, then validates if enabled.'),
  num_sections: int((n) => n.min(1)).default(5).describe('Number of epochs (the reference says sections). CLI: --epochs.'),
  batch_size: int((n) => n.min(1))
    .default(32)
    .describe('Tasks per batch: all tasks of a batch retrieve from the same memory; updates are committed at the batch barrier. CLI: --batch-size.'),
  max_steps: int((n) => n.min(1)).default(30).describe(lead(w('experiment.max_steps'), 'maximum turns per episode.')),
  valid_interval: int((n) => n.min(0))
    .default(1)
    .describe(lead(w('experiment.valid_interval'), 'validate after every N-th epoch (those with epoch % N == 0); 0 = never after an epoch (the pass before training still runs when experiment.val_before_train).', ' and ')),
  test_interval: int((n) => n.min(0)).default(1).describe('Inert: never read by the reference.'),
  dataset_ratio: num(z.number().gt(0).max(1)).default(0.7).describe(lead(w('experiment.dataset_ratio'), 'fraction of the data used (each sampled as its reference runner does).')),
  bon: int((n) => n.min(0)).default(0).describe('Inert: best-of-N evaluation, never wired up in the reference.'),
  ckpt_eval_enabled: bool()
    .default(false)
    .refine((v) => !v, { message: 'evaluating reference checkpoints is not supported; remove the key or set it to false' })
    .describe('Unsupported when true.'),
  ckpt_eval_path: z.string().nullable().default(null).describe('See ckpt_eval_enabled.'),
  ckpt_resume_enabled: bool().default(false).describe('Resume the memrl run in ckpt_resume_path (same as --resume).'),
  ckpt_resume_path: z.string().nullable().default(null).describe('Run directory to resume when ckpt_resume_enabled.'),
  ckpt_resume_epoch: int((n) => n.min(0)).nullable().default(null).describe('Epoch snapshot to resume from; null or 0 = the latest.'),
  baseline_mode: z
    .enum(['none', 'passk', 'reflection'])
    .nullable()
    .default(null)
    .describe('passk / reflection select those baselines when memrl.method is unset; none or null = no baseline.'),
  baseline_k: int((n) => n.min(0)).default(10).describe('Inert: memrl runs baselines for experiment.num_sections epochs like every method.'),
  output_dir: z.string().default('./results').describe('Root directory for run outputs. CLI: --output-dir.'),
  save_trajectories: bool().default(true).describe('Inert: memrl always saves trajectories.'),
  save_memories: bool().default(true).describe('Inert: memrl always saves memory snapshots (needed for resume).'),
  enable_logging: bool().default(true).describe('Inert: memrl always writes its log.'),
  log_level: z
    .preprocess((v) => (typeof v === 'string' ? v.toUpperCase() : v), z.enum(LOG_LEVELS))
    .default('INFO')
    .describe('Log level: DEBUG, INFO, WARNING, ERROR, CRITICAL.'),
});

/** The reference's rl_config section. */
const rlSchema = (w: WordsOn) =>
  z
    .object({
      epsilon: num(z.number().min(0).max(1)).default(0.1).describe('Probability of picking a random subset of the candidate pool instead of the top-k2.'),
      tau: num().default(0.35).describe(lead(w('rl_config.tau'), "the Self-RAG and Mem0 baselines' similarity floor, as the reference's baseline scripts read it (Phase A uses sim_threshold); inert for the other methods.")),
      alpha: num(z.number().min(0).max(1)).default(0.3).describe('Q learning rate: Q ← Q + alpha·(r − Q).'),
      gamma: num()
        .default(0)
        .refine((v) => v === 0, { message: 'only 0 is supported (the Q update is single-step, Monte-Carlo)' })
        .describe('Discount factor; must be 0 (single-step update).'),
      q_init_pos: num().default(0).describe(`Initial Q of a memory written after a success${aside(w('rl_config.q_init_pos'))}.`),
      q_init_neg: num().default(0).describe(`Initial Q of a memory written after a failure${aside(w('rl_config.q_init_neg'))}.`),
      q_floor: num().nullable().default(null).describe('Lower bound applied to Q after updates and when scoring; null = none.'),
      success_reward: num().default(1).describe('Reward of a successful episode.'),
      failure_reward: num().default(-1).describe('Reward of a failed episode.'),
      sim_threshold: num().default(0.5).describe('Phase A: keep keys with cosine >= this. CLI: --retrieve-threshold.'),
      topk: int((n) => n.min(0)).default(5).describe('k2: number of memories injected per task (Phase B).'),
      novelty_threshold: num().default(0.85).describe('Inert: never read by the reference.'),
      recency_boost: num().default(0).describe('Added to every candidate\'s Q when scoring.'),
      reward_merge_gain: num().default(0.1).describe('Inert: never read by the reference.'),
      q_min_threshold: num().default(-0.8).describe('Phase B: drop candidates with Q below this (strict).'),
      weight_sim: num().default(0.5).describe('Score weight of the similarity z-score (1 − λ).'),
      weight_q: num().default(0.5).describe('Score weight of the Q z-score (λ).'),
    })
    .strict();

// ---------------------------------------------------------------------------
// Part 2: memrl's own settings (not in the reference)
// ---------------------------------------------------------------------------

/** Container limits (from env/limits.ts, where every limit lives) and pull policy when memrl.evaluator.docker does not say. */
export const DOCKER_DEFAULTS = { ...CONTAINER_DEFAULTS, pull: 'missing' } as const;

/** A container image a benchmark runs in: the key under memrl.evaluator.docker.images. */
export interface ImageSlot {
  key: string;
  image: string;
  description: string;
  /** `memrl doctor`'s advice when it is missing, beyond building the images. */
  instead?: string;
}

/** What a registered benchmark or method adds to the schema. */
export interface ConfigPart {
  name: string;
  /** Its `memrl.<name>` section (a strict zod object with defaults), if it has settings. */
  configSection?: z.ZodTypeAny;
  /** The fidelity switches it honours (see util/fidelity.ts and docs/fidelity.md). */
  fidelitySwitches?: readonly FidelitySwitch[];
}

/** The sections a benchmark may add keys to: two of the reference's, and memrl's evaluator settings. */
export type SharedSection = 'experiment' | 'environment' | 'memrl.evaluator';

/**
 * Keys a benchmark adds to a shared section, right after the key `after` (first when
 * absent), so that the section keeps the reference's order. Keys added to
 * memrl.evaluator also come out, camelCased, in the resolved evaluator settings.
 */
export interface SharedKeys {
  section: SharedSection;
  after?: string;
  keys: z.ZodRawShape;
}

export interface SchemaParts {
  benchmarks: readonly (ConfigPart & {
    images?: readonly ImageSlot[];
    sharedKeys?: readonly SharedKeys[];
    keys?: { help?: Readonly<Record<string, string>> };
  })[];
  methods: readonly ConfigPart[];
}

/** The shape of `section` with the keys the benchmarks add to it, each group after its anchor, in registry order. */
function withSharedKeys<S extends z.ZodRawShape>(section: SharedSection, shape: S, parts: SchemaParts['benchmarks']): S {
  let entries = Object.entries(shape);
  for (const part of parts) {
    for (const added of part.sharedKeys ?? []) {
      if (added.section !== section) continue;
      const at = added.after === undefined ? 0 : entries.findIndex(([k]) => k === added.after) + 1;
      if (added.after !== undefined && at === 0) throw new UserError(`benchmark ${part.name}: sharedKeys: ${section} has no key ${added.after} to put its keys after`, 'plugin_invalid');
      const taken = Object.keys(added.keys).find((k) => entries.some(([e]) => e === k));
      if (taken) throw new UserError(`benchmark ${part.name}: sharedKeys: ${section}.${taken} is already a key`, 'plugin_invalid');
      entries = [...entries.slice(0, at), ...Object.entries(added.keys), ...entries.slice(at)];
    }
  }
  // Typed as the common keys: a benchmark reads its own with sharedKeysOf.
  return Object.fromEntries(entries) as S;
}

/** The keys a benchmark added to a shared section (`shape`, its sharedKeys entry's keys), as validated. */
export function sharedKeysOf<S extends z.ZodRawShape>(tree: MemrlConfig, section: SharedSection, _shape: S): z.output<z.ZodObject<S>> {
  const node = section === 'memrl.evaluator' ? tree.memrl.evaluator : tree[section];
  return node as unknown as z.output<z.ZodObject<S>>;
}
/** memrl.data: how runs get their data (docs/data.md). */
const DataSection = z
  .object({
    auto_pull: z
      .boolean()
      .default(false)
      .describe("Fetch a run's missing data files first (memrl data pull <benchmark>) instead of stopping with the command that would. CLI: --pull."),
  })
  .strict()
  .default({});

/** memrl's own keys, the same for every benchmark. */
function commonMemrlShape(methods: readonly string[], images: readonly ImageSlot[], w: WordsOn = () => [], parts: SchemaParts['benchmarks'] = []) {
  const methodEnum = methods.length > 0 ? z.enum(methods as [string, ...string[]]) : z.string();
  return {
    method: methodEnum
      .nullable()
      .default(null)
      .describe(
        `${methods.join(' | ')}. null = derive from the reference keys: baseline_mode passk/reflection → that; algorithm memp or enable_value_driven false → memp (rag if build_strategy is trajectory); else memrl. CLI: --method.`,
      ),
    concurrency: int((n) => n.min(1))
      .default(4)
      .describe('Episodes run at once inside a batch. Results do not depend on it (commits follow task order). CLI: --concurrency.'),
    limit: int((n) => n.min(1))
      .nullable()
      .default(null)
      .describe('Use only the first N training tasks and the first N validation tasks; null = all. CLI: --limit.'),
    run_validation: bool()
      .nullable()
      .default(null)
      .describe(
        `Score the validation set (memory read-only) after every epoch; null = the benchmark's rule (${validationRules(w)}). CLI: --run-validation / --no-run-validation.`,
      ),
    max_error_rate: num(z.number().min(0).max(1))
      .default(0.5)
      .describe(
        'Stop the run as failed when more than this share of an epoch\'s episodes end in `error` (an endpoint or evaluator that keeps failing: the numbers would mean nothing). 1 = never.',
      ),
    reward_noise: num(z.number().min(0).max(1))
      .default(0)
      .describe(
        'Flip the reward the memory learns from (Q updates and the memory written) with this probability, seeded per episode; the recorded outcome keeps the true reward. Measures robustness to noisy feedback (memrl analyze compares it with the clean run). CLI: --reward-noise.',
      ),
    plugins: z
      .array(z.string().min(1))
      .default([])
      .describe('JS/TS modules adding benchmarks or memory methods, loaded before the command runs (paths relative to the working directory). CLI: --plugin.'),
    prompts: z
      .string()
      .nullable()
      .default(null)
      .describe(
        "Prompt pack: a folder of templates laid out as <namespace>/<file> (namespaces: memory and each benchmark's name), overriding memrl's own file by file; `memrl prompts import` makes one from a MemRL checkout, `memrl prompts export` writes memrl's as a start. null = memrl's own. CLI: --prompts.",
      ),
    profile: z
      .enum(RUN_PROFILES)
      .nullable()
      .default(null)
      .describe(
        "paper = the paper's setting in one step: the reference's models, token limits, prompts (an imported pack), time limits, epochs and validation per benchmark, reference fidelity; a layer over the benchmark's defaults and under the YAML file and flags (docs/reproduce.md). null = none. CLI: --profile.",
      ),
    fidelity: z
      .enum(['reference', 'fixed'])
      .default('reference')
      .describe(
        "reference = behave as the reference code does, bug for bug, wherever it changes what the model sees or how it is scored; fixed = the same with the reference's parsing and scoring bugs corrected. docs/fidelity.md lists every switch. CLI: --fidelity.",
      ),
    fidelity_switches: z
      .record(z.enum(['reference', 'memrl']))
      .default({})
      .describe('Single fidelity switches set over the profile, e.g. {llb.os-output-cap: memrl}; `memrl config --explain` and docs/fidelity.md list them. CLI: --fidelity-switch <id>=<reference|memrl>.'),
    log_dir: z
      .string()
      .nullable()
      .default(null)
      .describe("Folder for the run's JSON log (<benchmark>-<run-id>.jsonl); null = log.jsonl in the run folder. CLI: --log-dir."),
    data: DataSection,
    cache_dir: z
      .string()
      .nullable()
      .default(null)
      .describe('Shared response cache (chat and embeddings) read before calling the provider and written after; null = none (every run still records its own replies in <run>/cache). CLI: --cache.'),
    budget: z
      .object({
        usd: num(z.number().positive())
          .nullable()
          .default(null)
          .describe('Stop the run (resumably) once its billed model calls cost this many US dollars, counted over every attempt of the run folder (prices: memrl.prices); null = no limit. CLI: --budget-usd.'),
        tokens: int((n) => n.positive())
          .nullable()
          .default(null)
          .describe('Stop the run (resumably) once its billed model calls used this many tokens (prompt + completion, every role and embeddings; cache hits excluded), over every attempt; null = no limit. CLI: --budget-tokens.'),
      })
      .strict()
      .default({}),
    prices: z
      .string()
      .nullable()
      .default(null)
      .describe('Price table (YAML or JSON: models: {<name>: {input, output}}, USD per 1M tokens) merged over the built-in src/llm/prices.yaml, its entries winning; null = the built-in table. CLI: --prices.'),
    llm: z
      .object({
        timeout_ms: int((n) => n.positive())
          .default(60_000)
          .describe('Per-attempt timeout of a chat call in milliseconds (a minute: a hung server is said after the first one, on the console; raise it for a slow local model or long outputs).'),
        max_retries: int((n) => n.min(0)).default(2).describe('Retries (with backoff) on rate limits, 5xx, timeouts and network errors: at most max_retries + 1 attempts per call.'),
        stop_after_failures: int((n) => n.min(0))
          .default(10)
          .describe(
            'Stop the run (resumably) once this many model calls in a row to an endpoint that answered before have failed after their retries (no connection, timeout, 5xx): it went down mid-run, and the episodes it failed would count as unsolved. An endpoint none of whose calls has succeeded yet is stopped after 3 failed calls (or this many, if fewer). The calls cut short run again on --resume. 0 = never.',
          ),
        rate_limit: num(z.number().positive())
          .nullable()
          .default(null)
          .describe('At most this many chat requests per second to each endpoint (base URL and model; cache hits excluded), spaced evenly; with --queue one limit shared by the run and all its workers (kept in Redis); null = no limit. CLI: --rate-limit.'),
      })
      .strict()
      .default({}),
    embedding: z
      .object({
        dim: int((n) => n.positive())
          .nullable()
          .default(null)
          .describe('local: vector size (null = 512). openai: `dimensions` request parameter (null = the model\'s native size).'),
      })
      .strict()
      .default({}),
    sim: z
      .object({
        seed: int().nullable().default(null).describe('Seed of the offline simulator; null = the run seed.'),
      })
      .strict()
      .default({}),
    evaluator: z.object(withSharedKeys('memrl.evaluator', evaluatorShape(w, images), parts)).strict().default({}),
  };
}

/** memrl.evaluator: where untrusted code runs (a benchmark's own evaluator keys are added by its sharedKeys). */
function evaluatorShape(w: WordsOn, images: readonly ImageSlot[]) {
  return {
    backend: z.enum(['local', 'docker']).default('local').describe('Where untrusted code runs: local = bubblewrap sandbox; docker = container via the Docker API. CLI: --evaluator.'),
    eval_timeout: num(z.number().positive()).default(60).describe(lead(w('memrl.evaluator.eval_timeout'), 'per-task test time budget in seconds. CLI: --eval-timeout.')),
    hard_timeout: num(z.number().positive()).default(120).describe(lead(w('memrl.evaluator.hard_timeout'), 'hard kill after this many seconds. CLI: --untrusted-hard-timeout.')),
    fork_server: z
      .boolean()
      .default(true)
      .describe(
        lead(
          w('memrl.evaluator.fork_server'),
          'run each test in a child forked from a warm interpreter that has the libraries imported, in the sandbox or container (the same isolation and verdicts, faster); false = a fresh interpreter per test. CLI: --fork-server / --no-fork-server.',
        ),
      ),
    docker: z
      .object({
        host: z
          .string()
          .nullable()
          .default(null)
          .describe('Container engine address (unix:///path.sock, tcp://host:port); null = DOCKER_HOST, else the usual Docker and Podman sockets. CLI: --docker-host.'),
        images: z
          .object(Object.fromEntries(images.map((slot) => [slot.key, z.string().default(slot.image).describe(slot.description)])))
          .strict()
          .default({}),
        memory_mb: int((n) => n.positive()).default(DOCKER_DEFAULTS.memoryMb).describe('Memory limit of each evaluator container, MiB.'),
        pids: int((n) => n.positive()).default(DOCKER_DEFAULTS.pids).describe('Process limit of each evaluator container.'),
        pull: z.enum(['missing', 'never']).default(DOCKER_DEFAULTS.pull).describe('Pull an image that is not on the engine (missing) or fail at once (never).'),
      })
      .strict()
      .default({}),
  };
}

/** memrl.run_validation's null: each benchmark's rule (its words on the key), then everyone else's, then who validates every N-th epoch. */
function validationRules(w: WordsOn): string {
  const everyNth = w('experiment.valid_interval');
  return [...w('memrl.run_validation'), 'others: on', ...(everyNth.length ? [`${everyNth.join(' and ')} then validate after every experiment.valid_interval-th epoch`] : [])].join('; ');
}

/**
 * The whole schema for the registered benchmarks and methods. A part's section sits
 * at `memrl.<name>`; names that collide with memrl's own keys are refused by the registry.
 */
export function buildConfigSchema(parts: SchemaParts) {
  const images = parts.benchmarks.flatMap((b) => b.images ?? []);
  const sections: Record<string, z.ZodTypeAny> = {};
  for (const part of [...parts.benchmarks, ...parts.methods]) {
    if (part.configSection) sections[part.name] = part.configSection.default({});
  }
  const w: WordsOn = (key) => parts.benchmarks.flatMap((b) => (b.keys?.help?.[key] !== undefined ? [b.keys.help[key]] : []));
  const memrl = z
    .object({ ...commonMemrlShape(parts.methods.map((m) => m.name), images, w, parts.benchmarks), ...sections })
    .strict();
  return z
    .object({
      llm: LlmSchema.default({}),
      embedding: EmbeddingSchema.default({}),
      memory: memorySchema(w).default({}),
      environment: z.object(withSharedKeys('environment', environmentShape, parts.benchmarks)).strict().default({}),
      experiment: z.object(withSharedKeys('experiment', experimentShape(w), parts.benchmarks)).strict().default({}),
      rl_config: rlSchema(w).default({}),
      project_name: z.string().default('memp').describe('Inert: a label.'),
      version: z.string().default('0.1.0').describe('Inert: a label.'),
      memrl: memrl.default({}).describe('memrl\'s own settings (not in the reference).'),
    })
    .strict();
}

let reserved: Set<string> | undefined;

/** Names a plug-in section may not take: memrl's own keys. */
export function isReservedSection(name: string): boolean {
  reserved ??= new Set(Object.keys(commonMemrlShape([], [])));
  return reserved.has(name);
}

type CommonMemrl = z.output<z.ZodObject<ReturnType<typeof commonMemrlShape>>>;
type ReferencePart = Omit<z.output<ReturnType<typeof buildConfigSchema>>, 'memrl'>;

/**
 * The validated configuration tree (reference sections + memrl section), defaults
 * filled. A benchmark's or method's own section is `memrl.<name>`; read it with sectionOf.
 */
export type MemrlConfig = ReferencePart & {
  memrl: Omit<CommonMemrl, 'method' | 'evaluator'> & {
    method: string | null;
    evaluator: Omit<CommonMemrl['evaluator'], 'docker'> & {
      docker: Omit<CommonMemrl['evaluator']['docker'], 'images'> & { images: Record<string, string> };
    };
  } & { [section: string]: unknown };
};

/** A part's own `memrl.<name>` section, as its zod schema produced it. */
export function sectionOf<S>(tree: MemrlConfig, name: string): S {
  return tree.memrl[name] as S;
}

/** The zod schema type of a composed config (for code that walks it). */
export type ConfigSchemaType = ReturnType<typeof buildConfigSchema>;

const schemas = new WeakMap<SchemaParts, ConfigSchemaType>();

/** The config schema of a registry (built once per registry). */
export function schemaFor(registry: SchemaParts): ConfigSchemaType {
  let schema = schemas.get(registry);
  if (!schema) {
    schema = buildConfigSchema(registry);
    schemas.set(registry, schema);
  }
  return schema;
}
