/**
 * A sweep's plug-ins: the modules named in the sweep file's top-level `plugins:` list
 * (relative to the sweep file, like `base:`) and in its base configs' `memrl.plugins`
 * (relative to the working directory, as `memrl run --config` reads them). They are
 * loaded before the sweep file is checked, so its benchmark and method axes may name
 * what they add; every cell's run records them, and a `--queue` sweep's jobs carry their
 * absolute paths so each worker loads the same modules.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { loadPlugins } from '../app/plugins.js';
import type { Registry } from '../app/registry.js';
import { readYamlFile, type KeyPath, type YamlSource } from '../config/yaml-source.js';
import { UserError } from '../util/errors.js';

/** Absolute paths of the sweep file's plug-ins, in order, each once; a bad entry is one line naming the file and the line. */
export function sweepPlugins(file: string, cwd = process.cwd()): string[] {
  const src = readYamlFile(resolve(cwd, file), file);
  const here = dirname(resolve(cwd, file));
  const out: string[] = [];
  const add = (path: string): void => void (out.includes(path) ? undefined : out.push(path));
  for (const [i, given] of listAt(src, file, ['plugins'], 'plugins').entries()) {
    const abs = resolve(here, given);
    if (!existsSync(abs)) fail(src, file, ['plugins', i], `plugins[${i}]: ${given}: no such file (${abs}; a plug-in is relative to the sweep file's folder); fix the path`);
    add(abs);
  }
  // One set for the whole sweep: its axes are checked against it, and every cell's job carries it.
  const overrides = Array.isArray(src.data.overrides) ? (src.data.overrides as unknown[]) : [];
  const perCell: [KeyPath, unknown][] = [[['set'], src.data.set], [['axes'], src.data.axes], ...overrides.map((o, i): [KeyPath, unknown] => [['overrides', i, 'set'], (o as { set?: unknown } | null)?.set])];
  for (const [where, keys] of perCell) {
    if (keys !== null && typeof keys === 'object' && 'memrl.plugins' in keys) {
      fail(src, file, [...where, 'memrl.plugins'], `${where.join('.')}: memrl.plugins: name the sweep's plug-ins in its top-level plugins: list (every cell loads them)`);
    }
  }
  for (const base of baseFiles(src.data.base, here)) {
    if (!existsSync(base)) continue; // the sweep file's own check says so, with its line
    const cfg = readYamlFile(base);
    for (const [i, given] of listAt(cfg, base, ['memrl', 'plugins'], 'memrl.plugins').entries()) {
      const abs = resolve(cwd, given);
      if (!existsSync(abs)) fail(cfg, base, ['memrl', 'plugins', i], `memrl.plugins[${i}]: ${given}: no such file (${abs}; memrl.plugins is relative to the folder memrl runs in); fix the path`);
      add(abs);
    }
  }
  return out;
}

/** The registry with the sweep file's plug-ins loaded (the same registry when it names none). */
export async function sweepRegistry(file: string, registry: Registry, cwd = process.cwd()): Promise<Registry> {
  const plugins = sweepPlugins(file, cwd);
  return plugins.length ? loadPlugins(registry, plugins, cwd) : registry;
}

function baseFiles(base: unknown, here: string): string[] {
  if (typeof base === 'string') return [resolve(here, base)];
  if (base && typeof base === 'object' && !Array.isArray(base)) return Object.values(base).filter((v): v is string => typeof v === 'string').map((p) => resolve(here, p));
  return [];
}

/** A list of paths at `path` (none when absent); anything else is one line naming the key. */
function listAt(src: YamlSource, file: string, path: KeyPath, key: string): string[] {
  const value = path.reduce<unknown>((node, k) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[k] : undefined), src.data);
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && v.length > 0)) fail(src, file, path, `${key}: give a list of plug-in module paths, e.g. [examples/plugins/arithmetic/index.ts]`);
  return value as string[];
}

function fail(src: YamlSource, file: string, where: KeyPath, message: string): never {
  const line = src.lineOf(where);
  throw new UserError(`${file}${line ? `:${line}` : ''}: ${message}`, 'sweep_file_invalid');
}
