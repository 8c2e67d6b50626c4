/**
 * Loading a run's configuration.
 *
 * Layers, lowest first: schema defaults (the reference's pydantic defaults) <
 * the benchmark's defaults (its reference YAML and runner) < a run profile
 * (--profile, memrl.profile: profile.ts) < the YAML file (after ${ENV}
 * interpolation) < command-line flags. Without a file, the built-in
 * configs/quickstart.yaml is the file (offline simulator + local embedder), unless
 * a profile is given: then the profile is the setting.
 *
 * Everything benchmark- or method-specific comes from the registry's config parts,
 * so a plug-in's defaults, flags and section are loaded exactly like built-in ones.
 *
 * Errors are UserErrors of one line naming the file and line (or the flag), the
 * key and what to do.
 */
import { resolve } from 'node:path';
import type { z } from 'zod';
import { UserError } from '../util/errors.js';
import { asset } from '../util/paths.js';
import { flagOverlay, type FlagValues } from './flags.js';
import { interpolateEnv, type Env } from './interpolate.js';
import { closest, dotted, formatIssues } from './issues.js';
import { profileLayers } from './profile.js';
import { RUN_PROFILES, type RunProfile } from './profile-names.js';
import { resolveConfig } from './resolve.js';
import { runFlagsFor } from './run-flags.js';
import { schemaFor } from './schema.js';
import type { BenchmarkConfigPart, ConfigRegistry, ConfigTree, ResolvedConfig } from './types.js';
import { objectAt } from './schema-walk.js';
import { readYamlFile, type KeyPath, type YamlSource } from './yaml-source.js';

export interface LoadOptions {
  /** Variables for ${VAR} and the OPENAI_* fallbacks; default process.env. */
  env?: Env;
  /** Base for relative paths; default process.cwd(). */
  cwd?: string;
  /**
   * Inspecting (memrl config): unset ${VAR}s and missing API keys become notes
   * instead of errors, so a file can be checked on a machine without secrets.
   */
  inspect?: boolean;
  /** The settings as data instead of a file (a resumed run's recorded config); `path` then only labels it. */
  data?: { tree: ConfigTree; label: string };
  /**
   * A run: an empty file (or /dev/null, a drained pipe) is refused, since it would run
   * the defaults (a paid endpoint when OPENAI_API_KEY is set). Otherwise it is a note.
   */
  refuseEmpty?: boolean;
}

export const QUICKSTART_CONFIG = 'configs/quickstart.yaml';

/**
 * Under every benchmark's own defaults: the reference's YAML turns value-driven
 * retrieval on for each of its benchmarks, so a benchmark without a reference YAML (a
 * plug-in) runs memrl by default too, instead of the pydantic default's memp. A file
 * or the benchmark may still turn it off.
 */
const EVERY_BENCHMARK = { experiment: { enable_value_driven: true } };

export function quickstartPath(): string {
  return asset(...QUICKSTART_CONFIG.split('/'));
}

// Where it always was for its importers; it lives beside the schema (help builds it without loading YAML).
export { schemaFor };

/** A registered benchmark's config part; an unknown name is a one-line error with the nearest name. */
export function benchmarkPart(registry: ConfigRegistry, name: string): BenchmarkConfigPart {
  const part = registry.benchmarks.find((b) => b.name === name);
  if (part) return part;
  const names = registry.benchmarks.map((b) => b.name);
  const near = closest(name, names);
  throw new UserError(`unknown benchmark \`${name}\`${near ? ` (did you mean \`${near}\`?)` : ''}; known: ${names.join(', ')}`, 'unknown_benchmark');
}

export function loadConfig(
  registry: ConfigRegistry,
  path: string | undefined,
  flags: FlagValues,
  benchmark: string,
  options: LoadOptions = {},
): ResolvedConfig {
  const part = benchmarkPart(registry, benchmark);
  const schema = schemaFor(registry);
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const inspect = options.inspect ?? false;
  // A profile given as a flag replaces the quickstart: with --profile and no --config the profile is the setting.
  const flagProfile = typeof flags.profile === 'string' ? flags.profile : undefined;
  const source: YamlSource = options.data
    ? { label: options.data.label, data: options.data.tree, lineOf: () => undefined }
    : path === undefined
      ? flagProfile !== undefined
        ? { label: `profile ${flagProfile} (no --config)`, data: {}, lineOf: () => undefined }
        : readYamlFile(quickstartPath(), `built-in quickstart (${QUICKSTART_CONFIG})`)
      : readYamlFile(resolve(cwd, path), path);
  const where = (p: KeyPath) => whereInFile(source, p);
  const notes: string[] = [];
  if (path !== undefined && !options.data && Object.keys(source.data).length === 0) {
    // An empty file (or /dev/null, or a pipe already drained) would silently run the defaults: a paid endpoint with OPENAI_API_KEY set.
    const message = `${source.label}: the config file is empty (no settings, only comments or nothing); write the settings into it (configs/quickstart.yaml is an example), or leave out --config to run the offline quickstart`;
    if (options.refuseEmpty && !inspect) throw new UserError(message, 'config_empty');
    notes.push(`${source.label} is empty: every setting is the ${benchmark} default`);
  }

  const { value: fileData, problems } = interpolateEnv(source.data, env);
  for (const problem of problems) {
    const message = `${where(problem.path)}: \`${dotted(problem.path)}\`: ${problem.message}`;
    if (!inspect || problem.kind !== 'unset') throw new UserError(message, 'config_invalid');
    notes.push(message);
  }

  const profileName = flagProfile ?? (fileData as { memrl?: { profile?: unknown } } | null)?.memrl?.profile;
  const profile = (RUN_PROFILES as readonly unknown[]).includes(profileName) ? profileLayers(profileName as RunProfile, part, env) : null;
  const underFile = [EVERY_BENCHMARK, part.defaults ?? {}, ...(profile?.layers ?? [])].reduce<unknown>((acc, layer) => deepMerge(acc, layer), {});
  const fileLayer = deepMerge(underFile, emptySectionsAsMappings(schema, fileData, []));
  const fromFile = schema.safeParse(fileLayer);
  if (!fromFile.success) {
    throw new UserError(formatIssues(fromFile.error, { schema, where, rawAt: (p) => valueAt(fileData, p) }), 'config_invalid');
  }

  const overlay = flagOverlay(flags, runFlagsFor(part, registry.methods.map((m) => m.name)));
  // Flags may name variables too (--api-key-env MY_KEY sets llm.api_key to ${MY_KEY}).
  const { value: flagData, problems: flagProblems } = interpolateEnv(overlay.data, env);
  for (const problem of flagProblems) {
    const message = `${overlay.optionFor(problem.path) ?? dotted(problem.path)}: ${problem.message}`;
    if (!inspect || problem.kind !== 'unset') throw new UserError(message, 'config_invalid');
    notes.push(message);
  }
  const withFlags = schema.safeParse(deepMerge(fileLayer, flagData));
  if (!withFlags.success) {
    // The file alone was valid, so the culprit is a flag.
    throw new UserError(
      formatIssues(withFlags.error, {
        schema,
        where: (p) => overlay.optionFor(p) ?? where(p),
        rawAt: (p) => valueAt(overlay.data, p) ?? valueAt(fileData, p),
      }),
      'config_invalid',
    );
  }

  return resolveConfig(withFlags.data as ResolvedConfig['config'], {
    registry,
    part,
    source: source.label,
    quickstart: path === undefined && !options.data && profile === null,
    profile,
    flags,
    env,
    cwd,
    inspect,
    fileData,
    where: (p) => overlay.optionFor(p) ?? where(p),
    setBy: (p) => overlay.optionFor(p),
    notes,
  });
}

/**
 * A section whose keys are all commented out (`memrl:` alone) reads as null;
 * treat it as an empty mapping rather than a type error.
 */
function emptySectionsAsMappings(schema: z.ZodTypeAny, data: unknown, path: KeyPath): unknown {
  if (!isPlainObject(data)) return data;
  const out: ConfigTree = {};
  for (const [key, value] of Object.entries(data)) {
    const childPath = [...path, key];
    if (value === null && objectAt(schema, childPath)) continue;
    out[key] = emptySectionsAsMappings(schema, value, childPath);
  }
  return out;
}

function whereInFile(source: YamlSource, path: KeyPath): string {
  const line = source.lineOf(path);
  return line === undefined ? source.label : `${source.label}:${line}`;
}

function valueAt(data: unknown, path: KeyPath): unknown {
  let node = data;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as ConfigTree)[String(key)];
  }
  return node;
}

function isPlainObject(value: unknown): value is ConfigTree {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Objects merge key by key; anything else (lists, scalars, null) in `top` replaces. */
export function deepMerge(base: unknown, top: unknown): unknown {
  if (top === undefined) return base;
  if (!isPlainObject(base) || !isPlainObject(top)) return top;
  const out: ConfigTree = { ...base };
  for (const [key, value] of Object.entries(top)) out[key] = deepMerge(base[key], value);
  return out;
}
