/**
 * Opening a sweep: the folder made or found, every cell's config written (or checked
 * against what its run already used), sweep.json brought up to date from the run folders.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
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
    if (existsSync(path) && readFileSync(path, 'utf8') !== text && cellRunDir(dir, cell)) {
      throw new UserError(
        `${file}: cell ${cell.id} already has a run (${cellRunDir(dir, cell)}) made with another config than the sweep file now gives; restore the file, or give the sweep a new name (or --output-dir) to start over`,
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
