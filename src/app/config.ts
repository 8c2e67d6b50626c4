/**
 * Configuration over the registry: the config loader, the composed schema and the
 * `memrl config --explain` text, for the built-in benchmarks and methods plus any
 * plug-ins the caller loaded.
 */
import type { FlagValues } from '../config/flags.js';
import { explainText as explainFor } from '../config/explain.js';
import { loadConfig as loadConfigFor, schemaFor, type LoadOptions } from '../config/load.js';
import type { ConfigSchemaType } from '../config/schema.js';
import type { ResolvedConfig } from '../config/types.js';
import type { BuiltinBenchSettings } from '../bench/registry.js';
import { builtinRegistry, type Registry } from './registry.js';

export type { BuiltinBenchSettings } from '../bench/registry.js';

type SettingsOf<B extends string> = B extends keyof BuiltinBenchSettings ? BuiltinBenchSettings[B] : unknown;

export { deriveMethod } from '../config/resolve.js';

/** Load a config as `memrl run <benchmark>` would (registry default: the built-ins). */
export function loadConfig<B extends string>(path: string | undefined, flags: FlagValues, benchmark: B, options: LoadOptions & { registry?: Registry } = {}): ResolvedConfig<SettingsOf<B>> {
  const { registry, ...rest } = options;
  return loadConfigFor(registry ?? builtinRegistry(), path, flags, benchmark, rest) as ResolvedConfig<SettingsOf<B>>;
}

/** The config schema of a registry (default: the built-ins). */
export function configSchema(registry: Registry = builtinRegistry()): ConfigSchemaType {
  return schemaFor(registry);
}

export function explainText(benchmark: string, registry: Registry = builtinRegistry()): string {
  return explainFor(registry, benchmark);
}
