/**
 * Opening a sweep: the folder made or found, every cell's config written (or checked
 * against what its run already used), sweep.json brought up to date from the run folders.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import type { Registry } from '../app/registry.js';
import { UserError } from '../util/errors.js';
import { cellConfigYaml, planCells, type Cell } from './plan.js';
import { cellDir, cellFromDisk, cellRunDir, readSweepState, SWEEP_FILE, writeSweepState, type SweepState } from './state.js';
import { readSweepFile, type SweepSpec } from './sweep-file.js';

export interface OpenSweep {
  spec: SweepSpec;
  /** The benchmarks and methods the sweep was read with (its cells' modules). */
  registry: Registry;
  dir: string;
  cells: Cell[];
  state: SweepState;
}

export const cellConfigPath = (sweepDir: string, cellId: string): string => join(cellDir(sweepDir, cellId), 'config.yaml');

export function openSweep(file: string, outputDir: string, registry: Registry): OpenSweep {
  const spec = readSweepFile(file, registry);
  const dir = resolve(outputDir, spec.name);
  const cells = planCells(spec);
  const previous = existsSync(join(dir, SWEEP_FILE)) ? readSweepState(dir) : null;
  for (const cell of cells) {
    const path = cellConfigPath(dir, cell.id);
    const text = cellConfigYaml(cell, spec.name);
    // A cell whose run has started keeps the config it started with: finishing it with another would mix two experiments.
    const before = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    if (before !== undefined && before !== text && cellRunDir(dir, cell)) {
      throw new UserError(
        `${file}: cell ${cell.id} already has a run (${cellRunDir(dir, cell)}) made with ${changedKeys(parse(before), cell.config)}; restore the file, or give the sweep a new name (or --output-dir) to start over`,
        'sweep_changed',
      );
    }
    mkdirSync(cellDir(dir, cell.id), { recursive: true });
    writeFileSync(path, text);
  }
  const prevCells = new Map((previous?.cells ?? []).map((c) => [c.id, c]));
  const now = new Date().toISOString();
  const state: SweepState = {
    name: spec.name,
    file: spec.file,
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
    cells: cells.map((c) => cellFromDisk(dir, c, prevCells.get(c.id)?.status === 'error' ? prevCells.get(c.id) : undefined)),
  };
  writeSweepState(dir, state);
  return { spec, registry, dir, cells, state };
}

/** What changed between a cell's recorded config and the one the sweep file now gives, key by key (the first three). */
export function changedKeys(was: unknown, now: unknown): string {
  const a = leaves(was);
  const b = leaves(now);
  const diffs: string[] = [];
  for (const key of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    const x = a.get(key);
    const y = b.get(key);
    if (x === y) continue;
    diffs.push(x === undefined ? `no ${key} (now ${y})` : y === undefined ? `${key}: ${x} (now unset)` : `${key}: ${x} (now ${y})`);
  }
  if (diffs.length === 0) return 'another config than the sweep file now gives';
  const more = diffs.length > 3 ? ` and ${diffs.length - 3} more key(s)` : '';
  return `${diffs.slice(0, 3).join(', ')}${more}, against what the sweep file now gives`;
}

/** Dotted key → JSON of its value, for every leaf (lists are leaves). */
function leaves(tree: unknown, prefix = '', out = new Map<string, string>()): Map<string, string> {
  if (tree !== null && typeof tree === 'object' && !Array.isArray(tree)) {
    for (const [k, v] of Object.entries(tree)) leaves(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) {
    out.set(prefix, JSON.stringify(tree));
  }
  return out;
}
