/**
 * The sweep file: a base config, axes whose product is the grid of cells, keys every
 * cell gets, and overrides for the cells that match. Read with line numbers, so a bad
 * key is one line naming the file, the line and the key.
 *
 *   name: quickstart
 *   plugins: [../plugins/my-bench.ts]   # optional; relative to this file (plugins.ts)
 *   base: ../quickstart.yaml            # relative to this file; or per benchmark: { bcb: ../bcb.yaml, … }
 *   set: { memrl.limit: 4 }             # every cell
 *   axes:
 *     benchmark: [bcb]
 *     method: [none, memrl]
 *     seed: [1, 2]
 *     rl_config.weight_q: [0.3, 0.5]    # any config key
 *   overrides:
 *     - when: { benchmark: llb }
 *       set: { experiment.task: db }
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { schemaFor } from '../config/load.js';
import { closest } from '../config/issues.js';
import { schemaLeaves } from '../config/schema-walk.js';
import { readYamlFile, type YamlSource } from '../config/yaml-source.js';
import type { ConfigAssignments } from '../config/types.js';
import type { Registry } from '../app/registry.js';
import { UserError } from '../util/errors.js';
import { sweepPlugins } from './plugins.js';

/** Axes with a name of their own; any other axis is a dotted config key. */
export const NAMED_AXES = ['benchmark', 'method', 'seed'] as const;

/** A benchmark axis value that names a variant (`<benchmark>-<variant>`, as the results table's columns do): its benchmark and the keys it sets. */
export interface BenchmarkVariant {
  benchmark: string;
  set: ConfigAssignments;
}

/** Every variant the registered benchmarks declare, by axis value. */
export function benchmarkVariants(registry: Registry): Record<string, BenchmarkVariant> {
  const out: Record<string, BenchmarkVariant> = {};
  for (const b of registry.benchmarks) for (const [v, set] of Object.entries(b.variants ?? {})) out[`${b.name}-${v}`] = { benchmark: b.name, set: { ...set } };
  return out;
}

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

const SweepFileSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-" only (it names the sweep folder)'),
    plugins: z.array(z.string().min(1)).default([]),
    base: z.union([z.string(), z.record(z.string())]).optional(),
    set: z.record(z.unknown()).default({}),
    axes: z.record(z.array(scalar).min(1, 'give at least one value')),
    overrides: z
      .array(z.object({ when: z.record(scalar), set: z.record(z.unknown()) }).strict())
      .default([]),
  })
  .strict();

export interface SweepSpec {
  name: string;
  /** Absolute path of the sweep file. */
  file: string;
  /** Absolute paths of its plug-ins (its plugins: list, then its base configs' memrl.plugins): workers load them too. */
  plugins: string[];
  /** Absolute path of the base config by benchmark axis value ('*': every one), if any (else the quickstart defaults). */
  base: Record<string, string>;
  set: ConfigAssignments;
  axes: Record<string, (string | number | boolean | null)[]>;
  overrides: { when: Record<string, string | number | boolean | null>; set: ConfigAssignments }[];
  /** The variants its benchmark axis may name (from the registry it was read with). */
  variants: Record<string, BenchmarkVariant>;
}

export function readSweepFile(path: string, registry: Registry): SweepSpec {
  const src = readYamlFile(path);
  if (Object.keys(src.data).length === 0) {
    throw new UserError(`${path}: the sweep file is empty; write its name, axes (and base, set, overrides) into it, as in configs/sweeps/paper.yaml (docs/scale.md)`, 'sweep_file_invalid');
  }
  const parsed = SweepFileSchema.safeParse(src.data);
  if (!parsed.success) {
    // A misspelt key explains the "missing" one that usually comes with it: say it first.
    const issue = parsed.error.issues.find((i) => i.code === 'unrecognized_keys') ?? parsed.error.issues[0]!;
    const line = src.lineOf(issue.path);
    const key = issue.path.join('.');
    const what =
      issue.code === 'unrecognized_keys'
        ? `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')} (a sweep file has name, plugins, base, set, axes, overrides)`
        : issue.code === 'invalid_type' && issue.received === 'undefined'
          ? 'missing'
          : issue.message;
    throw new UserError(`${path}${line ? `:${line}` : ''}: ${key ? `${key}: ` : ''}${what}`, 'sweep_file_invalid');
  }
  const spec = parsed.data;
  const file = resolve(path);
  const keys = new Set(schemaLeaves(schemaFor(registry)).map((l) => l.path));
  const checkKey = (key: string, where: (string | number)[]): void => {
    if (keys.has(key)) return;
    const near = closest(key, [...keys]);
    fail(src, path, where, `${key} is not a config key${near ? ` (did you mean ${near}?)` : ''}; see memrl config --explain`);
  };
  for (const key of Object.keys(spec.axes)) if (!(NAMED_AXES as readonly string[]).includes(key)) checkKey(key, ['axes', key]);
  for (const key of Object.keys(spec.set)) checkKey(key, ['set', key]);
  spec.overrides.forEach((o, i) => {
    for (const key of Object.keys(o.set)) checkKey(key, ['overrides', i, 'set', key]);
    for (const key of Object.keys(o.when)) if (!(key in spec.axes)) fail(src, path, ['overrides', i, 'when', key], `${key} is not an axis of this sweep (axes: ${Object.keys(spec.axes).join(', ')})`);
  });
  const benchmarks = (spec.axes.benchmark ?? []).map(String);
  if (benchmarks.length === 0) fail(src, path, ['axes'], 'axes.benchmark is missing: name the benchmark(s) to run, e.g. benchmark: [bcb]');
  const variants = benchmarkVariants(registry);
  const known = [...registry.benchmarks.map((b) => b.name), ...Object.keys(variants)];
  for (const b of benchmarks) if (!known.includes(b)) fail(src, path, ['axes', 'benchmark'], `unknown benchmark ${b} (known: ${known.join(', ')}); a plug-in's are added by the sweep file's plugins: list`);
  const base: Record<string, string> = {};
  // A base config must exist now: found missing later, it was a raw ENOENT after the sweep folder was made.
  const baseFile = (where: (string | number)[], given: string): string => {
    const abs = resolve(dirname(file), given);
    if (!existsSync(abs)) fail(src, path, where, `${where.join('.')}: ${given}: no such file (${abs}; a base is relative to the sweep file's folder); fix the path`);
    return abs;
  };
  if (typeof spec.base === 'string') base['*'] = baseFile(['base'], spec.base);
  else
    for (const [b, p] of Object.entries(spec.base ?? {})) {
      if (!benchmarks.includes(b)) fail(src, path, ['base', b], `base.${b}: ${b} is not on the benchmark axis (${benchmarks.join(', ')})`);
      base[b] = baseFile(['base', b], p);
    }
  const methods = registry.methods.map((m) => m.name);
  for (const m of (spec.axes.method ?? []).map(String)) if (!methods.includes(m)) fail(src, path, ['axes', 'method'], `unknown method ${m} (known: ${methods.join(', ')}); a plug-in's are added by the sweep file's plugins: list`);
  for (const s of spec.axes.seed ?? []) if (!Number.isInteger(s) || (s as number) < 0) fail(src, path, ['axes', 'seed'], `seed ${String(s)}: give whole numbers ≥ 0`);
  return { name: spec.name, file, plugins: sweepPlugins(path), base, set: spec.set, axes: spec.axes, overrides: spec.overrides, variants };
}

function fail(src: YamlSource, path: string, where: (string | number)[], message: string): never {
  const line = src.lineOf(where);
  throw new UserError(`${path}${line ? `:${line}` : ''}: ${message}`, 'sweep_file_invalid');
}
