/**
 * Command-line flags as data. A flag definition names the config key it sets, so the
 * commander options, the typed flag values and the config overlay all come from one
 * table and cannot drift apart (the shape of vitest's cli-config table).
 *
 * No flag has a commander default: an unset flag must not override the YAML file
 * (precedence is defaults < YAML < flags), so each help line states the effective
 * default in words instead.
 *
 * The reference spells flags in snake_case (--split_file); `snake` records that
 * spelling, accepted as a hidden alias.
 */
import { RUN_PROFILES } from './profile-names.js';
import type { ConfigTree, KeyPath } from './yaml-source.js';

/** Parsed flag values, keyed by commander's camelCase name of the long flag (--split-file → splitFile). Unset = absent. */
export type FlagValues = Record<string, unknown>;

export interface FlagDef {
  /** kebab-case long flag with its argument, e.g. '--split-file <path>'. */
  flags: string;
  description: string;
  choices?: readonly string[];
  /** Checks and converts the raw text; throws FlagValueError with what was expected. */
  parse?: (raw: string) => unknown;
  /** snake_case spelling used by the reference's runners, if different. */
  snake?: string;
  /** The config key this flag sets; null: not a config key (read by the command itself). */
  path: KeyPath | null;
  /** For a flag that sets several keys at once (e.g. --resume); replaces `path`. */
  sets?: (value: unknown) => [KeyPath, unknown][];
  /** Applied to the parsed value before it is used (e.g. splitting comma lists). */
  transform?: (value: unknown) => unknown;
  /** A boolean flag that also has a --no-<name> form; this describes that form. */
  negatable?: string;
  /** May be given several times; the values are collected in a list. */
  repeatable?: boolean;
}

/** A flag value that does not fit; the CLI shows it as commander's "argument ... is invalid. <message>". */
export class FlagValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FlagValueError';
  }
}

export function integer(min: number, what: string): (raw: string) => number {
  return (raw) => {
    const value = Number(raw);
    if (!/^\s*[-+]?\d+\s*$/.test(raw) || !Number.isSafeInteger(value) || value < min) throw new FlagValueError(`Expected ${what}.`);
    return value;
  };
}

export function decimal(check: (n: number) => boolean, what: string): (raw: string) => number {
  return (raw) => {
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value) || !check(value)) throw new FlagValueError(`Expected ${what}.`);
    return value;
  };
}

export const positiveInt = integer(1, 'a positive integer');
export const nonNegativeInt = integer(0, 'an integer >= 0');
export const ratio = decimal((n) => n > 0 && n <= 1, 'a number in (0, 1]');

/** '--split-file <path>' → '--split-file'. */
export function longName(def: Pick<FlagDef, 'flags'>): string {
  return def.flags.split(/\s+/)[0]!;
}

/** commander's attribute name: '--split-file' → 'splitFile'. */
export function flagAttr(def: Pick<FlagDef, 'flags'>): string {
  return longName(def).slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** What every `memrl run <benchmark>` takes, in the order --help lists them; `methods` are the registered method names, for --method's choices. */
export function commonRunFlags(methods: readonly string[]): FlagDef[] {
  return [...experimentFlags(methods), ...startFlags(), ...spendFlags(), ...fidelityAndOutputFlags()];
}

/** The config, the model and its endpoint, and the experiment's settings. */
function experimentFlags(methods: readonly string[]): FlagDef[] {
  return [
    { flags: '--config <file>', description: "YAML config, in the reference's format plus an optional memrl: section (default: the built-in quickstart: offline simulator)", path: null },
    {
      flags: '--model <name>',
      description: 'chat model of an OpenAI-compatible endpoint, e.g. gpt-4o-mini, or a vLLM / Ollama model name; sim = the offline simulator (default: llm.model of --config, else the simulator)',
      path: null,
      sets: (v) => [
        [['llm', 'provider'], v === 'sim' ? 'sim' : 'openai'],
        [['llm', 'model'], v],
      ],
    },
    {
      flags: '--base-url <url>',
      description: 'OpenAI-compatible endpoint of the chat model, e.g. http://127.0.0.1:8000/v1 for vLLM, http://127.0.0.1:11434/v1 for Ollama (default: llm.base_url, else $OPENAI_BASE_URL, else OpenAI)',
      path: ['llm', 'base_url'],
    },
    {
      flags: '--api-key-env <VAR>',
      description: "name of the environment variable holding the chat model's API key (default: llm.api_key, else OPENAI_API_KEY)",
      parse: (raw) => {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(raw)) throw new FlagValueError('Expected the name of an environment variable, e.g. MY_API_KEY.');
        return raw;
      },
      path: null,
      sets: (v) => [[['llm', 'api_key'], `\${${String(v)}}`]],
    },
    { flags: '--epochs <n>', description: 'number of epochs (default: experiment.num_sections, else {experiment.num_sections})', parse: positiveInt, path: ['experiment', 'num_sections'] },
    {
      flags: '--retrieve-threshold <x>',
      description: 'Phase A cosine threshold (default: rl_config.sim_threshold, else {rl_config.sim_threshold})',
      parse: decimal((n) => n >= -1 && n <= 1, 'a number between -1 and 1'),
      snake: '--retrieve_threshold',
      path: ['rl_config', 'sim_threshold'],
    },
    {
      flags: '--retrieve-k <n>',
      description: 'k1, keys kept by similarity recall; 0 disables retrieval (default: memory.k_retrieve, else {memory.k_retrieve})',
      parse: nonNegativeInt,
      snake: '--retrieve_k',
      path: ['memory', 'k_retrieve'],
    },
    { flags: '--output-dir <dir>', description: 'root directory for run outputs (default: experiment.output_dir, else ./results)', snake: '--output_dir', path: ['experiment', 'output_dir'] },
    {
      flags: '--temperature <t>',
      description: 'sampling temperature, 0..2 (default: llm.temperature, else {llm.temperature})',
      parse: decimal((n) => n >= 0 && n <= 2, 'a number between 0 and 2'),
      path: ['llm', 'temperature'],
    },
    { flags: '--max-tokens <n>', description: 'maximum completion tokens per call (default: llm.max_tokens, else {llm.max_tokens})', parse: positiveInt, snake: '--max_tokens', path: ['llm', 'max_tokens'] },
    { flags: '--seed <n>', description: 'seed of every random choice (default: experiment.random_seed, else 42)', parse: nonNegativeInt, path: ['experiment', 'random_seed'] },
    {
      flags: '--method <name>',
      description: 'memory method to run (default: memrl.method, else derived from experiment.algorithm, enable_value_driven and baseline_mode, normally memrl)',
      choices: methods,
      path: ['memrl', 'method'],
    },
    {
      flags: '--concurrency <n>',
      description: 'episodes run at once inside a batch; results do not depend on it (default: memrl.concurrency, else 4)',
      parse: positiveInt,
      path: ['memrl', 'concurrency'],
    },
    {
      flags: '--reward-noise <p>',
      description: 'flip the reward the memory learns from with probability p (seeded); outcomes keep the true reward (default: memrl.reward_noise, else 0)',
      parse: decimal((n) => n >= 0 && n <= 1, 'a probability between 0 and 1'),
      path: ['memrl', 'reward_noise'],
    },
    { flags: '--limit <n>', description: 'use only the first N training and N validation tasks (default: memrl.limit, else all)', parse: positiveInt, path: ['memrl', 'limit'] },
    {
      flags: '--run-validation',
      description: 'also score the validation set after every epoch (default: memrl.run_validation, else the benchmark\'s rule)',
      negatable: 'train phase only, even if the config enables validation',
      path: ['memrl', 'run_validation'],
    },
  ];
}

/** How the run starts: anew, resumed, replayed, its data pulled first, or only estimated. */
function startFlags(): FlagDef[] {
  return [
    {
      flags: '--resume <run-dir>',
      description: 'continue an interrupted run from its last epoch snapshot (default: a new run)',
      path: null,
      sets: (value) => [
        [['experiment', 'ckpt_resume_enabled'], true],
        [['experiment', 'ckpt_resume_path'], value],
      ],
    },
    {
      flags: '--batch-size <n>',
      description: 'tasks per memory-commit batch (default: experiment.batch_size, else {experiment.batch_size})',
      parse: positiveInt,
      path: ['experiment', 'batch_size'],
    },
    {
      flags: '--pull',
      description: "fetch the benchmark's missing data files into the cache first, as `memrl data pull` does (default: memrl.data.auto_pull, else stop and say which command fetches them)",
      path: ['memrl', 'data', 'auto_pull'],
    },
    {
      flags: '--cache <dir>',
      description: 'shared response cache for chat and embeddings, read before and written after each call (default: memrl.cache_dir, else none)',
      path: ['memrl', 'cache_dir'],
    },
    {
      flags: '--replay <run-dir>',
      description: "re-run a recorded run offline from its <run-dir>/responses.jsonl: zero network calls, a reply it lacks stops the run; give the original flags (default: a live run)",
      path: null,
    },
    {
      flags: '--dry-run',
      description: "estimate the run's model calls, tokens, cost and time from the prompts it would send, print it and exit without a single call (default: run)",
      path: null,
    },
  ];
}

/** What the run may spend and where its episodes play: rate limits, a queue, budgets, prices. */
function spendFlags(): FlagDef[] {
  return [
    {
      flags: '--rate-limit <rps>',
      description: 'at most this many model requests per second per endpoint, shared by a --queue run and all its workers (default: memrl.llm.rate_limit, else no limit)',
      parse: decimal((n) => n > 0, 'a positive number of requests per second'),
      path: ['memrl', 'llm', 'rate_limit'],
    },
    {
      flags: '--queue <url>',
      description: 'play the episodes on `memrl worker`s that take them from this Redis (redis://host:port); memory, journal and outputs stay in this process, results are the same as a local run (default: in this process)',
      path: null,
    },
    {
      flags: '--budget-usd <x>',
      description:
        'stop (resumably) once billed model calls cost this many US dollars, counted over every attempt of the run; resume with a larger value (default: memrl.budget.usd, else no limit)',
      parse: decimal((n) => n > 0, 'a positive number of US dollars'),
      path: ['memrl', 'budget', 'usd'],
    },
    {
      flags: '--budget-tokens <n>',
      description:
        'stop (resumably) once billed model calls used this many tokens (every role and embeddings; cache hits excluded), over every attempt (default: memrl.budget.tokens, else no limit)',
      parse: positiveInt,
      path: ['memrl', 'budget', 'tokens'],
    },
    {
      flags: '--prices <file>',
      description: 'price table (USD per 1M tokens per model) merged over the built-in src/llm/prices.yaml (default: memrl.prices, else the built-in table)',
      path: ['memrl', 'prices'],
    },
  ];
}

/** The profile, the reference behaviours and prompts, the log, plug-ins and how loud their faults are. */
function fidelityAndOutputFlags(): FlagDef[] {
  return [
    {
      flags: '--profile <name>',
      description:
        "paper = the paper's setting: the reference's models, token limits, prompts (the imported pack), time limits, epochs and validation for this benchmark, reference fidelity; the config file and flags still win over it (default: memrl.profile, else none)",
      choices: RUN_PROFILES,
      path: ['memrl', 'profile'],
    },
    {
      flags: '--fidelity <profile>',
      description: "reference = the reference code's behaviour, bug for bug; fixed = with its parsing and scoring bugs corrected (default: memrl.fidelity, else reference)",
      choices: ['reference', 'fixed'],
      path: ['memrl', 'fidelity'],
    },
    {
      flags: '--fidelity-switch <id=setting>',
      description: 'set one fidelity switch to reference or memrl over the profile, e.g. llb.os-output-cap=memrl; repeatable; docs/fidelity.md lists them (default: memrl.fidelity_switches, else none)',
      repeatable: true,
      parse: switchAssignment,
      path: null,
      sets: (value) => (value as [string, string][]).map(([id, setting]) => [['memrl', 'fidelity_switches', id], setting]),
    },
    {
      flags: '--prompts <dir>',
      description: 'prompt pack: templates as <namespace>/<file> overriding memrl\'s own (`memrl prompts import` / `export` make one) (default: memrl.prompts, else memrl\'s own)',
      path: ['memrl', 'prompts'],
    },
    { flags: '--log-dir <dir>', description: "folder for the run's JSON log (default: memrl.log_dir, else log.jsonl in the run folder)", path: ['memrl', 'log_dir'] },
    {
      flags: '--plugin <module>',
      description: 'load a benchmark or memory method from this JS/TS module; repeatable (default: memrl.plugins, else none)',
      repeatable: true,
      path: null,
    },
    {
      flags: '--verbose',
      description: "also print a plug-in's exceptions with their stack traces; they are always in the run's log.jsonl (default: only their first line)",
      path: null,
    },
  ];
}

/** `--fidelity-switch id=setting` → [id, setting]. */
function switchAssignment(raw: string): [string, string] {
  const m = /^\s*([A-Za-z0-9_.-]+)\s*=\s*(reference|memrl)\s*$/.exec(raw);
  if (!m) throw new FlagValueError('Expected <switch-id>=reference or <switch-id>=memrl, e.g. llb.os-output-cap=memrl.');
  return [m[1] as string, m[2] as string];
}

/** Where untrusted work runs: taken by the benchmarks that have a container backend. */
export const EVALUATOR_FLAGS: readonly FlagDef[] = [
  {
    flags: '--evaluator <backend>',
    description: 'where tasks run: local = on this machine, sandboxed; docker = in containers (default: memrl.evaluator.backend, else local)',
    choices: ['local', 'docker'],
    path: ['memrl', 'evaluator', 'backend'],
  },
  {
    flags: '--docker-host <url>',
    description:
      'container engine for --evaluator docker, e.g. unix:///run/podman/podman.sock or tcp://host:2375 (default: memrl.evaluator.docker.host, else DOCKER_HOST, else the usual sockets)',
    path: ['memrl', 'evaluator', 'docker', 'host'],
  },
];

/**
 * Help text with `{a.b.c}` placeholders filled from a benchmark's defaults tree, so a
 * help line's "else 25" is the value the run would really use.
 */
export function fillDefaults(text: string, defaults: unknown): string {
  return text.replace(/\{([a-z_]+(?:\.[a-z_]+)+)\}/g, (whole, path: string) => {
    let node: unknown = defaults;
    for (const k of path.split('.')) node = node !== null && typeof node === 'object' ? (node as ConfigTree)[k] : undefined;
    return node === undefined ? whole : node === null ? 'the endpoint default' : String(node);
  });
}

export interface FlagOverlay {
  data: ConfigTree;
  /** The option that set `path` (or a key under it), if any. */
  optionFor(path: KeyPath): string | undefined;
}

/** Flag values as a config layer: each flag writes its key(s), so the schema checks flag values like file values. */
export function flagOverlay(values: FlagValues, defs: readonly FlagDef[]): FlagOverlay {
  const data: ConfigTree = {};
  const owners: { path: string; option: string }[] = [];
  const set = (path: KeyPath, value: unknown, option: string): void => {
    let node = data;
    for (const key of path.slice(0, -1)) node = (node[String(key)] ??= {}) as ConfigTree;
    node[String(path[path.length - 1])] = value;
    owners.push({ path: path.join('.'), option });
  };
  for (const def of defs) {
    const value = values[flagAttr(def)];
    if (value === undefined) continue;
    const option = def.negatable && value === false ? `--no-${longName(def).slice(2)}` : longName(def);
    if (def.sets) for (const [path, v] of def.sets(value)) set(path, v, option);
    else if (def.path) set(def.path, value, option);
  }
  return {
    data,
    optionFor: (path) => {
      const dottedPath = path.join('.');
      return owners.find((o) => dottedPath === o.path || dottedPath.startsWith(`${o.path}.`))?.option;
    },
  };
}
