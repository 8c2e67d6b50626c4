/**
 * The grid of a sweep: one cell per combination of axis values, in the order the axes
 * are written, each with an id that names its folder and its whole config (base,
 * then `set`, then matching overrides, then the cell's own axis values).
 */
import { stringify } from 'yaml';
import { deepMerge } from '../config/load.js';
import type { ConfigAssignments, ConfigTree } from '../config/types.js';
import { UserError } from '../util/errors.js';
import { readYamlFile } from '../config/yaml-source.js';
import type { SweepSpec } from './sweep-file.js';

export type AxisValue = string | number | boolean | null;

export interface Cell {
  /** Unique in the sweep, safe as a folder name: bcb-memrl-s1-weight_q=0.5. */
  id: string;
  benchmark: string;
  method: string | null;
  seed: number | null;
  /** Every axis value of the cell, by axis name. */
  values: Record<string, AxisValue>;
  /** The config tree the cell runs with (YAML-ready). */
  config: ConfigTree;
}

export function planCells(spec: SweepSpec): Cell[] {
  const bases = new Map<string, ConfigTree>();
  const baseOf = (axisValue: string): ConfigTree => {
    const file = spec.base[axisValue] ?? spec.base['*'];
    if (!file) return {};
    // Read as a config is (one line naming the file for bad YAML, an alias bomb, a folder).
    if (!bases.has(file)) bases.set(file, readYamlFile(file).data);
    return bases.get(file)!;
  };
  const names = Object.keys(spec.axes);
  let combos: Record<string, AxisValue>[] = [{}];
  for (const name of names) combos = combos.flatMap((c) => spec.axes[name]!.map((v) => ({ ...c, [name]: v })));
  const cells = combos.map((values) => {
    const variant = spec.variants[String(values.benchmark)];
    const benchmark = variant?.benchmark ?? String(values.benchmark);
    const method = values.method === undefined ? null : String(values.method);
    const seed = values.seed === undefined ? null : Number(values.seed);
    let config = deepMerge(deepMerge(baseOf(String(values.benchmark)), nest(variant?.set ?? {})), nest(spec.set)) as ConfigTree;
    for (const o of spec.overrides) if (Object.entries(o.when).every(([k, v]) => values[k] === v)) config = deepMerge(config, nest(o.set)) as ConfigTree;
    const own: ConfigAssignments = {};
    for (const [k, v] of Object.entries(values)) if (k !== 'benchmark' && k !== 'method' && k !== 'seed') own[k] = v;
    if (method !== null) own['memrl.method'] = method;
    if (seed !== null) own['experiment.random_seed'] = seed;
    config = deepMerge(config, nest(own)) as ConfigTree;
    return { id: cellId(values), benchmark, method, seed, values, config };
  });
  // Two axis values that print alike (1 and "1") would share a folder.
  const seen = new Set<string>();
  for (const c of cells) {
    if (seen.has(c.id)) throw new UserError(`${spec.file}: two cells would share the id ${c.id} (axis values that print alike, such as 1 and "1"); make them differ`, 'sweep_file_invalid');
    seen.add(c.id);
  }
  return cells;
}

function cellId(values: Record<string, AxisValue>): string {
  const parts: string[] = [String(values.benchmark)];
  if (values.method !== undefined) parts.push(String(values.method));
  if (values.seed !== undefined) parts.push(`s${String(values.seed)}`);
  for (const [k, v] of Object.entries(values)) if (k !== 'benchmark' && k !== 'method' && k !== 'seed') parts.push(`${k.split('.').at(-1)}=${String(v)}`);
  return parts.join('-').replace(/[^A-Za-z0-9._=-]+/g, '_');
}

/** {'a.b': 1} → {a: {b: 1}}. */
export function nest(flat: ConfigAssignments): ConfigTree {
  const out: ConfigTree = {};
  for (const [key, value] of Object.entries(flat)) {
    const path = key.split('.');
    let node = out;
    for (const k of path.slice(0, -1)) node = (node[k] ??= {}) as ConfigTree;
    node[path.at(-1)!] = value;
  }
  return out;
}

export function cellConfigYaml(cell: Cell, sweepName: string): string {
  return `# memrl sweep ${sweepName}, cell ${cell.id}: written by memrl sweep from the sweep file; edit the sweep file, not this.\n${stringify(cell.config)}`;
}
